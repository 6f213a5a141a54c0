package radix_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
)

// TestOnesweepScratchReuse runs a single-pass sort again and again on one
// scratch range, which the passes leave zero for the next run instead of
// a clear before it (Tuning.SelfReset): several runs back to back in one
// command buffer with no host wait between them, with GPU counts (some
// leaving tiles unused, one zero), then another command buffer, which
// must record no clear; then with the scratch overwritten by an upload of
// stale-looking words, and after a three-phase plan used the same
// scratch: both must record a clear. With an odd number of passes, or
// more than 512 tiles of keys (256 of pairs), every run records its
// clear. Every run's output
// is checked against the Go reference, and the words a self-resetting
// run leaves zero must be zero after each command buffer. A pass that did
// not reset a row of counts, a tile counter, its count of workgroups done
// or the first pass's status words, or a recording that trusted a scratch
// it did not know to be zero, fails here.
func TestOnesweepScratchReuse(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	const runs = 4
	o := radix.Options{Path: vkcompact.PathSinglePass, DigitBits: 4, KeysPerLane: 2, WorkgroupSize: 64} // tiles of 128 keys
	fallback := o
	fallback.Spins = -1
	// The widest digits the device's single pass fits, up to 8 bits (on
	// a GPU 256 digits over several subgroups, whose row scan then sums
	// the subgroups' parts).
	wide := widestOnesweep(t, ctx, radix.Options{WorkgroupSize: 256}, 8)
	for _, c := range []struct {
		name      string
		s         radix.Sort
		tiles     int
		selfReset bool
	}{
		{"keys/4 passes", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 16, Options: o}, 50, true},
		{"pairs/4 passes/256 tiles", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, EndBit: 16, Options: o}, 256, true},
		{"pairs/4 passes/257 tiles", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, EndBit: 16, Options: o}, 257, false},
		{"pairs/8 passes", radix.Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, Descending: true, Options: o}, 7, true},
		{"u64 pairs in place/8 passes", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), Values: true, InPlace: true, EndBit: 32, Options: o}, 20, true},
		{"keys/fallback at once", radix.Sort{Elem: vkcompact.Plain(vkcompact.Float32), EndBit: 16, Options: fallback}, 40, true},
		{"keys/widest digits", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), BeginBit: 0, EndBit: 2 * wide.DigitBits, Options: wide}, 30, true},
		{"pairs/3 passes", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, EndBit: 12, Options: o}, 50, false},
		{"keys/4 passes/512 tiles", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 16, Options: o}, 512, true},
		{"keys/4 passes/513 tiles", radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 16, Options: o}, 513, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			probe, err := radix.NewPlan(ctx, 1000, c.s)
			if err != nil {
				t.Fatal(err)
			}
			tile := int(probe.Tuning().Tile)
			n := c.tiles*tile - 5
			p, err := radix.NewPlan(ctx, uint64(n), c.s)
			if err != nil {
				t.Fatal(err)
			}
			tu := p.Tuning()
			if tu.Path != vkcompact.PathSinglePass || tu.Tiles != uint32(c.tiles) || tu.SelfReset != c.selfReset {
				t.Fatalf("tuning %+v: want the single pass, %d tiles, self-reset %v", tu, c.tiles, c.selfReset)
			}
			scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
			words := radix.SelfResetWords(p)
			round := func(what string, wantClear bool, before func(r *pipeline.Recorder)) {
				t.Helper()
				bufs := make([]radix.Buffers, runs)
				checks := make([]func() error, runs)
				counts := make([]uint32, runs)
				for i := range runs {
					// Every round: a count ending inside a tile, none,
					// more than n, all but one.
					counts[i] = []uint32{uint32(n/3 + 1), 0, uint32(n + 9), uint32(n - 1)}[i]
					sc := sortCase{sort: c.s, keys: keyData(rng, c.s.Elem.Key, n, patterns[rng.IntN(len(patterns))]), gpuCount: true, count: counts[i]}
					b, check, err := prepareSort(ctx, sc, t)
					if err != nil {
						t.Fatal(err)
					}
					b.Scratch = scratch
					bufs[i], checks[i] = b, check
				}
				perRun := 1 + int(tu.Passes) // the histogram, the passes
				if !tu.SelfReset {
					perRun++ // the scan of the counts into first slots
				}
				vktest.RecordRunsOf(t, ctx, what, runs, perRun, tu.SelfReset, wantClear, before, func(r *pipeline.Recorder, i int) { p.Record(r, bufs[i]) })
				for i, check := range checks {
					if err := check(); err != nil {
						t.Fatalf("%s: run %d of %d (count %d): %v", what, i+1, runs, counts[i], err)
					}
				}
				if tu.SelfReset {
					vktest.CheckZero(t, what, scratch, words)
				}
			}
			round("first use of the scratch", true, nil)
			round("scratch left zero by the last run", false, nil)

			// Stale words: counts, tile counters and status words with
			// flags and values.
			vktest.UploadStale(t, scratch.Sub(0, 4*words), func() uint32 { return uint32(rng.IntN(4))<<30 | rng.Uint32N(1<<12) })
			round("scratch overwritten by an upload", true, nil)

			// A three-phase plan on the same scratch, recorded first.
			other := radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: radix.Options{Path: vkcompact.PathThreePhase}}
			q, err := radix.NewPlan(ctx, uint64(n), other)
			if err != nil {
				t.Fatal(err)
			}
			buf := vktest.NewPoisoned(t, ctx, max(q.ScratchSize(), p.ScratchSize()))
			scratch = buf.Range(0, p.ScratchSize())
			qb, qcheck, err := prepareSort(ctx, sortCase{sort: other, keys: keyData(rng, vkcompact.Uint32, n, "random")}, t)
			if err != nil {
				t.Fatal(err)
			}
			qb.Scratch = buf.Range(0, q.ScratchSize())
			round("first use of a new scratch", true, nil)
			round("scratch used by a three-phase plan first", true, func(r *pipeline.Recorder) { q.Record(r, qb) })
			if err := qcheck(); err != nil {
				t.Fatalf("the three-phase plan: %v", err)
			}
		})
	}
}
