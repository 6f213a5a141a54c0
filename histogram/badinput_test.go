package histogram_test

import (
	"math"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestBadInput calls the public entry points with one bad argument each:
// every call returns vk.ErrInvalid naming the problem, records nothing,
// and leaves the counts as they were.
func TestBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	other := vktest.Open(t)
	const n = 100
	even, err := histogram.NewPlan(ctx, n, histogram.Histogram{Bins: 8, Upper: 800})
	if err != nil {
		t.Fatal(err)
	}
	byEdges, err := histogram.NewPlan(ctx, n, histogram.Histogram{Bins: 8, Edges: true})
	if err != nil {
		t.Fatal(err)
	}
	buf := vktest.NewPoisoned(t, ctx, 4096)
	src, counts, edges := buf.Range(0, 4*n), buf.Range(1024, 32), buf.Range(2048, 36)
	good := histogram.Buffers{Src: src, Counts: counts}
	with := func(f func(*histogram.Buffers)) histogram.Buffers { b := good; f(&b); return b }
	record := func(p *histogram.Plan, b histogram.Buffers) func() error {
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
	cases := []badinput.Case{
		{Entry: "NewPlan", Input: "nil context", Want: inv, Msg: "nil context", Call: func() error { _, err := histogram.NewPlan(nil, 1, histogram.Histogram{Bins: 1, Upper: 1}); return err }},
		{Entry: "NewPlan", Input: "no bins", Want: inv, Msg: "Bins 0: want 1 to 4096", Call: func() error { _, err := histogram.NewPlan(ctx, 1, histogram.Histogram{Upper: 1}); return err }},
		{Entry: "NewPlan", Input: "f32 bound not a float32", Want: inv, Msg: "Upper 0.3 is not a float32", Call: func() error {
			_, err := histogram.NewPlan(ctx, 1, histogram.Histogram{Elem: vkcompact.Plain(vkcompact.Float32), Bins: 1, Upper: 0.3})
			return err
		}},
		{Entry: "NewPlan", Input: "u64 samples", Want: inv, Msg: "the samples must be uint32, int32 or float32", Call: func() error {
			_, err := histogram.NewPlan(ctx, 1, histogram.Histogram{Elem: vkcompact.Plain(vkcompact.Uint64), Bins: 1, Upper: 1})
			return err
		}},
		{Entry: "Record", Input: "nil plan", Want: inv, Msg: "histogram: nil Plan", Call: record(nil, good)},
		{Entry: "Record", Input: "no counts", Want: inv, Msg: "no counts buffer", Call: record(even, with(func(b *histogram.Buffers) { b.Counts = vk.Range{} }))},
		{Entry: "Record", Input: "short counts", Want: inv, Msg: "counts range of 28 bytes: 32 needed", Call: record(even, with(func(b *histogram.Buffers) { b.Counts = buf.Range(1024, 28) }))},
		{Entry: "Record", Input: "short source", Want: inv, Msg: "source range of 396 bytes: 400 needed", Call: record(even, with(func(b *histogram.Buffers) { b.Src = buf.Range(0, 396) }))},
		{Entry: "Record", Input: "edges for even bins", Want: inv, Msg: "an edges range for even bins", Call: record(even, with(func(b *histogram.Buffers) { b.Edges = edges }))},
		{Entry: "Record", Input: "no edges", Want: inv, Msg: "no edges buffer", Call: record(byEdges, good)},
		{Entry: "Record", Input: "short edges", Want: inv, Msg: "edges range of 32 bytes: 36 needed", Call: record(byEdges, with(func(b *histogram.Buffers) { b.Edges = buf.Range(2048, 32) }))},
		{Entry: "Record", Input: "counts over the source", Want: inv, Msg: "the counts and source ranges overlap", Call: record(even, with(func(b *histogram.Buffers) { b.Counts = buf.Range(256, 32) }))},
		{Entry: "Record", Input: "misaligned counts", Want: inv, Msg: "counts offset 1028 is not a multiple of minStorageBufferOffsetAlignment", Call: record(even, with(func(b *histogram.Buffers) { b.Counts = buf.Range(1028, 32) }))},
		{Entry: "Record", Input: "count of 8 bytes", Want: inv, Msg: "count range of 8 bytes: it must be exactly 4", Call: record(even, with(func(b *histogram.Buffers) { b.Count = buf.Range(3072, 8) }))},
		{Entry: "Record", Input: "count in the counts", Want: inv, Msg: "the counts and count ranges overlap", Call: record(even, with(func(b *histogram.Buffers) { b.Count = buf.Range(1028, 4) }))},
		{Entry: "Record", Input: "counts of another context", Want: inv, Msg: "another context", Call: record(even, with(func(b *histogram.Buffers) { b.Counts = vktest.NewPoisoned(t, other, 64).Range(0, 32) }))},
		{Entry: "RecordTimed", Input: "nil timer", Want: inv, Msg: "RecordTimed needs a timer", Call: func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { even.RecordTimed(r, good, nil) })
		}},
		{Entry: "Run", Input: "Accumulate without counts", Want: inv, Msg: "Run needs Buffers.Counts", Call: func() error {
			p, err := histogram.NewPlan(ctx, 1, histogram.Histogram{Bins: 1, Upper: 1, Accumulate: true})
			if err != nil {
				return err
			}
			_, err = p.Run(histogram.Buffers{Src: src})
			return err
		}},
		{Entry: "HistogramSlice", Input: "Elem f32 for uint32s", Want: inv, Msg: "does not match the elements' Go type", Call: func() error {
			_, err := histogram.HistogramSlice(ctx, []uint32{1}, histogram.Histogram{Elem: vkcompact.Plain(vkcompact.Float32), Bins: 1, Upper: 1})
			return err
		}},
		{Entry: "HistogramSlice", Input: "Edges", Want: inv, Msg: "use HistogramEdgesSlice", Call: func() error {
			_, err := histogram.HistogramSlice(ctx, []uint32{1}, histogram.Histogram{Bins: 1, Edges: true})
			return err
		}},
		{Entry: "HistogramEdgesSlice", Input: "one edge", Want: inv, Msg: "1 edges: want 2 to 4097", Call: func() error {
			_, err := histogram.HistogramEdgesSlice(ctx, []uint32{1}, []uint32{1}, histogram.Histogram{})
			return err
		}},
		{Entry: "HistogramEdgesSlice", Input: "descending edges", Want: inv, Msg: "edge 2 (3) is below edge 1 (5)", Call: func() error {
			_, err := histogram.HistogramEdgesSlice(ctx, []int32{1}, []int32{1, 5, 3}, histogram.Histogram{})
			return err
		}},
		{Entry: "HistogramEdgesSlice", Input: "NaN edge", Want: inv, Msg: "edge 1 is NaN", Call: func() error {
			_, err := histogram.HistogramEdgesSlice(ctx, []float32{1}, []float32{1, float32(math.NaN()), 3}, histogram.Histogram{})
			return err
		}},
		{Entry: "HistogramEdgesSlice", Input: "Bins against the edges", Want: inv, Msg: "Bins 3 with 3 edges", Call: func() error {
			_, err := histogram.HistogramEdgesSlice(ctx, []uint32{1}, []uint32{1, 2, 3}, histogram.Histogram{Bins: 3})
			return err
		}},
		{Entry: "NumPyEdges", Input: "a fractional bound for integers", Want: inv, Msg: "Lower 0.5 is not a uint32", Call: func() error {
			_, err := histogram.NumPyEdges[uint32](0.5, 3, 2)
			return err
		}},
		{Entry: "NumPyEdges", Input: "an empty range", Want: inv, Msg: "want finite bounds, lower below upper", Call: func() error {
			_, err := histogram.NumPyEdges[float32](3, 3, 2)
			return err
		}},
	}
	for _, c := range cases {
		badinput.Check(t, c)
	}
	left := make([]uint32, 8)
	if err := vk.Download(counts, left); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(left, vktest.PoisonWords(8)) {
		t.Errorf("the counts were written by refused calls: %x", left)
	}
}
