package radix

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/pipeline"
)

// TestOneGroupShape holds the one-workgroup choice to its rule on every
// fake device, without a GPU: never on a GPU; on a CPU device for PathAuto
// sorts of 1 key up to the block path's capacity (on SwiftShader up to
// 2048 keys, past which the lane-serial sort is faster), out of place, with every
// shape option left to the tuning; its shape the segmented sort's for a
// segment of n keys.
func TestOneGroupShape(t *testing.T) {
	for _, info := range fakedev.All {
		for _, s := range []Sort{{}, {Values: true}, {Elem: vkcompact.Plain(vkcompact.Uint64)}, {Elem: vkcompact.Plain(vkcompact.Float32), Descending: true, BeginBit: 2, EndBit: 30}} {
			capacity := SegmentCapacity(info, SegmentedSort{Elem: vkcompact.Plain(s.Elem.Key), Values: s.Values})
			for _, n := range []uint64{0, 1, 100, uint64(capacity), uint64(capacity) + 1, 1 << 20} {
				spec, ok := oneGroupShape(info, n, s)
				want := info.CPU() && n >= 1 && n <= min(uint64(capacity), tuningFor(info).oneGroupKeys)
				if ok != want {
					t.Fatalf("%s n=%d %+v: one workgroup %v, want %v", info.Name, n, s, ok, want)
				}
				if ok && (spec.Segs != 1 || spec.WorkgroupSize*spec.KPL < uint32(n) || spec.RadixBits != segDigitBits || spec.Pairs != s.Values || spec.Descending != s.Descending) {
					t.Fatalf("%s n=%d %+v: shape %+v", info.Name, n, s, spec)
				}
				if !want {
					continue
				}
				for _, o := range []Options{{Path: vkcompact.PathThreePhase}, {Path: vkcompact.PathSinglePass}, {DigitBits: 4}, {KeysPerLane: 4},
					{WorkgroupSize: 64}, {Processors: 2}, {Counts: CountsSeparate}, {Tails: TailsWrite}} {
					forced := s
					forced.Options = o
					if _, ok := oneGroupShape(info, n, forced); ok {
						t.Fatalf("%s n=%d %+v: one workgroup despite %+v", info.Name, n, s, o)
					}
				}
				inPlace := s
				inPlace.InPlace = true
				if _, ok := oneGroupShape(info, n, inPlace); ok {
					t.Fatalf("%s n=%d %+v: one workgroup in place", info.Name, n, s)
				}
			}
		}
	}
}

// TestLanesShape holds the lane-serial choice to its rule on every fake
// device, without a GPU: never on a GPU; on a CPU device for PathAuto
// sorts of every key type past the one-workgroup sort up to 2^24 keys
// that fit one binding, in place or not,
// with every shape option left to the tuning; its lanes covering the
// keys, its workgroups at least minProcs where each lane keeps
// minLaneKeys keys, its loops within pipeline.LoopBudget, its counters
// within shared memory, 8-bit digits at most shared out evenly.
func TestLanesShape(t *testing.T) {
	for _, info := range fakedev.All {
		for _, s := range []Sort{{}, {Values: true}, {Elem: vkcompact.Plain(vkcompact.Uint64)}, {Elem: vkcompact.Plain(vkcompact.Int32), InPlace: true},
			{Elem: vkcompact.Plain(vkcompact.Float32), Descending: true, BeginBit: 2, EndBit: 30}, {BeginBit: 5, EndBit: 5}} {
			capacity := min(uint64(SegmentCapacity(info, SegmentedSort{Elem: vkcompact.Plain(s.Elem.Key), Values: s.Values})), tuningFor(info).oneGroupKeys)
			bind := uint64(info.MaxStorageBufferRange) / uint64(s.Elem.Key.OrUint32().Size())
			for _, n := range []uint64{0, 1, 100, capacity, capacity + 1, 65536, 1<<20 + 3, 1 << 24, 1<<24 + 1, bind, bind + 1} {
				sh, ok := lanesShapeFor(info, n, s)
				_, grouped := oneGroupShape(info, n, s)
				want := info.CPU() && n >= 1 && n <= 1<<24 && n <= bind && (s.EndBit == 0 || s.BeginBit != s.EndBit)
				if ok != want {
					t.Fatalf("%s n=%d %+v: lane-serial %v, want %v", info.Name, n, s, ok, want)
				}
				if want && grouped != (!s.InPlace && n <= capacity) {
					t.Fatalf("%s n=%d %+v: one workgroup %v", info.Name, n, s, grouped)
				}
				if !ok {
					continue
				}
				buckets := uint64(1) << sh.d.wide
				iters := (buckets+uint64(sh.wg)-1)/uint64(sh.wg)*uint64(sh.procs+sh.wg) + 2*buckets + uint64(sh.laneKeys)
				begin, end := s.BeginBit, s.EndBit
				if end == 0 {
					end = 8 * s.Elem.Key.OrUint32().Size()
				}
				fewest := min(uint64(cpuTuning.lanes.minProcs), (n+uint64(sh.wg)*uint64(cpuTuning.lanes.minLaneKeys)-1)/(uint64(sh.wg)*uint64(cpuTuning.lanes.minLaneKeys)))
				if uint64(sh.lanes())*uint64(sh.laneKeys) < n || uint64(sh.procs) < fewest || sh.wg%info.MaxSubgroupSize != 0 ||
					iters > pipeline.LoopBudget || 4*(buckets*uint64(sh.wg)+buckets) > uint64(info.MaxSharedMemory) ||
					sh.d.wide > 8 || sh.d != splitDigits(begin, end, 8) {
					t.Fatalf("%s n=%d %+v: shape %+v (%d loop iterations)", info.Name, n, s, sh, iters)
				}
				for _, o := range []Options{{Path: vkcompact.PathThreePhase}, {Path: vkcompact.PathSinglePass}, {DigitBits: 4}, {KeysPerLane: 4},
					{WorkgroupSize: 64}, {Processors: 2}, {Counts: CountsSeparate}, {Tails: TailsWrite}} {
					forced := s
					forced.Options = o
					if _, ok := lanesShapeFor(info, n, forced); ok {
						t.Fatalf("%s n=%d %+v: lane-serial despite %+v", info.Name, n, s, o)
					}
				}
			}
		}
	}
	// A device of a smaller loop budget's worth: the keys a lane double
	// where the table's would take too many workgroups' counts.
	info := fakedev.Lavapipe8
	info.MaxStorageBufferRange = 1 << 31
	sh, ok := lanesShapeFor(info, 1<<24, Sort{})
	if !ok || sh.laneKeys != 1<<24/(sh.procs*sh.wg) || sh.laneKeys < cpuTuning.lanes.laneKeys {
		t.Fatalf("2^24 keys: %+v, %v", sh, ok)
	}
}
