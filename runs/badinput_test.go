package runs_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// TestBadInput: each bad argument is refused with an error naming it,
// before any GPU work, and the caller's buffers are left alone.
func TestBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	const n = 1000
	enc, err := runs.NewPlan(ctx, n, runs.Encoding{})
	if err != nil {
		t.Fatal(err)
	}
	ntr, err := runs.NewPlan(ctx, n, runs.Encoding{Op: runs.NonTrivial})
	if err != nil {
		t.Fatal(err)
	}
	src := vktest.NewPoisoned(t, ctx, n*4+256)
	keys := vktest.NewPoisoned(t, ctx, n*4)
	lengths := vktest.NewPoisoned(t, ctx, n*4)
	res := vktest.NewPoisoned(t, ctx, runs.ResultSize)
	scratch := vktest.NewPoisoned(t, ctx, max(enc.ScratchSize(), ntr.ScratchSize()))
	good := func() runs.Buffers {
		return runs.Buffers{Src: src.Range(0, n*4), Keys: keys.All(), Lengths: lengths.All(), Result: res.All(), Scratch: scratch.All()}
	}
	record := func(p *runs.Plan, edit func(b *runs.Buffers)) func() error {
		return func() error {
			b := good()
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	plan := func(n uint64, enc runs.Encoding) func() error {
		return func() error { _, err := runs.NewPlan(ctx, n, enc); return err }
	}
	cases := []badinput.Case{
		{Entry: "NewPlan", Input: "nil context", Want: vk.ErrInvalid, Msg: "runs: nil context",
			Call: func() error { _, err := runs.NewPlan(nil, n, runs.Encoding{}); return err }},
		{Entry: "NewPlan", Input: "an unknown operation", Want: vk.ErrInvalid, Msg: "unknown operation 9", Call: plan(n, runs.Encoding{Op: 9})},
		{Entry: "NewPlan", Input: "an unknown equality", Want: vk.ErrInvalid, Msg: "unknown equality 4", Call: plan(n, runs.Encoding{Equal: 4})},
		{Entry: "NewPlan", Input: "a bad layout", Want: vk.ErrInvalid, Msg: "element stride 6 bytes", Call: plan(n, runs.Encoding{Elem: vkcompact.Struct(6, 0, vkcompact.Uint32)})},
		{Entry: "NewPlan", Input: "too many elements", Want: vk.ErrInvalid, Msg: "elements: at most", Call: plan(1<<33, runs.Encoding{})},
		{Entry: "NewPlan", Input: "the single pass past its elements", Want: vk.ErrInvalid, Msg: "single pass does not apply",
			Call: plan(vkcompact.MaxSinglePassElements+1, runs.Encoding{Options: compact.Options{Path: vkcompact.PathSinglePass}})},
		{Entry: "NewPlan", Input: "an unknown Lengths", Want: vk.ErrInvalid, Msg: "unknown Lengths 3", Call: plan(n, runs.Encoding{Lengths: 3})},
		{Entry: "NewPlan", Input: "NonTrivial with LengthsInSelection", Want: vk.ErrInvalid, Msg: "LengthsInSelection applies to Encode",
			Call: plan(n, runs.Encoding{Op: runs.NonTrivial, Lengths: runs.LengthsInSelection})},
		{Entry: "NewPlan", Input: "LengthsInSelection with the scattered write", Want: vk.ErrInvalid, Msg: "run lengths are found in the staged write",
			Call: plan(n, runs.Encoding{Lengths: runs.LengthsInSelection, Options: compact.Options{Path: vkcompact.PathThreePhase, Write: compact.WriteScattered}})},
		{Entry: "Record", Input: "nil plan", Want: vk.ErrInvalid, Msg: "runs: nil Plan", Call: record(nil, func(*runs.Buffers) {})},
		{Entry: "Run", Input: "nil plan", Want: vk.ErrInvalid, Msg: "runs: nil Plan",
			Call: func() error { var p *runs.Plan; _, err := p.Run(good()); return err }},
		{Entry: "Record", Input: "no source", Want: vk.ErrInvalid, Msg: "no source buffer", Call: record(enc, func(b *runs.Buffers) { b.Src = vk.Range{} })},
		{Entry: "Record", Input: "no keys", Want: vk.ErrInvalid, Msg: "no keys buffer", Call: record(enc, func(b *runs.Buffers) { b.Keys = vk.Range{} })},
		{Entry: "Record", Input: "lengths too small", Want: vk.ErrInvalid, Msg: "lengths range of 3996 bytes: 4000 needed",
			Call: record(enc, func(b *runs.Buffers) { b.Lengths = lengths.Range(0, n*4-4) })},
		{Entry: "Record", Input: "scratch too small", Want: vk.ErrInvalid, Msg: "scratch range of",
			Call: record(enc, func(b *runs.Buffers) { b.Scratch = scratch.Range(0, enc.ScratchSize()-4) })},
		{Entry: "Record", Input: "result too small", Want: vk.ErrInvalid, Msg: "result range of 44 bytes",
			Call: record(enc, func(b *runs.Buffers) { b.Result = res.Range(0, 44) })},
		{Entry: "Record", Input: "keys overlapping the source", Want: vk.ErrInvalid, Msg: "the source and keys ranges overlap",
			Call: record(enc, func(b *runs.Buffers) { b.Keys = src.Range(0, n*4) })},
		{Entry: "Record", Input: "offsets given to Encode", Want: vk.ErrInvalid, Msg: "leave Offsets empty",
			Call: record(enc, func(b *runs.Buffers) { b.Offsets = keys.All() })},
		{Entry: "Record", Input: "keys given to NonTrivial", Want: vk.ErrInvalid, Msg: "leave Keys empty", Call: record(ntr, func(*runs.Buffers) {})},
		{Entry: "Record", Input: "no offsets for NonTrivial", Want: vk.ErrInvalid, Msg: "no offsets buffer",
			Call: record(ntr, func(b *runs.Buffers) { b.Keys = vk.Range{} })},
		{Entry: "Record", Input: "a count of 8 bytes", Want: vk.ErrInvalid, Msg: "count range of 8 bytes",
			Call: record(enc, func(b *runs.Buffers) { b.Count = res.Range(0, 8) })},
		{Entry: "Record", Input: "source not aligned", Want: vk.ErrInvalid, Msg: "source offset 4 is not a multiple of minStorageBufferOffsetAlignment",
			Call: record(enc, func(b *runs.Buffers) { b.Src = src.Range(4, n*4) })},
		{Entry: "EncodeSlice", Input: "a struct with no Elem", Want: vk.ErrInvalid, Msg: "say where its key is",
			Call: func() error {
				_, _, err := runs.EncodeSlice(ctx, []struct{ A, B uint32 }{{1, 2}}, runs.Encoding{})
				return err
			}},
		{Entry: "NonTrivialSlice", Input: "a key type not the slice's", Want: vk.ErrInvalid, Msg: "does not match",
			Call: func() error {
				_, _, err := runs.NonTrivialSlice(ctx, []float32{1}, runs.Encoding{Elem: vkcompact.Plain(vkcompact.Uint32)})
				return err
			}},
	}
	watched := map[*vk.Buffer][]byte{src: vktest.PoisonBytes(src.Size()), keys: vktest.PoisonBytes(keys.Size()), lengths: vktest.PoisonBytes(lengths.Size())}
	badinput.CheckAll(t, cases, watched, uint64(ctx.Info().MinStorageBufferOffsetAlignment))
}
