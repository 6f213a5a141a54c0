package radix

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"reflect"

	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/vk"
)

// SortSegmentsSlice sorts keys within the segments offsets gives on the GPU
// and returns them: segment s is keys[offsets[s]:offsets[s+1]], and
// len(offsets) is the segment count plus one. Unlike a plan, it checks
// the offsets (non-decreasing, at most len(keys)) and, where
// s.MaxSegment is 0, sets it to the longest segment, so that the block
// path sorts where it can; a MaxSegment below the longest segment is
// refused (vk.ErrInvalid, naming the segment). K decides the key type, as in SortSlice;
// s.Values must be false (see SortSegmentPairsSlice). keys is not modified.
func SortSegmentsSlice[K Key](ctx *vk.Context, keys []K, offsets []uint32, s SegmentedSort) ([]K, error) {
	if s.Values {
		return nil, invalid("radix: a segmented sort of pairs takes its values: use SortSegmentPairsSlice")
	}
	out, _, err := sortSegments(ctx, keys, nil, offsets, s)
	return out, err
}

// SortSegmentPairsSlice is SortSegmentsSlice for keys with a uint32 value each,
// which moves with its key. s.Values is set.
func SortSegmentPairsSlice[K Key](ctx *vk.Context, keys []K, values, offsets []uint32, s SegmentedSort) ([]K, []uint32, error) {
	if len(values) != len(keys) {
		return nil, nil, invalid("radix: %d values for %d keys", len(values), len(keys))
	}
	s.Values = true
	return sortSegments(ctx, keys, values, offsets, s)
}

// CheckOffsets checks segment offsets for n keys on the CPU, as the
// slice functions and the command line do: at least one entry, none
// above n, none below the one before. It returns the longest segment.
func CheckOffsets(offsets []uint32, n uint64) (longest uint32, err error) {
	if len(offsets) == 0 {
		return 0, invalid("radix: no offsets: segments need segments+1 offsets (one, for no segments)")
	}
	if uint64(len(offsets)-1) > uint64(^uint32(0)-1) {
		return 0, invalid("radix: %d offsets: at most 2^32-1", len(offsets))
	}
	for i, o := range offsets {
		if uint64(o) > n {
			return 0, invalid("radix: offset %d is %d, past the %d keys", i, o, n)
		}
		if i > 0 && o < offsets[i-1] {
			return 0, invalid("radix: offset %d (%d) is below offset %d (%d): offsets must not decrease", i, o, i-1, offsets[i-1])
		}
		if i > 0 {
			longest = max(longest, o-offsets[i-1])
		}
	}
	return longest, nil
}

func sortSegments[K Key](ctx *vk.Context, keys []K, values, offsets []uint32, s SegmentedSort) ([]K, []uint32, error) {
	if _, ok := keyCode(s.Elem.Key); !ok {
		return nil, nil, invalid("radix: SegmentedSort.Elem.Key %v is not a sort key type: the key type must be u32, i32, f32 or u64", s.Elem.Key)
	}
	key, err := gotype.Key(reflect.TypeFor[K](), s.Elem.Key, "SegmentedSort.Elem.Key")
	if err != nil {
		return nil, nil, fmt.Errorf("radix: %w", err)
	}
	s.Elem.Key = key
	n := uint64(len(keys))
	longest, err := CheckOffsets(offsets, n)
	if err != nil {
		return nil, nil, err
	}
	if s.MaxSegment == 0 {
		s.MaxSegment = longest
	}
	if s.MaxSegment < longest {
		for i := 1; i < len(offsets); i++ {
			if m := offsets[i] - offsets[i-1]; m > s.MaxSegment {
				return nil, nil, invalid("radix: SegmentedSort.MaxSegment %d, but segment %d holds %d keys (the longest %d): raise MaxSegment, or leave it 0 to take the longest",
					s.MaxSegment, i-1, m, longest)
			}
		}
	}
	p, err := NewSegmentedPlan(ctx, n, uint32(len(offsets)-1), s)
	if err != nil {
		return nil, nil, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	io, err := uploadSlices(ctx, &bufs, keys, values, false)
	if err != nil {
		return nil, nil, err
	}
	b := SegmentedBuffers{Keys: io.keys, Values: io.vals, KeysOut: io.keysOut, ValuesOut: io.valsOut}
	if b.Offsets, err = bufs.New(ctx, 4*uint64(len(offsets))); err != nil {
		return nil, nil, err
	}
	if err := vk.Upload(b.Offsets, offsets); err != nil {
		return nil, nil, err
	}
	if err := p.Run(b); err != nil {
		return nil, nil, err
	}
	return downloadSlices[K](io, len(keys), values != nil)
}
