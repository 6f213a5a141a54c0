package reduce

import (
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

var allTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}

// TestTuneReduceShape checks the reduction's tuning on every fake device
// at sizes from none to the most: every element in exactly one chunk
// (whole steps, the last chunk holding some), no walk past
// pipeline.LoopBudget steps, loads per lane as the table says (on a GPU
// 1 up to 2^17 elements, 2 up to 2^19, else 4; 4 on a CPU device),
// windows exactly where the elements pass one binding, each a whole
// number of chunks at an aligned offset, and the scratch one binding.
func TestTuneReduceShape(t *testing.T) {
	for _, dev := range fakedev.All {
		for _, typ := range allTypes {
			size := uint64(typ.Size())
			for _, n := range []uint64{0, 1, 1000, 1 << 16, 1<<17 + 1, 1 << 20, 1 << 24, 1 << 28, MaxElements} {
				_, tn, err := tune(dev, n, Reduce{Elem: vkcompact.Plain(typ)}, 0)
				if err != nil {
					t.Errorf("%s %v n=%d: %v", dev.Name, typ, n, err)
					continue
				}
				step := uint64(tn.wg) * uint64(tn.loads) * (16 / size)
				chunk, groups := uint64(tn.chunk), uint64(tn.groups)
				switch {
				case chunk == 0 || chunk%step != 0:
					t.Errorf("%s %v n=%d: chunk %d is not a whole number of steps of %d", dev.Name, typ, n, chunk, step)
				case chunk/step > pipeline.LoopBudget:
					t.Errorf("%s %v n=%d: %d steps a chunk, past the loop budget", dev.Name, typ, n, chunk/step)
				case groups*chunk < n || n > 0 && (groups-1)*chunk >= n || n == 0 && groups != 1:
					t.Errorf("%s %v n=%d: %d chunks of %d", dev.Name, typ, n, groups, chunk)
				case tn.scratch > uint64(dev.MaxStorageBufferRange):
					t.Errorf("%s %v n=%d: scratch %d past one binding", dev.Name, typ, n, tn.scratch)
				}
				want := uint32(vkcompact.MaxLoadsPerLane)
				if !dev.CPU() && n <= 1<<17 {
					want = 1
				} else if !dev.CPU() && n <= 1<<19 {
					want = 2
				}
				if tn.loads != want {
					t.Errorf("%s %v n=%d: %d loads per lane, want %d", dev.Name, typ, n, tn.loads, want)
				}
				past := n*size > uint64(dev.MaxStorageBufferRange)
				if past != (tn.windowGroups != 0) {
					t.Errorf("%s %v n=%d: %d workgroups a window, past one binding %v", dev.Name, typ, n, tn.windowGroups, past)
				}
				if w := uint64(tn.windowGroups) * chunk * size; past && (w > uint64(dev.MaxStorageBufferRange) || w%dev.MinStorageBufferOffsetAlignment != 0) {
					t.Errorf("%s %v n=%d: windows of %d bytes", dev.Name, typ, n, w)
				}
			}
		}
	}
}

