package permute_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestBadInput calls the public entry points with one bad argument each:
// every call returns vk.ErrInvalid naming the problem, records nothing,
// and leaves the destination as it was.
func TestBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	other := vktest.Open(t)
	const n = 64
	gather, err := permute.NewPlan(ctx, n, permute.Permutation{Elem: vkcompact.Plain(vkcompact.Uint64)})
	if err != nil {
		t.Fatal(err)
	}
	scatter, err := permute.NewPlan(ctx, n, permute.Permutation{Scatter: true})
	if err != nil {
		t.Fatal(err)
	}
	buf := vktest.NewPoisoned(t, ctx, 8192)
	good := permute.Buffers{Indices: buf.Range(0, 4*n), Src: buf.Range(1024, 8*n), Dst: buf.Range(2048, 8*n)}
	with := func(f func(*permute.Buffers)) permute.Buffers { b := good; f(&b); return b }
	record := func(p *permute.Plan, b permute.Buffers) func() error {
		return func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) {
				p.Record(r, b)
				if d, _ := r.Stats(); d != 0 {
					t.Errorf("a refused Record recorded %d dispatches", d)
				}
			})
		}
	}
	inv := vk.ErrInvalid
	for _, c := range []badinput.Case{
		{Entry: "NewPlan", Input: "nil context", Want: inv, Msg: "permute: nil context", Call: func() error { _, err := permute.NewPlan(nil, 1, permute.Permutation{}); return err }},
		{Entry: "NewPlan", Input: "a 6-byte stride", Want: inv, Msg: "element stride 6 bytes", Call: func() error {
			_, err := permute.NewPlan(ctx, 1, permute.Permutation{Elem: vkcompact.Struct(6, 0, vkcompact.Uint32)})
			return err
		}},
		{Entry: "Record", Input: "nil plan", Want: inv, Msg: "permute: nil Plan", Call: record(nil, good)},
		{Entry: "Record", Input: "no indices", Want: inv, Msg: "no indices buffer", Call: record(gather, with(func(b *permute.Buffers) { b.Indices = vk.Range{} }))},
		{Entry: "Record", Input: "short indices", Want: inv, Msg: "indices range of 252 bytes: 256 needed", Call: record(gather, with(func(b *permute.Buffers) { b.Indices = buf.Range(0, 252) }))},
		{Entry: "Record", Input: "short destination", Want: inv, Msg: "destination range of 500 bytes: 512 needed", Call: record(gather, with(func(b *permute.Buffers) { b.Dst = buf.Range(2048, 500) }))},
		{Entry: "Record", Input: "an empty source", Want: inv, Msg: "no source buffer", Call: record(gather, with(func(b *permute.Buffers) { b.Src = vk.Range{} }))},
		{Entry: "Record", Input: "short scatter source", Want: inv, Msg: "source range of 252 bytes: 256 needed", Call: record(scatter, with(func(b *permute.Buffers) { b.Src = buf.Range(1024, 252) }))},
		{Entry: "Record", Input: "source over destination", Want: inv, Msg: "ranges overlap", Call: record(gather, with(func(b *permute.Buffers) { b.Dst = buf.Range(1280, 8*n) }))},
		{Entry: "Record", Input: "status of 8 bytes", Want: inv, Msg: "status range of 8 bytes: it must be exactly 4", Call: record(gather, with(func(b *permute.Buffers) { b.Status = buf.Range(4096, 8) }))},
		{Entry: "Record", Input: "status in the destination", Want: inv, Msg: "status ranges overlap", Call: record(gather, with(func(b *permute.Buffers) { b.Status = buf.Range(2048, 4) }))},
		{Entry: "Record", Input: "misaligned status", Want: inv, Msg: "status offset 4100 is not a multiple of minStorageBufferOffsetAlignment", Call: record(gather, with(func(b *permute.Buffers) { b.Status = buf.Range(4100, 4) }))},
		{Entry: "Record", Input: "indices of another context", Want: inv, Msg: "the buffer belongs to another context", Call: record(gather, with(func(b *permute.Buffers) { b.Indices = vktest.NewPoisoned(t, other, 4*n).Range(0, 4*n) }))},
		{Entry: "RecordTimed", Input: "nil timer", Want: inv, Msg: "RecordTimed needs a timer", Call: func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { gather.RecordTimed(r, good, nil) })
		}},
	} {
		badinput.Check(t, c)
	}
	left := make([]uint32, 2*n)
	if err := vk.Download(good.Dst, left); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(left, vktest.PoisonWords(2*n)) {
		t.Errorf("the destination was written by refused calls")
	}
}

// TestRunReportsIndex runs a gather and a scatter whose indices hold
// values out of range: Run returns vk.ErrInvalid naming the first such
// position and its index, and the positions in range moved.
func TestRunReportsIndex(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, scatter := range []bool{false, true} {
		p, err := permute.NewPlan(ctx, 6, permute.Permutation{Scatter: scatter})
		if err != nil {
			t.Fatal(err)
		}
		idx := []uint32{5, 1, 900, 0, 7, 2}
		b := permute.Buffers{Indices: vktest.NewPoisoned(t, ctx, 24).Range(0, 24), Src: vktest.NewPoisoned(t, ctx, 24).Range(0, 24), Dst: vktest.NewPoisoned(t, ctx, 24).Range(0, 24)}
		if err := vk.Upload(b.Indices, idx); err != nil {
			t.Fatal(err)
		}
		if err := vk.Upload(b.Src, []uint32{10, 11, 12, 13, 14, 15}); err != nil {
			t.Fatal(err)
		}
		err = p.Run(b)
		side := map[bool]string{false: "source", true: "destination"}[scatter]
		if want := "index 900 at position 2 is out of range: the " + side + " holds 6 elements"; !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("scatter %v: %v, want vk.ErrInvalid naming %q", scatter, err, want)
		}
		got := make([]uint32, 6)
		if err := vk.Download(b.Dst, got); err != nil {
			t.Fatal(err)
		}
		p0 := uint32(vktest.Poison)
		want := []uint32{15, 11, p0, 10, p0, 12}
		if scatter {
			want = []uint32{13, 11, 15, p0, p0, 10}
		}
		if !slices.Equal(got, want) {
			t.Errorf("scatter %v: %v, want %v", scatter, got, want)
		}
	}
}
