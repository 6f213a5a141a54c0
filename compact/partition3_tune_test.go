package compact

import (
	"errors"
	"os"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// TestPartition3KernelBlocks holds the partition's Go push and
// specialization constants and bindings to its GLSL.
func TestPartition3KernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("partition3_"), partition3Kernel.Interface(), partition3ResetKernel.Interface(), partition3WideKernel.Interface())
}

// TestPartition3Tune checks the partition's tuning without a device, on
// every fake device: the table's tiles (small ones on small GPU inputs),
// tiles within shared memory and the 15-bit bound, windows past one
// binding, and the refusals.
func TestPartition3Tune(t *testing.T) {
	anchor := Partition3{First: KeepIf(Less, Uint(0x55555555)), Second: KeepIf(Less, Uint(0xaaaaaaaa))}
	for _, dev := range fakedev.All {
		for _, c := range []struct {
			what      string
			part      Partition3
			n         uint64
			wg, loads uint32 // 0: not checked
			windows   bool
		}{
			{"small input", anchor, 1 << 16, map[bool]uint32{false: 512, true: 256}[dev.CPU()], map[bool]uint32{false: 1, true: 4}[dev.CPU()], false},
			{"large input", anchor, 1 << 24, 256, 4, false},
			{"no elements", anchor, 0, 0, 0, false},
			{"64-byte structs", Partition3{Elem: vkcompact.Struct(64, 4, vkcompact.Float32), First: KeepNonZero(), Second: KeepNonZero()}, 1 << 20, 256, 0, false},
			{"past one binding", anchor, uint64(dev.MaxStorageBufferRange)/4 + 1, 256, 4, true},
		} {
			p, err := tunePartition3(dev, c.n, c.part, partition3Limits{})
			if err != nil {
				t.Errorf("%s: %s: %v", dev.Name, c.what, err)
				continue
			}
			tu := p.Tuning()
			if c.wg != 0 && (tu.WorkgroupSize != c.wg || (c.loads != 0 && tu.LoadsPerLane != c.loads)) {
				t.Errorf("%s: %s: workgroup %d x %d loads, want %d x %d", dev.Name, c.what, tu.WorkgroupSize, tu.LoadsPerLane, c.wg, c.loads)
			}
			q := &p.req
			shared := 4 * (uint64(tu.Tile*q.words) + 2*uint64(tu.LoadsPerLane)*uint64(tu.WorkgroupSize/dev.MinSubgroupSize) + 8)
			if tu.Tile > maxPartition3Tile || shared > uint64(dev.MaxSharedMemory) || tu.Tiles == 0 || uint64(tu.Tiles)*uint64(tu.Tile) < c.n {
				t.Errorf("%s: %s: tiles %d of %d elements, %d bytes of shared memory (the device has %d)", dev.Name, c.what, tu.Tiles, tu.Tile, shared, dev.MaxSharedMemory)
			}
			if (tu.WindowTiles > 0) != c.windows {
				t.Errorf("%s: %s: %d tiles per window, want windows %v", dev.Name, c.what, tu.WindowTiles, c.windows)
			}
			if tu.Spins != map[bool]uint32{false: 64, true: 0}[dev.CPU()] || tu.TilesByIndex != (!dev.CPU() && tu.Tiles <= 1024) ||
				tu.SelfReset != (tu.Tiles <= 1024 && !c.windows) {
				t.Errorf("%s: %s: spins %d, tiles by index %v, self-reset %v", dev.Name, c.what, tu.Spins, tu.TilesByIndex, tu.SelfReset)
			}
		}
		for _, c := range []struct {
			what string
			part Partition3
			n    uint64
		}{
			{"flagged first", Partition3{First: KeepFlagged(4), Second: KeepNonZero()}, 10},
			{"flagged second", Partition3{First: KeepNonZero(), Second: KeepFlagged(1)}, 10},
			{"unknown op", Partition3{First: KeepNonZero(), Second: Keep{Op: 42}}, 10},
			{"second constant out of range", Partition3{First: KeepNonZero(), Second: KeepIf(Less, Int(-1))}, 10},
			{"first mask on floats", Partition3{Elem: vkcompact.Plain(vkcompact.Float64), First: KeepMask(1), Second: KeepNonZero()}, 10},
			{"too many elements", anchor, MaxPartition3Elements + 1},
			{"workgroup 1024 x 4 loads: past shared memory or the workgroup limit", Partition3{First: KeepNonZero(), Second: KeepNonZero(), Options: Options{WorkgroupSize: 1024, LoadsPerLane: 4}}, 10},
			{"past four output windows", Partition3{Elem: vkcompact.Plain(vkcompact.Uint64), First: KeepNonZero(), Second: KeepNonZero()}, uint64(dev.MaxStorageBufferRange)/2 + 1},
		} {
			if _, err := tunePartition3(dev, c.n, c.part, partition3Limits{}); !errors.Is(err, vk.ErrInvalid) {
				t.Errorf("%s: %s: %v, want ErrInvalid", dev.Name, c.what, err)
			}
		}
	}
}
