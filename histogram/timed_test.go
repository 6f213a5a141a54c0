package histogram_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestRecordTimed times a histogram with a timer of len(Phases())+1
// queries and of two more: its queries are written, the others not, and
// the counts are right. A timer too short is refused naming the queries
// needed.
func TestRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	if ctx.Info().TimestampValidBits == 0 {
		t.Skip("no timestamps")
	}
	rng := vktest.Rand(t)
	const n = 5000
	h := histogram.Histogram{Bins: 64, Lower: 10, Upper: 90000}
	data := samples(rng, h, nil, n)
	want := refHistogram(h, nil, data)
	p, err := histogram.NewPlan(ctx, n, h)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Phases(); !slices.Equal(got, []string{"clear", "count"}) {
		t.Fatalf("phases %q", got)
	}
	b := histogram.Buffers{Src: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), Counts: vktest.NewPoisoned(t, ctx, 256).Range(0, 256)}
	if err := vk.Upload(b.Src, data); err != nil {
		t.Fatal(err)
	}
	need := uint32(len(p.Phases()) + 1)
	for _, queries := range []uint32{need, need + 2} {
		timer, err := ctx.NewTimer(queries)
		if err != nil {
			t.Fatal(err)
		}
		defer timer.Release()
		if err := vk.Upload(b.Counts, vktest.PoisonWords(64)); err != nil {
			t.Fatal(err)
		}
		err = ctx.Submit(func(cb vk.CommandBuffer) error {
			timer.Reset(cb)
			r := pipeline.Record(cb)
			p.RecordTimed(r, b, timer)
			return r.Err()
		})
		if err != nil {
			t.Fatalf("%d queries: %v", queries, err)
		}
		for i := uint32(0); i < queries; i++ {
			ns, err := timer.Nanoseconds(0, i)
			if written := i < need; written != (err == nil) || ns < 0 {
				t.Errorf("%d queries: query %d: %v ns, %v (want written %v)", queries, i, ns, err, written)
			}
		}
		got := make([]uint32, 64)
		if err := vk.Download(b.Counts, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d queries: wrong counts", queries)
		}
	}
	short, err := ctx.NewTimer(need - 1)
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
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "histogram: RecordTimed needs a timer of 3 queries") {
		t.Errorf("a timer of %d queries: %v, want ErrInvalid naming the queries needed", need-1, err)
	}
}

// TestAccumulate counts two batches into one set of counts, the second
// with Accumulate, and runs a plan with Run and no counts of the
// caller's: the sums and the counts are the reference's.
func TestAccumulate(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	h := histogram.Histogram{Bins: 300, Lower: 0, Upper: 1 << 20}
	first, second := samples(rng, h, nil, 3001), samples(rng, h, nil, 777)
	counts := vktest.NewPoisoned(t, ctx, 4*300).Range(0, 4*300)
	for i, batch := range [][]uint32{first, second} {
		h.Accumulate = i > 0
		p, err := histogram.NewPlan(ctx, uint64(len(batch)), h)
		if err != nil {
			t.Fatal(err)
		}
		src := vktest.NewPoisoned(t, ctx, 4*uint64(len(batch))).Range(0, 4*uint64(len(batch)))
		if err := vk.Upload(src, batch); err != nil {
			t.Fatal(err)
		}
		got, err := p.Run(histogram.Buffers{Src: src, Counts: counts})
		if err != nil {
			t.Fatal(err)
		}
		counted := first
		if i > 0 {
			counted = append(slices.Clone(first), second...)
		}
		want := refHistogram(h, nil, counted)
		if !slices.Equal(got, want) {
			t.Errorf("batch %d (Accumulate %v): first bin off %d", i, h.Accumulate, firstDiff(got, want))
		}
		if i == 0 {
			alone, err := p.Run(histogram.Buffers{Src: src})
			if err != nil || !slices.Equal(alone, want) {
				t.Errorf("Run with no counts: %v", err)
			}
		}
	}
}