// TestTuneReduceH100 pins the H100's choices at the benchmark's sizes:
// workgroups of 256 and two workgroups' worth of resident subgroups
// (2112 workgroups), fewer where the steps run out.
func TestTuneReduceH100(t *testing.T) {
	for _, c := range []struct {
		n                    uint64
		loads, groups, chunk uint32
	}{
		{1 << 16, 1, 64, 1024},
		{1 << 20, 4, 256, 4096},
		{1 << 24, 4, 2048, 8192},
		{1 << 28, 4, 2048, 131072},
	} {
		_, tn, err := tune(fakedev.H100, c.n, Reduce{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if tn.wg != 256 || tn.loads != c.loads || tn.groups != c.groups || tn.chunk != c.chunk {
			t.Errorf("n=%d: workgroups of %d, %d loads, %d workgroups of %d elements; want 256, %d, %d of %d", c.n, tn.wg, tn.loads, tn.groups, tn.chunk, c.loads, c.groups, c.chunk)
		}
	}
}

// TestTuneTiles checks the tiled plans' tuning on every fake device:
// workgroups of 256 on a GPU and 64 on a CPU device (whole subgroups),
// tiles whose shared memory fits the device, the tiles covering n, and
// on the reduction by key the look-back's choices: tiles by workgroup
// index on a GPU, by the counter on a CPU device, the status words reset
// by the pass up to 1024 tiles.
func TestTuneTiles(t *testing.T) {
	for _, dev := range fakedev.All {
		for _, typ := range allTypes {
			for _, n := range []uint64{0, 1, 5000, 1 << 20, 1 << 24} {
				size := uint64(typ.Size())
				tt, err := tuneTiles(dev, n, size, Options{})
				if err != nil {
					t.Errorf("%s %v n=%d: %v", dev.Name, typ, n, err)
					continue
				}
				wantWG := uint32(256)
				if dev.CPU() {
					wantWG = 64
				}
				if tt.wg != wantWG || tt.wg%dev.MaxSubgroupSize != 0 {
					t.Errorf("%s: workgroups of %d", dev.Name, tt.wg)
				}
				if sh := tileShared(tt.wg, tt.tile); sh > uint64(dev.MaxSharedMemory) {
					t.Errorf("%s %v: %d bytes of shared memory, the device has %d", dev.Name, typ, sh, dev.MaxSharedMemory)
				}
				if tt.tile != tt.wg*tt.loads*uint32(16/size) || uint64(tt.ntiles)*uint64(tt.tile) < n || tt.ntiles > 0 && uint64(tt.ntiles-1)*uint64(tt.tile) >= n {
					t.Errorf("%s %v n=%d: %d tiles of %d", dev.Name, typ, n, tt.ntiles, tt.tile)
				}
				if typ == vkcompact.Uint64 || n*size > uint64(dev.MaxStorageBufferRange) {
					continue
				}
				p, err := tuneByKey(dev, n, ByKey{Elem: vkcompact.Plain(typ)})
				if err != nil {
					t.Errorf("%s %v n=%d: by key: %v", dev.Name, typ, n, err)
					continue
				}
				tn := p.Tuning()
				if tn.TilesByIndex == dev.CPU() || tn.SelfReset != (tn.Tiles <= 1024) || tn.Tiles < 1 {
					t.Errorf("%s n=%d: by key: %d tiles, by index %v, self-reset %v", dev.Name, n, tn.Tiles, tn.TilesByIndex, tn.SelfReset)
				}
			}
		}
	}
}

// TestTuneRefusals checks that what a plan cannot do is refused naming
// the reason, on every fake device: a segmented reduction and a
// reduction by key past one binding (they have no windows), the ops and
// paths they do not take, and options that do not apply.
func TestTuneRefusals(t *testing.T) {
	for _, dev := range fakedev.All {
		past := uint64(dev.MaxStorageBufferRange)/4 + 1
		for _, c := range []struct {
			what string
			err  error
			msg  string
		}{
			{"segmented past one binding", segErr(dev, past, 1, Segmented{}), "exceed one binding"},
			{"segmented offsets past one binding", segErr(dev, 10, uint32(past), Segmented{}), "bytes of offsets exceed one binding"},
			{"segmented argmin", segErr(dev, 10, 1, Segmented{Op: ArgMin}), "the op must be sum, min or max"},
			{"segmented path", segErr(dev, 10, 1, Segmented{Options: Options{Path: vkcompact.PathSinglePass}}), "it has one path"},
			{"segmented workgroups", segErr(dev, 10, 1, Segmented{Options: Options{Workgroups: 4}}), "do not apply"},
			{"by key past one binding", byKeyErr(dev, past, ByKey{}), "exceed one binding"},
			{"by key three phases", byKeyErr(dev, 10, ByKey{Options: Options{Path: vkcompact.PathThreePhase}}), "single pass only"},
			{"by key u64 values", byKeyErr(dev, 10, ByKey{Value: vkcompact.Uint64}), "the values' type must be u32, i32 or f32"},
			{"by key i64 keys", byKeyErr(dev, 10, ByKey{Elem: vkcompact.Plain(vkcompact.Int64)}), "must be u32, i32, f32 or u64"},
			{"by key argmax", byKeyErr(dev, 10, ByKey{Op: ArgMax}), "the op must be sum, min or max"},
			{"reduce spins", reduceErr(dev, 10, Reduce{Options: Options{Spins: 3}}), "has no look-back"},
			{"reduce group size", reduceErr(dev, 10, Reduce{Options: Options{GroupSize: 32}}), "writes no dispatch arguments"},
			{"segmented group size", segErr(dev, 10, 1, Segmented{Options: Options{GroupSize: 32}}), "do not apply"},
			{"reduce f64", reduceErr(dev, 10, Reduce{Elem: vkcompact.Plain(vkcompact.Float64)}), "must be u32, i32, f32 or u64"},
			{"reduce struct", reduceErr(dev, 10, Reduce{Elem: vkcompact.Struct(8, 4, vkcompact.Uint32)}), "not structs"},
			{"reduce op", reduceErr(dev, 10, Reduce{Op: ArgMax + 1}), "unknown operation"},
			{"reduce workgroup size", reduceErr(dev, 10, Reduce{Options: Options{WorkgroupSize: dev.MaxSubgroupSize + 1}}), "want a multiple of the largest subgroup size"},
			{"reduce loads", reduceErr(dev, 10, Reduce{Options: Options{LoadsPerLane: 5}}), "loads per lane: at most 4"},
		} {
			if c.err == nil || !strings.Contains(c.err.Error(), c.msg) {
				t.Errorf("%s: %s: got %v, want an error naming %q", dev.Name, c.what, c.err, c.msg)
			}
		}
	}
}

func segErr(dev vk.DeviceInfo, n uint64, segments uint32, s Segmented) error {
	_, _, err := tuneSegmented(dev, n, segments, s)
	return err
}

func byKeyErr(dev vk.DeviceInfo, n uint64, b ByKey) error {
	_, err := tuneByKey(dev, n, b)
	return err
}

func reduceErr(dev vk.DeviceInfo, n uint64, r Reduce) error {
	_, _, err := tune(dev, n, r, 0)
	return err
}
