package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// benchSelect returns the timing of compaction (select_if) or split
// (partition_if) of n uint32 keeping x != 0. Inputs follow the CUB
// anchor's recipe: each element kept with probability keep, a kept one a
// random odd number, a dropped one 0 (with Go's PCG generator, not the
// anchor's mt19937: the same distribution, not the same numbers). Inputs
// under rotateBytes rotate over several buffer sets; the output of every
// set that ran is checked against a Go reference.
func benchSelect(split bool) func(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (benchRow, error) {
	return func(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (benchRow, error) {
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
			return benchRow{}, err
		}
		bytes := 4 * n
		nSets := setsFor(2 * bytes)
		sets := bufferSets{pool: cfg.pool}
		defer sets.release()
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
			for _, v := range in {
				if v == 0 {
					want = append(want, 0)
				}
			}
		}
		var inputs []compact.Buffers
		for range nSets {
			var b compact.Buffers
			for _, x := range []struct {
				r    *vk.Range
				size uint64
			}{{&b.Src, bytes}, {&b.Dst, bytes}, {&b.Result, compact.ResultSize}, {&b.Scratch, plan.ScratchSize()}} {
				if *x.r, err = sets.alloc(x.size); err != nil {
					return benchRow{}, err
				}
			}
			if err := vk.Upload(b.Src, in); err != nil {
				return benchRow{}, err
			}
			if err := poison(ctx, b.Dst); err != nil {
				return benchRow{}, err
			}
			inputs = append(inputs, b)
		}
		ms, phases, err := timeRuns(ctx, cfg, len(inputs), 4, func(r *pipeline.Recorder, set int, t *vk.Timer) { plan.RecordTimed(r, inputs[set], t) })
		if err != nil {
			return benchRow{}, err
		}
		if cfg.phases != nil {
			t := plan.Tuning()
			if t.Path == vkcompact.PathSinglePass {
				fmt.Fprintf(cfg.phases, "# %s n=%d keep=%.3f: single pass: clear %.5f, pass %.5f ms (medians); %d tiles of %d, workgroup %d, %d loads per lane, %d spins, tiles by %s\n",
					op, n, keep, median(phases[0]), median(phases[1]), t.Tiles, t.Tile, t.WorkgroupSize, t.LoadsPerLane, t.Spins, map[bool]string{true: "index", false: "counter"}[t.TilesByIndex])
			} else {
				fmt.Fprintf(cfg.phases, "# %s n=%d keep=%.3f: count %.5f, scan %.5f, move %.5f ms (medians); %d chunks of %d, %d loads per lane, %s writes\n",
					op, n, keep, median(phases[0]), median(phases[1]), median(phases[2]), t.Chunks, t.Chunk, t.LoadsPerLane, t.Write)
			}
		}
		for _, b := range inputs[:min(len(inputs), cfg.warmup+cfg.reps)] {
			res, err := compact.ReadResult(b.Result)
			if err != nil {
				return benchRow{}, err
			}
			if int(res.Kept) != kept || uint64(res.Total) != n {
				return benchRow{}, fmt.Errorf("%s kept %d of %d, want %d of %d", op, res.Kept, res.Total, kept, n)
			}
			got := make([]uint32, len(want))
			if err := vk.Download(b.Dst.Sub(0, 4*uint64(len(want))), got); err != nil {
				return benchRow{}, err
			}
			if !slices.Equal(got, want) {
				i := firstDiff(got, want)
				return benchRow{}, fmt.Errorf("%s output wrong at element %d: got %#x, want %#x", op, i, got[i], want[i])
			}
		}
		med := median(ms)
		return benchRow{Impl: "vkcompact", Op: op, N: n, KeepRatio: keep, MsMedian: med, GelemPerS: float64(n) / med / 1e6}, nil
	}
}
