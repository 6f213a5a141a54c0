package radix

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
)

// TestOneGroupShape holds the one-workgroup choice to its rule on every
// fake device, without a GPU: never on a GPU; on a CPU device for PathAuto
// sorts of 1 key up to the block path's capacity, out of place, with every
// shape option left to the tuning; its shape the segmented sort's for a
// segment of n keys.
func TestOneGroupShape(t *testing.T) {
	for _, info := range fakedev.All {
		for _, s := range []Sort{{}, {Values: true}, {Key: vkcompact.Uint64}, {Key: vkcompact.Float32, Descending: true, BeginBit: 2, EndBit: 30}} {
			capacity := SegmentCapacity(info, SegmentedSort{Key: s.Key, Values: s.Values})
			for _, n := range []uint64{0, 1, 100, uint64(capacity), uint64(capacity) + 1, 1 << 20} {
				spec, ok := oneGroupShape(info, n, s)
				want := info.CPU() && n >= 1 && n <= uint64(capacity)
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
