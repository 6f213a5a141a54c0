package tiling

import (
	"testing"

	"github.com/vkcompact/vkcompact/vk"
)

// TestWindowTiles checks the windows of a single pass past one binding:
// the most whole tiles one binding holds, in a multiple whose bytes keep
// every window's offset aligned, for every input given.
func TestWindowTiles(t *testing.T) {
	dev := func(align uint64) vk.DeviceInfo { return vk.DeviceInfo{MinStorageBufferOffsetAlignment: align} }
	for _, c := range []struct {
		align, limit uint64
		tileBytes    []uint64
		want         uint32
	}{
		{16, 1<<32 - 1, []uint64{16384}, 262143},     // the H100, uint32 tiles of 4096
		{16, 1 << 27, []uint64{16384, 4096}, 8192},   // lavapipe, uint32 tiles of 4096 and their uint8 flags
		{256, 64 << 10, []uint64{64}, 1024},          // SwiftShader, tiles of 64 bytes: 4 a step
		{256, 64<<10 + 200, []uint64{64}, 1024},      // rounded down to the step
		{256, 1000, []uint64{192}, 4},                // 192 = 64 * 3: steps of 4 tiles
		{256, 700, []uint64{192}, 0},                 // 3 tiles fit, not 4
		{256, 1 << 20, []uint64{3072, 256}, 341},     // 12-byte elements and uint8 flags: steps of 1 (3072 = 256 * 12)
		{256, 1 << 20, []uint64{3072 / 4, 64}, 1364}, // steps of 4 (flags of 64 bytes)
		{4, 1 << 20, []uint64{0, 4096}, 256},         // no flags
		{16, 100, []uint64{4096}, 0},                 // no tile fits
		{0, 1 << 20, []uint64{12}, 87381},            // no alignment
	} {
		if got := WindowTiles(dev(c.align), c.limit, c.tileBytes...); got != c.want {
			t.Errorf("align %d, limit %d, tiles of %v bytes: %d tiles, want %d", c.align, c.limit, c.tileBytes, got, c.want)
		}
	}
	if got := OutWindowBytes(dev(256), 1<<32-1); got != 1<<32-256 {
		t.Errorf("OutWindowBytes(256, 2^32-1) = %d", got)
	}
	if got := OutWindowBytes(dev(4), 1<<32-1); got != 1<<32-16 {
		t.Errorf("OutWindowBytes(4, 2^32-1) = %d", got)
	}
}
