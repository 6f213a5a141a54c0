package scan_test

import (
	"fmt"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSinglePassScratchReuse runs a single-pass prefix sum again and
// again on one scratch range, which the pass leaves zero for its next run
// instead of a clear dispatch before it: runs back to back in one command
// buffer with no host wait (GPU counts that leave later tiles unused among
// them), another command buffer with no clear recorded, then after the
// scratch was poisoned with stale-looking status words by an upload and
// after a three-phase plan used it, where a clear must be recorded. Each
// run is checked against the Go reference, and the status words must be
// zero after each command buffer.
func TestSinglePassScratchReuse(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	const runs = 4
	o := smallTiles(ctx, scan.Options{Path: vkcompact.PathSinglePass})
	if o.WorkgroupSize == 0 {
		o.WorkgroupSize, o.LoadsPerLane = 256, 1 // tiles of 1024 on a GPU
	}
	tile := int(o.WorkgroupSize * o.LoadsPerLane * 4)
	// With up to 1024 tiles the pass resets its status words; with more
	// the host clears them before every run.
	for i, tiles := range []int{500, 1100} {
		t.Run(fmt.Sprintf("tiles=%d", tiles), func(t *testing.T) {
			n := tiles*tile - 5
			o.Spins = []int32{0, -1}[i]
			s := scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o}
			p, err := scan.NewPlan(ctx, uint64(n), s)
			if err != nil {
				t.Fatal(err)
			}
			tu := p.Tuning()
			if tu.Tiles != uint32(tiles) || tu.SelfReset != (tiles <= 1024) {
				t.Fatalf("%d tiles, self-reset %v: want %d tiles", tu.Tiles, tu.SelfReset, tiles)
			}
			words := 2 + 2*uint64(tiles) // tile counter, status words, finished count
			status := vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
			type run struct {
				data  []uint32
				count uint32
				b     scan.Buffers
			}
			round := func(what string, wantClear bool, before func(r *pipeline.Recorder)) {
				t.Helper()
				rs := make([]run, runs)
				for i := range rs {
					x := run{data: scanData(rng, vkcompact.Uint32, n, true), count: []uint32{uint32(n), uint32(n / 3), 0, uint32(n + 9), uint32(n - 1)}[rng.IntN(5)]}
					src := vktest.NewPoisoned(t, ctx, 4*uint64(n))
					cnt := vktest.NewPoisoned(t, ctx, 4)
					if err := vk.Upload(src.All(), x.data); err != nil {
						t.Fatal(err)
					}
					if err := vk.Upload(cnt.Range(0, 4), []uint32{x.count}); err != nil {
						t.Fatal(err)
					}
					x.b = scan.Buffers{Src: src.All(), Dst: vktest.NewPoisoned(t, ctx, 4*uint64(n)).All(),
						Total: vktest.NewPoisoned(t, ctx, scan.TotalSize).Range(0, scan.TotalSize), Count: cnt.Range(0, 4), Scratch: status}
					rs[i] = x
				}
				vktest.RecordRuns(t, ctx, what, runs, tu.SelfReset, wantClear, before, func(r *pipeline.Recorder, i int) { p.Record(r, rs[i].b) })
				for i, x := range rs {
					nEff := min(n, int(x.count))
					got := make([]uint32, n)
					var total [1]uint32
					if err := vk.Download(x.b.Dst, got); err != nil {
						t.Fatal(err)
					}
					if err := vk.Download(x.b.Total, total[:]); err != nil {
						t.Fatal(err)
					}
					sum := uint32(0)
					for j := 0; j < n; j++ {
						want := uint32(vktest.Poison)
						if j < nEff {
							want = sum
							sum += x.data[j]
						}
						if got[j] != want {
							t.Fatalf("%s: run %d of %d (count %d): element %d is %#x, want %#x", what, i+1, runs, x.count, j, got[j], want)
						}
					}
					if total[0] != sum {
						t.Fatalf("%s: run %d of %d (count %d): total %#x, want %#x", what, i+1, runs, x.count, total[0], sum)
					}
				}
				if tu.SelfReset {
					vktest.CheckZero(t, what, status, words)
				}
			}
			round("first use of the scratch", true, nil)
			round("scratch left zero by the last run", false, nil)

			vktest.UploadStale(t, status, func() uint32 { return (1+uint32(rng.IntN(2)))<<16 | rng.Uint32N(1<<16) })
			round("scratch overwritten by an upload", true, nil)

			q, err := scan.NewPlan(ctx, uint64(n), scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: scan.Options{Path: vkcompact.PathThreePhase}})
			if err != nil {
				t.Fatal(err)
			}
			scratch := vktest.NewPoisoned(t, ctx, max(q.ScratchSize(), p.ScratchSize()))
			status = scratch.Range(0, p.ScratchSize())
			src := vktest.NewPoisoned(t, ctx, 4*uint64(n))
			qb := scan.Buffers{Src: src.All(), Dst: vktest.NewPoisoned(t, ctx, 4*uint64(n)).All(),
				Total: vktest.NewPoisoned(t, ctx, scan.TotalSize).Range(0, scan.TotalSize), Scratch: scratch.Range(0, q.ScratchSize())}
			round("first use of a new scratch", true, nil)
			round("scratch used by a three-phase plan first", true, func(r *pipeline.Recorder) { q.Record(r, qb) })
		})
	}
}
