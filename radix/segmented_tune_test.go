package radix

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSegmentedKernelBlocks holds the segmented sort's kernels' Go
// structs to their GLSL, as TestKernelBlocks does the sort's.
func TestSegmentedKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("segsort_"), segBlockKernel.Interface(), segHeadsKernel.Interface(), segLongestKernel.Interface())
}

// TestSegmentedTuning checks the segmented sort's path and block shape
// on the fake devices without running on them: a pure function of the
// device's information and the request.
func TestSegmentedTuning(t *testing.T) {
	u32, pairs, u64pairs := SegmentedSort{}, SegmentedSort{Values: true}, SegmentedSort{Elem: vkcompact.Plain(vkcompact.Uint64), Values: true}
	for _, c := range []struct {
		info vk.DeviceInfo
		s    SegmentedSort
		max  uint32
		want string
	}{
		{h100, u32, 1024, "block wg=64 kpl=16 cap=1024"},
		{h100, u32, 1, "block wg=64 kpl=16 cap=1024 segs=256 bits=8"},
		{h100, u32, 100, "block wg=64 kpl=16 cap=1024 segs=10 bits=4"},
		{h100, u32, 256, "block wg=64 kpl=16 cap=1024 segs=4 bits=2"},
		{h100, u32, 257, "block wg=32 kpl=9 cap=288"},
		{h100, u64pairs, 16, "block wg=64 kpl=16 cap=1024 segs=64 bits=6"},
		{h100, u32, 2048, "block wg=64 kpl=32 cap=2048"},
		{h100, u32, 4096, "block wg=128 kpl=32 cap=4096"},
		{h100, pairs, 4096, "block wg=128 kpl=32 cap=4096"},
		{h100, u32, 8192, "block wg=256 kpl=32 cap=8192"},
		{h100, pairs, 32768, "general"},
		{h100, u32, 32768, "general"},
		{h100, u64pairs, 2048, "block wg=64 kpl=32 cap=2048"},
		{h100, u32, 0, "auto wg=64 kpl=16"},
		{lavapipe8, u32, 1024, "block wg=64 kpl=16 cap=1024"},
		{lavapipe4, u32, 30, "block wg=64 kpl=16 cap=1024 segs=34 bits=6"},
		{lavapipe16, pairs, 1024, "block wg=64 kpl=16 cap=1024"},
		{swiftshader, u32, 1024, "block wg=64 kpl=16 cap=1024"},
		{swiftshader, u64pairs, 2048, "block wg=64 kpl=32 cap=2048"},
		{amdLike, u32, 1024, "block wg=64 kpl=16 cap=1024"},
	} {
		c.s.MaxSegment = c.max
		cfg, err := tuneSegmented(c.info, 1<<20, 1024, c.s)
		if err != nil {
			t.Errorf("%s %+v: %v", c.info.Name, c.s, err)
			continue
		}
		got := "general"
		if cfg.auto {
			got = fmt.Sprintf("auto wg=%d kpl=%d", cfg.wg, cfg.kpl)
		}
		if cfg.block {
			got = fmt.Sprintf("block wg=%d kpl=%d cap=%d", cfg.wg, cfg.kpl, cfg.wg*cfg.kpl)
			if cfg.segs > 1 {
				got += fmt.Sprintf(" segs=%d bits=%d", cfg.segs, cfg.segBits)
			}
			if need := segBlockShared(c.info, cfg.wg, cfg.kpl, segStageWords(c.s), cfg.segs); need > c.info.MaxSharedMemory {
				t.Errorf("%s %+v: %d bytes of shared memory, the device has %d", c.info.Name, c.s, need, c.info.MaxSharedMemory)
			}
		}
		if got != c.want {
			t.Errorf("%s %+v: %s, want %s", c.info.Name, c.s, got, c.want)
		}
		if capacity := SegmentCapacity(c.info, c.s); (c.max > 0 && c.max <= capacity) != cfg.block || cfg.auto != (c.max == 0) {
			t.Errorf("%s %+v: capacity %d, block path %v", c.info.Name, c.s, capacity, cfg.block)
		}
	}
	for _, c := range []struct {
		info vk.DeviceInfo
		s    SegmentedSort
		want uint32
	}{
		{h100, u32, 8192}, {h100, pairs, 4864}, {h100, u64pairs, 3584},
		{lavapipe8, u32, 5632}, {swiftshader, u32, 5632}, {swiftshader, u64pairs, 2176},
	} {
		if got := SegmentCapacity(c.info, c.s); got != c.want {
			t.Errorf("%s %+v: capacity %d, want %d", c.info.Name, c.s, got, c.want)
		}
	}
	for _, c := range []struct {
		n        uint64
		segments uint32
		s        SegmentedSort
		want     string
	}{
		{10, 1, SegmentedSort{Elem: vkcompact.Plain(vkcompact.Float64)}, "key type"},
		{10, 1, SegmentedSort{BeginBit: 5, EndBit: 4}, "bit range"},
		{1 << 31, 1, SegmentedSort{}, "one binding"},
		{10, 1 << 31, SegmentedSort{}, "offsets exceed"},
	} {
		_, err := tuneSegmented(swiftshader, c.n, c.segments, c.s)
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d keys, %d segments, %+v: got %v, want ErrInvalid naming %q", c.n, c.segments, c.s, err, c.want)
		}
	}
}
