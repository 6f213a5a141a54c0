package bench

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/vk"
)

// benchSelect returns the timing of compaction (select_if) or split
// (partition_if) of n uint32 keeping x != 0 (timeSelect).
func benchSelect(split bool) benchOp {
	return func(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (Row, error) {
		return timeSelect(ctx, n, keep, split, cfg)
	}
}

// timeSelect times compaction, or with split the split, of n uint32
// keeping x != 0. Inputs follow the CUB anchor's recipe: each element kept
// with probability keep, a kept one a random odd number, a dropped one 0
// (with Go's PCG generator, not the anchor's mt19937: the same
// distribution, not the same numbers). Inputs under rotateBytes rotate
// over several buffer sets; the output of every set that ran is checked
// against a Go reference.
func timeSelect(ctx *vk.Context, n uint64, keep float64, split bool, cfg benchConfig) (Row, error) {
	op := "select_if"
	if split {
		op = "partition_if"
	}
	// partition_if reverses the rejected elements by default, as CUB's
	// DevicePartition::If does (they are all zero here, so the check
	// below holds either way).
	sel := compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), Split: split,
		ReverseRejected: split && cfg.reversed, Options: cfg.selectOpts}
	plan, err := compact.NewPlan(ctx, n, sel)
	if err != nil {
		return Row{}, err
	}
	rng := rand.New(rand.NewPCG(42, n^uint64(keep*1e6)))
	in := make([]uint32, n)
	var want []uint32
	for i := range in {
		if rng.Float64() < keep {
			in[i] = rng.Uint32() | 1
			want = append(want, in[i])
		}
	}
	kept := len(want)
	if split {
		want = append(want, make([]uint32, int(n)-kept)...) // the rejected: zeros
	}
	return setBench[compact.Buffers]{
		op: op, n: n, keep: keep, sets: setsFor(8 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *compact.Buffers) error {
			return s.inOut(ctx, in, &b.Src, &b.Dst, bufSize{&b.Result, compact.ResultSize}, bufSize{&b.Scratch, plan.ScratchSize()})
		},
		record: plan.RecordTimed,
		check: func(b *compact.Buffers) error {
			res, err := compact.ReadResult(b.Result)
			if err != nil {
				return err
			}
			if int(res.Kept) != kept || uint64(res.Total) != n {
				return fmt.Errorf("%s kept %d of %d, want %d of %d", op, res.Kept, res.Total, kept, n)
			}
			return checkWords(b.Dst, want, op+" output")
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			printSelectPhases(w, fmt.Sprintf("%s n=%d keep=%.3f", op, n, keep), plan.Tuning(), phases)
		},
	}.run(ctx, cfg)
}

// printSelectPhases prints the median time of each phase of a compaction
// or split, what, and its tuning (bench -phases).
func printSelectPhases(w io.Writer, what string, t compact.Tuning, phases [][]float64) {
	if t.Path == vkcompact.PathSinglePass {
		fmt.Fprintf(w, "# %s: single pass: clear %.5f, pass %.5f ms (medians); %d tiles of %d, workgroup %d, %d loads per lane, %d spins, tiles by %s\n",
			what, median(phases[0]), median(phases[1]), t.Tiles, t.Tile, t.WorkgroupSize, t.LoadsPerLane, t.Spins, map[bool]string{true: "index", false: "counter"}[t.TilesByIndex])
		return
	}
	fmt.Fprintf(w, "# %s: count %.5f, scan %.5f, move %.5f ms (medians); %d chunks of %d, %d loads per lane, %s writes\n",
		what, median(phases[0]), median(phases[1]), median(phases[2]), t.Chunks, t.Chunk, t.LoadsPerLane, t.Write)
}
