package radix_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// phased is a plan RecordTimed times: StructPlan or SegmentedPlan.
type phased interface{ Phases() []string }

// recordTimed records rec (a plan's RecordTimed) once with a timer of
// len(Phases())+1 queries, reset first, and requires every query to hold
// a timestamp: a stamp too few leaves one unavailable, one too many is
// past the pool (a validation error). A timer one query short is refused
// by name.
func recordTimed(t *testing.T, ctx *vk.Context, p phased, rec func(r *pipeline.Recorder, t *vk.Timer)) {
	t.Helper()
	queries := uint32(len(p.Phases()) + 1)
	short, err := ctx.NewTimer(queries - 1)
	if err != nil {
		t.Skip(err) // no timestamps on this queue
	}
	defer short.Release()
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { rec(r, short) }); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "needs a timer of") {
		t.Fatalf("phases %v, a timer of %d queries: got %v, want ErrInvalid", p.Phases(), queries-1, err)
	}
	timer, err := ctx.NewTimer(queries)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	err = ctx.Submit(func(cb vk.CommandBuffer) error {
		timer.Reset(cb)
		r := pipeline.Record(cb)
		rec(r, timer)
		return r.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := timer.Ticks(); err != nil {
		t.Fatalf("phases %v: %v", p.Phases(), err)
	}
}

// TestStructRecordTimed times struct sorts (and one of none), each with
// exactly the stamps its Phases name, the output checked against a stable
// sort.
func TestStructRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	s := radix.StructSort{Elem: elemOf[particle](t, "Depth"), Descending: true}
	for _, n := range []int{0, 3000} {
		items := randomParticles(rng, n)
		p, err := radix.NewStructPlan(ctx, uint64(n), s)
		if err != nil {
			t.Fatal(err)
		}
		names := p.Phases()
		if names[0] != "extract" || names[len(names)-1] != "gather" {
			t.Fatalf("n=%d: phases %v, want extract first and gather last", n, names)
		}
		size := uint64(n) * uint64(unsafe.Sizeof(particle{}))
		src := vktest.NewPoisoned(t, ctx, size+64)
		dst := vktest.NewPoisoned(t, ctx, size+64)
		scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize()+64)
		if err := vk.Upload(src.Range(0, size), items); err != nil {
			t.Fatal(err)
		}
		b := radix.StructBuffers{Src: src.Range(0, size), Dst: dst.Range(0, size), Scratch: scratch.Range(0, p.ScratchSize())}
		recordTimed(t, ctx, p, func(r *pipeline.Recorder, tm *vk.Timer) { p.RecordTimed(r, b, tm) })
		got := make([]byte, dst.Size())
		if err := vk.Download(dst.All(), got); err != nil {
			t.Fatal(err)
		}
		want := vktest.PoisonBytes(dst.Size())
		copy(want, asBytes(refStructs(s, items)))
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: the timed struct sort differs from a stable sort", n)
		}
	}
}

// TestSegmentedRecordTimed times segmented sorts on every path (no
// segments, the block path, the general path, the GPU's choice), each
// with exactly the stamps its Phases name, outputs checked against Go.
func TestSegmentedRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	u32 := vkcompact.Plain(vkcompact.Uint32)
	lengths := []int{5, 700, 1, 0, 40}
	for _, c := range []struct {
		name        string
		sort        radix.SegmentedSort
		segments    bool
		first, last string
	}{
		{"no segments", radix.SegmentedSort{Elem: u32}, false, "copy", "copy"},
		{"block path", radix.SegmentedSort{Elem: u32, Values: true, MaxSegment: 700}, true, "block", "block"},
		{"general path", radix.SegmentedSort{Elem: u32, Values: true, General: true}, true, "extract", "gather"},
		{"the GPU's choice", radix.SegmentedSort{Elem: u32}, true, "choose", "gather"},
	} {
		offsets := []uint32{0}
		if c.segments {
			offsets = offsetsOf(0, lengths...)
		}
		n := uint64(sum(lengths))
		p, err := radix.NewSegmentedPlan(ctx, n, uint32(len(offsets)-1), c.sort)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if names := p.Phases(); names[0] != c.first || names[len(names)-1] != c.last {
			t.Fatalf("%s: phases %v, want %s first and %s last", c.name, names, c.first, c.last)
		}
		runSegmented(t, ctx, segCase{sort: c.sort, keys: segKeys(rng, vkcompact.Uint32, int(n)), offsets: offsets, timed: true})
	}
}
