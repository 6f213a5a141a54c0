package runs_test

import (
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// TestFrameLoop records the particle grid's pattern into one command
// buffer: a compaction whose kept count feeds the encoding's GPU count,
// three frames over new data, one scratch shared by every Record, on both
// paths. Each frame's keys, lengths and count are checked against Go.
func TestFrameLoop(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	const n, frames = 3000, 3
	for _, path := range paths {
		if vktest.Short() && path != vkcompact.PathSinglePass {
			continue // short: the path a GPU takes
		}
		enc, err := runs.NewPlan(ctx, n, runs.Encoding{Options: compact.Options{Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		alive, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepNonZero(), Options: compact.Options{Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		scratch := vktest.NewPoisoned(t, ctx, max(enc.ScratchSize(), alive.ScratchSize()))
		type frame struct {
			in, keys, lengths, block, cells, aliveBlock *vk.Buffer
			wantKeys, wantLens                          []uint32
		}
		fs := make([]frame, frames)
		for f := range fs {
			// Sorted cells with dead particles (cell 0) among them: the
			// compaction keeps the live ones, still sorted.
			in := make([]uint32, n)
			v := uint32(1)
			for i := range in {
				if rng.IntN(5) == 0 {
					v += 1 + rng.Uint32N(3)
				}
				if rng.IntN(4) != 0 {
					in[i] = v
				}
			}
			live := slices.DeleteFunc(slices.Clone(in), func(x uint32) bool { return x == 0 })
			fr := &fs[f]
			for i, x := range live {
				if i == 0 || x != live[i-1] {
					fr.wantKeys, fr.wantLens = append(fr.wantKeys, x), append(fr.wantLens, 0)
				}
				fr.wantLens[len(fr.wantLens)-1]++
			}
			fr.in = vktest.NewPoisoned(t, ctx, n*4)
			if err := vk.Upload(fr.in.All(), in); err != nil {
				t.Fatal(err)
			}
			fr.cells, fr.keys, fr.lengths = vktest.NewPoisoned(t, ctx, n*4), vktest.NewPoisoned(t, ctx, n*4), vktest.NewPoisoned(t, ctx, n*4)
			fr.block, fr.aliveBlock = vktest.NewPoisoned(t, ctx, runs.ResultSize), vktest.NewPoisoned(t, ctx, compact.ResultSize)
		}
		err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
			for _, fr := range fs {
				alive.Record(r, compact.Buffers{Src: fr.in.All(), Dst: fr.cells.All(), Result: fr.aliveBlock.All(), Scratch: scratch.Range(0, alive.ScratchSize())})
				enc.Record(r, runs.Buffers{Src: fr.cells.All(), Keys: fr.keys.All(), Lengths: fr.lengths.All(), Result: fr.block.All(),
					Scratch: scratch.Range(0, enc.ScratchSize()), Count: fr.aliveBlock.Range(compact.ResultKeptOffset, 4)})
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		for f, fr := range fs {
			res, err := runs.ReadResult(fr.block.All())
			if err != nil {
				t.Fatal(err)
			}
			keys, lens := make([]uint32, res.Runs), make([]uint32, res.Runs)
			if err := vk.Download(fr.keys.Range(0, 4*uint64(res.Runs)), keys); err != nil {
				t.Fatal(err)
			}
			if err := vk.Download(fr.lengths.Range(0, 4*uint64(res.Runs)), lens); err != nil {
				t.Fatal(err)
			}
			var total uint32
			for _, l := range fr.wantLens {
				total += l
			}
			if res.Total != total || !slices.Equal(keys, fr.wantKeys) || !slices.Equal(lens, fr.wantLens) {
				t.Errorf("%v frame %d: %d runs of %d elements, want %d of %d; keys equal %v, lengths equal %v", path, f, res.Runs, res.Total,
					len(fr.wantKeys), total, slices.Equal(keys, fr.wantKeys), slices.Equal(lens, fr.wantLens))
			}
		}
	}
}
