package compact_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// reuseRun is one run of a plan in TestSinglePassScratchReuse: its own
// input, GPU count, output and result block, over the shared scratch.
type reuseRun struct {
	data  []byte
	count uint32
	b     compact.Buffers
}

// TestSinglePassScratchReuse runs a single-pass plan again and again on
// one scratch range, which the pass leaves zero for its next run instead
// of a clear dispatch before it: several runs back to back in one command
// buffer with no host wait between them (and with GPU counts that leave
// later tiles unused), then another command buffer, which must record no
// clear; then with the scratch poisoned by stale-looking status words
// written through an upload, and after a three-phase plan used the same
// scratch: both must record a clear. Every run's output is checked against
// the Go reference, and the scratch's status words must be zero after
// each command buffer. A kernel that did not reset its status words, or a
// recording that trusted a scratch it did not know to be zero, fails here.
func TestSinglePassScratchReuse(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	const runs = 4
	wg, loads := vktest.SmallTiles(ctx.Info())
	if wg == 0 {
		wg, loads = 256, 1 // tiles of 1024 on a GPU
	}
	tile := int(wg * loads * 4)
	for _, split := range []bool{false, true} {
		// With up to 1024 tiles the pass resets its status words; with
		// more the host clears them before every run.
		for i, tiles := range []int{500, 1100} {
			spins := []int32{0, -1}[i]
			name := fmt.Sprintf("split=%v/tiles=%d", split, tiles)
			t.Run(name, func(t *testing.T) {
				n := tiles*tile - 5
				sel := nonzero(vkcompact.Uint32)
				sel.Path, sel.Spins = vkcompact.PathSinglePass, spins
				sel.WorkgroupSize, sel.LoadsPerLane = wg, loads
				if split {
					sel.Split, sel.ReverseRejected = true, true
				}
				p, err := compact.NewPlan(ctx, uint64(n), sel)
				if err != nil {
					t.Fatal(err)
				}
				tu := p.Tuning()
				if tu.Tiles != uint32(tiles) || tu.SelfReset != (tiles <= 1024) {
					t.Fatalf("%d tiles, self-reset %v: want %d tiles", tu.Tiles, tu.SelfReset, tiles)
				}
				status := vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
				words := uint64(tiles) + 2 // tile counter, status words, finished count

				round := func(what string, wantClear bool, before func(r *pipeline.Recorder)) {
					t.Helper()
					rs := make([]reuseRun, runs)
					for i := range rs {
						rs[i] = newReuseRun(t, ctx, rng, n, []uint32{uint32(n), uint32(n / 3), 0, uint32(n + 9), uint32(n - 1)}[rng.IntN(5)])
						rs[i].b.Scratch = status
					}
					vktest.RecordRuns(t, ctx, what, runs, tu.SelfReset, wantClear, before, func(r *pipeline.Recorder, i int) { p.Record(r, rs[i].b) })
					for i, x := range rs {
						if err := checkReuseRun(x, sel, split); err != nil {
							t.Fatalf("%s: run %d of %d (count %d): %v", what, i+1, runs, x.count, err)
						}
					}
					if tu.SelfReset {
						vktest.CheckZero(t, what, status, words)
					}
				}
				round("first use of the scratch", true, nil)
				round("scratch left zero by the last run", false, nil)

				// Stale status words: inclusive prefixes and aggregates with
				// values, a tile counter and a finished count past the end.
				vktest.UploadStale(t, status, func() uint32 { return (1+uint32(rng.IntN(2)))<<30 | rng.Uint32N(1<<20) })
				round("scratch overwritten by an upload", true, nil)

				// A three-phase plan on the same scratch, recorded first.
				other := nonzero(vkcompact.Uint32)
				other.Path = vkcompact.PathThreePhase
				q, err := compact.NewPlan(ctx, uint64(n), other)
				if err != nil {
					t.Fatal(err)
				}
				scratch := vktest.NewPoisoned(t, ctx, max(q.ScratchSize(), p.ScratchSize()))
				status = scratch.Range(0, p.ScratchSize())
				x := newReuseRun(t, ctx, rng, n, uint32(n))
				x.b.Scratch = scratch.Range(0, q.ScratchSize())
				round("first use of a new scratch", true, nil)
				round("scratch used by a three-phase plan first", true, func(r *pipeline.Recorder) { q.Record(r, x.b) })
			})
		}
	}
}

// newReuseRun makes one run's buffers: n random uint32 elements (about
// half zero), a GPU count, and a poisoned output and result block.
func newReuseRun(t *testing.T, ctx *vk.Context, rng *rand.Rand, n int, count uint32) reuseRun {
	t.Helper()
	data := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		if rng.IntN(2) == 0 {
			binary.LittleEndian.PutUint32(data[4*i:], rng.Uint32())
		}
	}
	src := vktest.NewPoisoned(t, ctx, uint64(len(data)))
	if err := vk.Upload(src.All(), data); err != nil {
		t.Fatal(err)
	}
	cnt := vktest.NewPoisoned(t, ctx, 4)
	if err := vk.Upload(cnt.Range(0, 4), []uint32{count}); err != nil {
		t.Fatal(err)
	}
	return reuseRun{data: data, count: count, b: compact.Buffers{Src: src.All(),
		Dst:    vktest.NewPoisoned(t, ctx, uint64(len(data))).All(),
		Result: vktest.NewPoisoned(t, ctx, compact.ResultSize).Range(0, compact.ResultSize),
		Count:  cnt.Range(0, 4)}}
}

// checkReuseRun checks a run's result block and output against the Go
// reference; past the counted elements the output must stay poisoned.
func checkReuseRun(x reuseRun, sel compact.Selection, split bool) error {
	n := len(x.data) / 4
	nEff := min(n, int(x.count))
	want, kept := reference(x.data, nil, sel.Elem, sel.Keep.Op, refConst{}, nEff, split)
	if split {
		rej := want[4*kept:]
		for i, j := 0, len(rej)-4; i < j; i, j = i+4, j-4 {
			for b := 0; b < 4; b++ {
				rej[i+b], rej[j+b] = rej[j+b], rej[i+b]
			}
		}
	}
	var block [12]uint32
	if err := vk.Download(x.b.Result, block[:]); err != nil {
		return err
	}
	if int(block[0]) != kept || int(block[2]) != nEff {
		return fmt.Errorf("result block kept %d of %d, want %d of %d", block[0], block[2], kept, nEff)
	}
	got := make([]byte, len(x.data))
	if err := vk.Download(x.b.Dst, got); err != nil {
		return err
	}
	if !bytes.Equal(got[:len(want)], want) {
		return fmt.Errorf("output differs from the reference (%d kept of %d)", kept, nEff)
	}
	if !bytes.Equal(got[len(want):], vktest.PoisonBytes(uint64(len(got)-len(want)))) {
		return fmt.Errorf("output written past the %d elements it should hold", len(want)/4)
	}
	return nil
}
