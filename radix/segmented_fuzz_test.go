package radix_test

import (
	"github.com/vkcompact/vkcompact"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/radix"
)

// FuzzSegmentedSort runs random segmented sorts, (seed, segments, most,
// type, mode), against the per-segment reference: segment lengths from 0
// to most (a third of them empty), keys before the first offset and past
// the last, keys alone or pairs, ascending or descending, the block path
// (with the longest segment promised, or a shorter promise, which leaves
// the longer segments unsorted) or the general path.
func FuzzSegmentedSort(f *testing.F) {
	f.Add(uint64(1), uint16(0), uint16(0), uint8(0), uint8(0))
	f.Add(uint64(2), uint16(50), uint16(300), uint8(1), uint8(3))
	f.Add(uint64(3), uint16(3), uint16(5000), uint8(3), uint8(4))
	f.Add(uint64(4), uint16(200), uint16(2), uint8(2), uint8(9))
	f.Add(uint64(5), uint16(20), uint16(1100), uint8(0), uint8(16))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, seed uint64, segments, most uint16, typ, mode uint8) {
		rng := rand.New(rand.NewPCG(seed, uint64(segments)))
		segments %= 512
		most %= 6000
		lengths := randomLengths(rng, int(segments), int(most))
		before, after := 0, 0
		if mode&8 != 0 {
			before, after = rng.IntN(50), rng.IntN(50)
		}
		offsets := offsetsOf(uint32(before), lengths...)
		kt := keyTypes[int(typ)%len(keyTypes)]
		s := radix.SegmentedSort{Elem: vkcompact.Plain(kt), Values: mode&1 != 0, Descending: mode&2 != 0, General: mode&4 != 0}
		var longest int
		for _, l := range lengths {
			longest = max(longest, l)
		}
		s.MaxSegment = uint32(longest)
		if mode&16 != 0 && longest > 1 {
			s.MaxSegment = uint32(1 + rng.IntN(longest-1)) // a broken promise
		}
		runSegmented(t, ctx, segCase{sort: s, keys: segKeys(rng, kt, before+sum(lengths)+after), offsets: offsets})
	})
}
