package permute_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestRecordTimed times a gather with a timer of len(Phases())+1 queries
// and of two more: its queries are written, the others not, and the
// gather is right. A timer too short is refused naming the queries
// needed.
func TestRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	if ctx.Info().TimestampValidBits == 0 {
		t.Skip("no timestamps")
	}
	rng := vktest.Rand(t)
	const n = 3000
	p, err := permute.NewPlan(ctx, n, permute.Permutation{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Phases(); !slices.Equal(got, []string{"move"}) {
		t.Fatalf("phases %q", got)
	}
	src, idx := randomWords(rng, n), make([]uint32, n)
	for i := range idx {
		idx[i] = rng.Uint32N(n)
	}
	b := permute.Buffers{Indices: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), Src: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n),
		Dst: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), Status: vktest.NewPoisoned(t, ctx, 16).Range(0, 4)}
	if err := vk.Upload(b.Indices, idx); err != nil {
		t.Fatal(err)
	}
	if err := vk.Upload(b.Src, src); err != nil {
		t.Fatal(err)
	}
	need := uint32(len(p.Phases()) + 1)
	for _, queries := range []uint32{need, need + 2} {
		timer, err := ctx.NewTimer(queries)
		if err != nil {
			t.Fatal(err)
		}
		defer timer.Release()
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
		got := make([]uint32, n)
		if err := vk.Download(b.Dst, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, gatherRef(src, idx)) {
			t.Errorf("%d queries: wrong gather", queries)
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
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "permute: RecordTimed needs a timer of 2 queries") {
		t.Errorf("a timer of %d query: %v, want ErrInvalid naming the queries needed", need-1, err)
	}
}
