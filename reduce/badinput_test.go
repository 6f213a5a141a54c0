package reduce_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// TestBadInput: each bad argument to the reduction's entry points is
// refused with an error naming it, before any GPU work, and the caller's
// buffers are left alone.
func TestBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	other := vktest.Open(t)
	const n = 1000
	p, err := reduce.NewPlan(ctx, n, reduce.Reduce{})
	if err != nil {
		t.Fatal(err)
	}
	src := vktest.NewPoisoned(t, ctx, n*4+256)
	res := vktest.NewPoisoned(t, ctx, 256)
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	foreign := vktest.NewPoisoned(t, other, 256)
	good := func() reduce.Buffers {
		return reduce.Buffers{Src: src.Range(0, n*4), Result: res.Range(0, reduce.ResultSize), Scratch: scratch.All()}
	}
	record := func(p *reduce.Plan, edit func(b *reduce.Buffers)) func() error {
		return func() error {
			b := good()
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	plan := func(n uint64, r reduce.Reduce) func() error {
		return func() error { _, err := reduce.NewPlan(ctx, n, r); return err }
	}
	timer, err := ctx.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(timer.Release)
	cases := []badinput.Case{
		{Entry: "NewPlan", Input: "nil context", Want: vk.ErrInvalid, Msg: "reduce: nil context",
			Call: func() error { _, err := reduce.NewPlan(nil, n, reduce.Reduce{}); return err }},
		{Entry: "NewPlan", Input: "an unknown operation", Want: vk.ErrInvalid, Msg: "unknown operation 5", Call: plan(n, reduce.Reduce{Op: 5})},
		{Entry: "NewPlan", Input: "an int64 element", Want: vk.ErrInvalid, Msg: "the element type must be u32, i32, f32 or u64",
			Call: plan(n, reduce.Reduce{Elem: vkcompact.Plain(vkcompact.Int64)})},
		{Entry: "NewPlan", Input: "a struct element", Want: vk.ErrInvalid, Msg: "elements are plain values",
			Call: plan(n, reduce.Reduce{Elem: vkcompact.Struct(16, 4, vkcompact.Float32)})},
		{Entry: "NewPlan", Input: "too many elements", Want: vk.ErrInvalid, Msg: "elements: at most", Call: plan(1<<33, reduce.Reduce{})},
		{Entry: "NewPlan", Input: "an unknown path", Want: vk.ErrInvalid, Msg: "unknown path 7", Call: plan(n, reduce.Reduce{Options: reduce.Options{Path: 7}})},
		{Entry: "NewPlan", Input: "spins", Want: vk.ErrInvalid, Msg: "a reduction has no look-back", Call: plan(n, reduce.Reduce{Options: reduce.Options{Spins: 2}})},
		{Entry: "NewPlan", Input: "too many loads", Want: vk.ErrInvalid, Msg: "loads per lane: at most 4", Call: plan(n, reduce.Reduce{Options: reduce.Options{LoadsPerLane: 9}})},
		{Entry: "NewPlan", Input: "a workgroup of no whole subgroups", Want: vk.ErrInvalid, Msg: "want a multiple of the largest subgroup size",
			Call: plan(n, reduce.Reduce{Options: reduce.Options{WorkgroupSize: 3}})},
		{Entry: "Record", Input: "nil plan", Want: vk.ErrInvalid, Msg: "reduce: nil Plan", Call: record(nil, func(*reduce.Buffers) {})},
		{Entry: "Run", Input: "nil plan", Want: vk.ErrInvalid, Msg: "reduce: nil Plan",
			Call: func() error { var p *reduce.Plan; _, err := p.Run(good()); return err }},
		{Entry: "Record", Input: "no source", Want: vk.ErrInvalid, Msg: "no source buffer", Call: record(p, func(b *reduce.Buffers) { b.Src = vk.Range{} })},
		{Entry: "Record", Input: "source too small", Want: vk.ErrInvalid, Msg: "source range of 3996 bytes: 4000 needed",
			Call: record(p, func(b *reduce.Buffers) { b.Src = src.Range(0, n*4-4) })},
		{Entry: "Record", Input: "source not aligned", Want: vk.ErrInvalid, Msg: "source offset 4 is not a multiple of minStorageBufferOffsetAlignment",
			Call: record(p, func(b *reduce.Buffers) { b.Src = src.Range(4, n*4) })},
		{Entry: "Record", Input: "source of another context", Want: vk.ErrInvalid, Msg: "source: the buffer belongs to another context",
			Call: record(p, func(b *reduce.Buffers) { b.Src = foreign.All() })},
		{Entry: "Record", Input: "result too small", Want: vk.ErrInvalid, Msg: "result range of 12 bytes: 16 needed",
			Call: record(p, func(b *reduce.Buffers) { b.Result = res.Range(0, 12) })},
		{Entry: "Record", Input: "scratch too small", Want: vk.ErrInvalid, Msg: "scratch range of",
			Call: record(p, func(b *reduce.Buffers) { b.Scratch = scratch.Range(0, p.ScratchSize()-16) })},
		{Entry: "Record", Input: "result overlapping the scratch", Want: vk.ErrInvalid, Msg: "the result and scratch ranges overlap",
			Call: record(p, func(b *reduce.Buffers) { b.Result = scratch.Range(0, reduce.ResultSize) })},
		{Entry: "Record", Input: "a count of 8 bytes", Want: vk.ErrInvalid, Msg: "count range of 8 bytes",
			Call: record(p, func(b *reduce.Buffers) { b.Count = res.Range(16, 8) })},
		{Entry: "Record", Input: "a count at byte 2", Want: vk.ErrInvalid, Msg: "count offset 2 is not a multiple of 4",
			Call: record(p, func(b *reduce.Buffers) { b.Count = res.Range(2, 4) })},
		{Entry: "RecordTimed", Input: "a timer of 2 queries", Want: vk.ErrInvalid, Msg: "needs a timer of 3 queries; it has 2",
			Call: func() error {
				return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.RecordTimed(r, good(), timer) })
			}},
		{Entry: "Record", Input: "a plan of another context", Want: vk.ErrInvalid, Msg: "the plan was made for another context",
			Call: func() error {
				return pipeline.Run(other, func(r *pipeline.Recorder) { p.Record(r, good()) })
			}},
		{Entry: "ReduceSlice", Input: "a type not the slice's", Want: vk.ErrInvalid, Msg: "does not match the elements' Go type",
			Call: func() error {
				_, _, err := reduce.ReduceSlice(ctx, []float32{1}, reduce.Reduce{Elem: vkcompact.Plain(vkcompact.Uint32)})
				return err
			}},
		{Entry: "ReduceSlice", Input: "nil context", Want: vk.ErrInvalid, Msg: "reduce: nil context",
			Call: func() error { _, _, err := reduce.ReduceSlice(nil, []uint32{1}, reduce.Reduce{}); return err }},
	}
	watched := map[*vk.Buffer][]byte{src: vktest.PoisonBytes(src.Size()), res: vktest.PoisonBytes(res.Size())}
	badinput.CheckAll(t, cases, watched, ctx.Info().MinStorageBufferOffsetAlignment)
}

