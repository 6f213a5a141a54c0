package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// benchSegment is the anchor's segment length for segsort_keys_u32: CUB's
// DeviceSegmentedRadixSort::SortKeys over segments of 1024 keys.
const benchSegment = 1024

// benchSegsort times the ascending segmented sort of n random uint32 keys
// in segments of benchSegment keys (offsets[i] = min(n, i*1024), the last
// segment shorter), as the anchor's row does, with the caller's promise
// of the longest segment (so the block path where it fits), and checks
// every set's output against a Go sort of each segment. The row's
// keep_ratio column carries the segment length.
func benchSegsort(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
	const op = "segsort_keys_u32"
	offsets := make([]uint32, (n+benchSegment-1)/benchSegment+1)
	for i := range offsets {
		offsets[i] = uint32(min(uint64(i)*benchSegment, n))
	}
	plan, err := radix.NewSegmentedPlan(ctx, n, uint32(len(offsets)-1),
		radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Uint32), MaxSegment: uint32(min(n, benchSegment))})
	if err != nil {
		return Row{}, err
	}
	rng := rand.New(rand.NewPCG(46, n))
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = rng.Uint32()
	}
	want := slices.Clone(keys)
	for s := 0; s+1 < len(offsets); s++ {
		slices.Sort(want[offsets[s]:offsets[s+1]])
	}
	return setBench[radix.SegmentedBuffers]{
		op: op, n: n, keep: benchSegment, sets: setsFor(8 * n), stamps: 2,
		prepare: func(s *bufferSets, b *radix.SegmentedBuffers) error {
			err := s.inOut(ctx, keys, &b.Keys, &b.KeysOut, bufSize{&b.Offsets, 4 * uint64(len(offsets))}, bufSize{&b.Scratch, plan.ScratchSize()})
			if err == nil {
				b.Offsets = b.Offsets.Sub(0, 4*uint64(len(offsets)))
				err = vk.Upload(b.Offsets, offsets)
			}
			if plan.ScratchSize() == 0 {
				b.Scratch = vk.Range{}
			}
			return err
		},
		record: func(r *pipeline.Recorder, b radix.SegmentedBuffers, t *vk.Timer) {
			t.Stamp(r.CommandBuffer(), 0)
			plan.Record(r, b)
			if r.Err() == nil {
				t.Stamp(r.CommandBuffer(), 1)
			}
		},
		check: func(b *radix.SegmentedBuffers) error { return checkWords(b.KeysOut, want, op+" keys") },
		printPhases: func(w io.Writer, _ [][]float64) {
			tu := plan.Tuning()
			if tu.Block {
				fmt.Fprintf(w, "# %s n=%d: block path: a workgroup of %d per segment, %d keys per invocation (capacity %d)\n", op, n, tu.WorkgroupSize, tu.KeysPerLane, tu.Capacity)
			} else {
				fmt.Fprintf(w, "# %s n=%d: general path: two radix sorts, the second of %d bits\n", op, n, tu.HeadBits)
			}
		},
	}.run(ctx, cfg)
}
