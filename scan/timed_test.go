package scan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestRecordTimed times a prefix sum on each path with a timer of
// len(Phases())+1 queries, and of two more: its queries are written in
// order, the others not, and the sums are right. A timer too short for
// the path is refused before anything is recorded, naming the queries
// needed.
func TestRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	if ctx.Info().TimestampValidBits == 0 {
		t.Skip("no timestamps")
	}
	rng := vktest.Rand(t)
	const n = 5000
	in := scanData(rng, vkcompact.Uint32, n, true)
	want, _, _, _, _ := refScan(scanCase{scan: scan.Scan{}, data: in})
	for _, c := range []struct {
		path   vkcompact.Path
		phases []string
	}{{vkcompact.PathThreePhase, []string{"reduce", "scan", "apply"}}, {vkcompact.PathSinglePass, []string{"clear", "pass"}}} {
		p, err := scan.NewPlan(ctx, n, scan.Scan{Options: scan.Options{Path: c.path}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Phases(); !slices.Equal(got, c.phases) {
			t.Fatalf("%v: phases %q, want %q", c.path, got, c.phases)
		}
		b := scan.Buffers{Src: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), Dst: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n),
			Total: vktest.NewPoisoned(t, ctx, 16).Range(0, scan.TotalSize), Scratch: vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())}
		if err := vk.Upload(b.Src, in); err != nil {
			t.Fatal(err)
		}
		need := uint32(len(c.phases) + 1)
		for _, queries := range []uint32{need, need + 2} {
			timer, err := ctx.NewTimer(queries)
			if err != nil {
				t.Fatal(err)
			}
			defer timer.Release()
			if err := vk.Upload(b.Dst, vktest.PoisonWords(n)); err != nil {
				t.Fatal(err)
			}
			err = ctx.Submit(func(cb vk.CommandBuffer) error {
				timer.Reset(cb)
				r := pipeline.Record(cb)
				p.RecordTimed(r, b, timer)
				return r.Err()
			})
			if err != nil {
				t.Fatalf("%v, %d queries: %v", c.path, queries, err)
			}
			for i := uint32(0); i < queries; i++ {
				ns, err := timer.Nanoseconds(0, i)
				if written := i < need; written != (err == nil) || ns < 0 {
					t.Errorf("%v, %d queries: query %d: %v ns, %v (want written %v)", c.path, queries, i, ns, err, written)
				}
			}
			got := make([]uint32, n)
			if err := vk.Download(b.Dst, got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%v, %d queries: wrong sums", c.path, queries)
			}
		}
		short, err := ctx.NewTimer(uint32(len(c.phases)))
		if err != nil {
			t.Fatal(err)
		}
		defer short.Release()
		err = ctx.Submit(func(cb vk.CommandBuffer) error {
			short.Reset(cb)
			r := pipeline.Record(cb)
			p.RecordTimed(r, b, short)
			return r.Err()
		})
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "scan: RecordTimed needs a timer of") {
			t.Errorf("%v, a timer of %d queries: %v, want ErrInvalid naming the queries needed", c.path, len(c.phases), err)
		}
	}
}