// TestSegmentedBadInput: each bad argument to the segmented reduction's
// entry points is refused with an error naming it, and the caller's
// buffers are left alone.
func TestSegmentedBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	const n, segs = 1000, 10
	p, err := reduce.NewSegmentedPlan(ctx, n, segs, reduce.Segmented{})
	if err != nil {
		t.Fatal(err)
	}
	src := vktest.NewPoisoned(t, ctx, n*4)
	off := vktest.NewPoisoned(t, ctx, 4*(segs+1))
	dst := vktest.NewPoisoned(t, ctx, 4*segs+256)
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	good := func() reduce.SegmentedBuffers {
		return reduce.SegmentedBuffers{Src: src.All(), Offsets: off.All(), Dst: dst.Range(0, 4*segs), Scratch: scratch.All()}
	}
	record := func(p *reduce.SegmentedPlan, edit func(b *reduce.SegmentedBuffers)) func() error {
		return func() error {
			b := good()
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	slice := func(data []uint32, offsets []uint32) func() error {
		return func() error { _, err := reduce.ReduceSegmentsSlice(ctx, data, offsets, reduce.Segmented{}); return err }
	}
	cases := []badinput.Case{
		{Entry: "NewSegmentedPlan", Input: "nil context", Want: vk.ErrInvalid, Msg: "reduce: nil context",
			Call: func() error { _, err := reduce.NewSegmentedPlan(nil, n, segs, reduce.Segmented{}); return err }},
		{Entry: "NewSegmentedPlan", Input: "argmax", Want: vk.ErrInvalid, Msg: "the op must be sum, min or max",
			Call: func() error {
				_, err := reduce.NewSegmentedPlan(ctx, n, segs, reduce.Segmented{Op: reduce.ArgMax})
				return err
			}},
		{Entry: "NewSegmentedPlan", Input: "past one binding", Want: vk.ErrInvalid, Msg: "exceed one binding",
			Call: func() error {
				_, err := reduce.NewSegmentedPlan(ctx, uint64(ctx.Info().MaxStorageBufferRange)/4+1, segs, reduce.Segmented{})
				return err
			}},
		{Entry: "Record", Input: "nil plan", Want: vk.ErrInvalid, Msg: "reduce: nil SegmentedPlan", Call: record(nil, func(*reduce.SegmentedBuffers) {})},
		{Entry: "Record", Input: "offsets too small", Want: vk.ErrInvalid, Msg: "offsets range of 40 bytes: 44 needed",
			Call: record(p, func(b *reduce.SegmentedBuffers) { b.Offsets = off.Range(0, 40) })},
		{Entry: "Record", Input: "no destination", Want: vk.ErrInvalid, Msg: "no destination buffer",
			Call: record(p, func(b *reduce.SegmentedBuffers) { b.Dst = vk.Range{} })},
		{Entry: "Record", Input: "destination overlapping the offsets", Want: vk.ErrInvalid, Msg: "the offsets and destination ranges overlap",
			Call: record(p, func(b *reduce.SegmentedBuffers) { b.Dst = off.Range(0, 4*segs) })},
		{Entry: "Record", Input: "no scratch", Want: vk.ErrInvalid, Msg: "no scratch buffer",
			Call: record(p, func(b *reduce.SegmentedBuffers) { b.Scratch = vk.Range{} })},
		{Entry: "ReduceSegmentsSlice", Input: "no offsets", Want: vk.ErrInvalid, Msg: "no offsets: segments need segments+1 offsets", Call: slice([]uint32{1}, nil)},
		{Entry: "ReduceSegmentsSlice", Input: "an offset past the elements", Want: vk.ErrInvalid, Msg: "offset 1 is 5, past the 3 elements",
			Call: slice([]uint32{1, 2, 3}, []uint32{0, 5})},
		{Entry: "ReduceSegmentsSlice", Input: "offsets that decrease", Want: vk.ErrInvalid, Msg: "offset 2 (1) is below offset 1 (2)",
			Call: slice([]uint32{1, 2, 3}, []uint32{0, 2, 1, 3})},
		{Entry: "ReduceSegmentsSlice", Input: "a type not the slice's", Want: vk.ErrInvalid, Msg: "does not match the elements' Go type",
			Call: func() error {
				_, err := reduce.ReduceSegmentsSlice(ctx, []int32{1}, []uint32{0, 1}, reduce.Segmented{Elem: vkcompact.Plain(vkcompact.Uint64)})
				return err
			}},
	}
	watched := map[*vk.Buffer][]byte{src: vktest.PoisonBytes(src.Size()), off: vktest.PoisonBytes(off.Size()), dst: vktest.PoisonBytes(dst.Size())}
	badinput.CheckAll(t, cases, watched, ctx.Info().MinStorageBufferOffsetAlignment)
}

// TestByKeyBadInput: each bad argument to the reduction by key's entry
// points is refused with an error naming it, and the caller's buffers
// are left alone.
func TestByKeyBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	const n = 1000
	p, err := reduce.NewByKeyPlan(ctx, n, reduce.ByKey{})
	if err != nil {
		t.Fatal(err)
	}
	keys, values := vktest.NewPoisoned(t, ctx, n*4), vktest.NewPoisoned(t, ctx, n*4)
	keysOut, valuesOut := vktest.NewPoisoned(t, ctx, n*4), vktest.NewPoisoned(t, ctx, n*4)
	res := vktest.NewPoisoned(t, ctx, 256)
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	good := func() reduce.ByKeyBuffers {
		return reduce.ByKeyBuffers{Keys: keys.All(), Values: values.All(), KeysOut: keysOut.All(), ValuesOut: valuesOut.All(),
			Result: res.Range(0, reduce.ByKeyResultSize), Scratch: scratch.All()}
	}
	record := func(p *reduce.ByKeyPlan, edit func(b *reduce.ByKeyBuffers)) func() error {
		return func() error {
			b := good()
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	cases := []badinput.Case{
		{Entry: "NewByKeyPlan", Input: "nil context", Want: vk.ErrInvalid, Msg: "reduce: nil context",
			Call: func() error { _, err := reduce.NewByKeyPlan(nil, n, reduce.ByKey{}); return err }},
		{Entry: "NewByKeyPlan", Input: "uint64 values", Want: vk.ErrInvalid, Msg: "the values' type must be u32, i32 or f32",
			Call: func() error { _, err := reduce.NewByKeyPlan(ctx, n, reduce.ByKey{Value: vkcompact.Uint64}); return err }},
		{Entry: "NewByKeyPlan", Input: "the three phases", Want: vk.ErrInvalid, Msg: "it runs in a single pass only",
			Call: func() error {
				_, err := reduce.NewByKeyPlan(ctx, n, reduce.ByKey{Options: reduce.Options{Path: vkcompact.PathThreePhase}})
				return err
			}},
		{Entry: "Record", Input: "nil plan", Want: vk.ErrInvalid, Msg: "reduce: nil ByKeyPlan", Call: record(nil, func(*reduce.ByKeyBuffers) {})},
		{Entry: "Record", Input: "values too small", Want: vk.ErrInvalid, Msg: "values range of 3996 bytes: 4000 needed",
			Call: record(p, func(b *reduce.ByKeyBuffers) { b.Values = values.Range(0, n*4-4) })},
		{Entry: "Record", Input: "no keys output", Want: vk.ErrInvalid, Msg: "no keys output buffer",
			Call: record(p, func(b *reduce.ByKeyBuffers) { b.KeysOut = vk.Range{} })},
		{Entry: "Record", Input: "values output over the keys", Want: vk.ErrInvalid, Msg: "the keys and values output ranges overlap",
			Call: record(p, func(b *reduce.ByKeyBuffers) { b.ValuesOut = keys.All() })},
		{Entry: "Record", Input: "result too small", Want: vk.ErrInvalid, Msg: "result range of 16 bytes: 48 needed",
			Call: record(p, func(b *reduce.ByKeyBuffers) { b.Result = res.Range(0, 16) })},
		{Entry: "ReduceByKeySlice", Input: "values of another length", Want: vk.ErrInvalid, Msg: "3 values for 2 keys",
			Call: func() error {
				_, _, err := reduce.ReduceByKeySlice(ctx, []uint32{1, 2}, []float32{1, 2, 3}, reduce.ByKey{})
				return err
			}},
		{Entry: "ReduceByKeySlice", Input: "a value type not the slice's", Want: vk.ErrInvalid, Msg: "ByKey.Value i32 does not match",
			Call: func() error {
				_, _, err := reduce.ReduceByKeySlice(ctx, []uint32{1}, []float32{1}, reduce.ByKey{Value: vkcompact.Int32})
				return err
			}},
	}
	watched := map[*vk.Buffer][]byte{keys: vktest.PoisonBytes(keys.Size()), values: vktest.PoisonBytes(values.Size()),
		keysOut: vktest.PoisonBytes(keysOut.Size()), valuesOut: vktest.PoisonBytes(valuesOut.Size())}
	badinput.CheckAll(t, cases, watched, ctx.Info().MinStorageBufferOffsetAlignment)
}
