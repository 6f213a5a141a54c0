package compact_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestUniqueBadInput: the neighbour tests and Indices refuse what does
// not apply, naming it, and leave the caller's buffers alone.
func TestUniqueBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	const n = 1000
	src := vktest.NewPoisoned(t, ctx, n*4)
	dst := vktest.NewPoisoned(t, ctx, n*4)
	res := vktest.NewPoisoned(t, ctx, compact.ResultSize)
	plan := func(sel compact.Selection) func() error {
		return func() error { _, err := compact.NewPlan(ctx, n, sel); return err }
	}
	unique := compact.Selection{Keep: compact.KeepUnique()}
	indices := compact.Selection{Keep: compact.KeepUnique(), Output: compact.OutputIndices}
	p, err := compact.NewPlan(ctx, n, indices)
	if err != nil {
		t.Fatal(err)
	}
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	cases := []badinput.Case{
		{Entry: "NewPlan", Input: "an unknown equality", Want: vk.ErrInvalid, Msg: "unknown equality 7",
			Call: plan(compact.Selection{Keep: compact.Keep{Op: compact.FirstOfRun, Equal: 7}})},
		{Entry: "NewPlan", Input: "Indices with a split", Want: vk.ErrInvalid, Msg: "apply to a compaction, not a split",
			Call: plan(compact.Selection{Keep: compact.KeepUnique(), Output: compact.OutputIndices, Split: true})},
		{Entry: "NewPlan", Input: "Indices in place", Want: vk.ErrInvalid, Msg: "they cannot be written in place",
			Call: plan(compact.Selection{Keep: compact.KeepUnique(), Output: compact.OutputIndices, InPlace: true})},
		{Entry: "NewPlanSegmentLimit", Input: "unique past one segment", Want: vk.ErrInvalid, Msg: "needs the input in one binding",
			Call: func() error {
				sel := unique
				sel.Path = vkcompact.PathThreePhase
				_, err := compact.NewPlanSegmentLimit(ctx, n, sel, 1024)
				return err
			}},
		{Entry: "NewPlanWindowLimit", Input: "indices past one window", Want: vk.ErrInvalid, Msg: "needs the input in one binding",
			Call: func() error {
				sel := compact.Selection{Keep: compact.KeepNonZero(), Output: compact.OutputIndices, Options: compact.Options{Path: vkcompact.PathSinglePass}}
				_, err := compact.NewPlanWindowLimit(ctx, 1<<16, sel, 64<<10)
				return err
			}},
		{Entry: "Record", Input: "indices to a destination too small", Want: vk.ErrInvalid, Msg: "destination range of 3996 bytes: 4000 needed",
			Call: func() error {
				b := compact.Buffers{Src: src.All(), Dst: dst.Range(0, n*4-4), Result: res.All(), Scratch: scratch.All()}
				return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
			}},
		{Entry: "NewPlan", Input: "an unknown output", Want: vk.ErrInvalid, Msg: "unknown output 3",
			Call: plan(compact.Selection{Keep: compact.KeepUnique(), Output: 3})},
		{Entry: "Record", Input: "Elements without OutputBoth", Want: vk.ErrInvalid, Msg: "Elements is for Selection.Output OutputBoth",
			Call: func() error {
				b := compact.Buffers{Src: src.All(), Dst: dst.All(), Result: res.All(), Scratch: scratch.All(), Elements: dst.All()}
				return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
			}},
		{Entry: "SelectSlice", Input: "Indices", Want: vk.ErrInvalid, Msg: "use SelectIndicesSlice",
			Call: func() error { _, _, err := compact.SelectSlice(ctx, []uint32{1}, indices); return err }},
		{Entry: "SelectIndicesSlice", Input: "flags", Want: vk.ErrInvalid, Msg: "SelectIndicesSlice takes no flags",
			Call: func() error {
				_, _, err := compact.SelectIndicesSlice(ctx, []uint32{1}, compact.Selection{Keep: compact.KeepFlagged(4)})
				return err
			}},
	}
	watched := map[*vk.Buffer][]byte{src: vktest.PoisonBytes(src.Size()), dst: vktest.PoisonBytes(dst.Size())}
	badinput.CheckAll(t, cases, watched, uint64(ctx.Info().MinStorageBufferOffsetAlignment))
}

// TestUniqueKeepString names the neighbour tests.
func TestUniqueKeepString(t *testing.T) {
	for k, want := range map[compact.Keep]string{
		compact.KeepUnique():                         "first of each run (keys equal)",
		compact.KeepRunEdges(compact.EqualElements):  "edges of runs longer than one (elements equal)",
		compact.KeepFirstOfRun(compact.EqualKeyBits): "first of each run (key bits equal)",
		{Op: compact.FirstOfRun, Equal: 9}:           "first of each run (Equality(9) equal)",
	} {
		if got := k.String(); got != want {
			t.Errorf("%+v: %q, want %q", k, got, want)
		}
	}
	if compact.FirstOfRun.String() != "first-of-run" || compact.RunEdges.String() != "run-edges" {
		t.Errorf("ops: %v %v", compact.FirstOfRun, compact.RunEdges)
	}
}

// TestUniqueByKeyBadInput: unique by key (Selection.Values) refuses what
// does not apply, naming it, and leaves the caller's buffers alone.
func TestUniqueByKeyBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	const n = 1000
	src := vktest.NewPoisoned(t, ctx, n*4)
	dst := vktest.NewPoisoned(t, ctx, n*4)
	vals := vktest.NewPoisoned(t, ctx, n*8)
	out := vktest.NewPoisoned(t, ctx, n*8)
	res := vktest.NewPoisoned(t, ctx, compact.ResultSize)
	plan := func(sel compact.Selection) func() error {
		return func() error { _, err := compact.NewPlan(ctx, n, sel); return err }
	}
	byKey := compact.Selection{Keep: compact.KeepUnique(), Values: vkcompact.Uint64}
	with := func(f func(*compact.Selection)) compact.Selection { s := byKey; f(&s); return s }
	p, err := compact.NewPlan(ctx, n, byKey)
	if err != nil {
		t.Fatal(err)
	}
	unique, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepUnique()})
	if err != nil {
		t.Fatal(err)
	}
	scratch := vktest.NewPoisoned(t, ctx, max(p.ScratchSize(), unique.ScratchSize()))
	record := func(p *compact.Plan, b compact.Buffers) func() error {
		b.Src, b.Dst, b.Result, b.Scratch = src.All(), dst.All(), res.All(), scratch.All()
		return func() error { return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }) }
	}
	cases := []badinput.Case{
		{Entry: "NewPlan", Input: "an unknown values type", Want: vk.ErrInvalid, Msg: "unknown values type 9",
			Call: plan(with(func(s *compact.Selection) { s.Values = 9 }))},
		{Entry: "NewPlan", Input: "values beside another test", Want: vk.ErrInvalid, Msg: "move beside a unique selection (FirstOfRun), not nonzero",
			Call: plan(with(func(s *compact.Selection) { s.Keep = compact.KeepNonZero() }))},
		{Entry: "NewPlan", Input: "values beside the run edges", Want: vk.ErrInvalid, Msg: "move beside a unique selection",
			Call: plan(with(func(s *compact.Selection) { s.Keep = compact.KeepRunEdges(compact.EqualKeys) }))},
		{Entry: "NewPlan", Input: "values with a split", Want: vk.ErrInvalid, Msg: "values (Selection.Values) apply to a compaction, not a split",
			Call: plan(with(func(s *compact.Selection) { s.Split, s.ReverseRejected = true, true }))},
		{Entry: "NewPlan", Input: "values in place", Want: vk.ErrInvalid, Msg: "not InPlace",
			Call: plan(with(func(s *compact.Selection) { s.InPlace = true }))},
		{Entry: "NewPlan", Input: "values with indices", Want: vk.ErrInvalid, Msg: "not with Output indices and elements",
			Call: plan(with(func(s *compact.Selection) { s.Output = compact.OutputBoth }))},
		{Entry: "NewPlanSegmentLimit", Input: "values past one segment", Want: vk.ErrInvalid, Msg: "values (Selection.Values) need one binding; 1000 values of 8 bytes exceed it",
			Call: func() error {
				_, err := compact.NewPlanSegmentLimit(ctx, n, with(func(s *compact.Selection) { s.Path = vkcompact.PathThreePhase }), 6000)
				return err
			}},
		{Entry: "NewPlanWindowLimit", Input: "values past one window", Want: vk.ErrInvalid, Msg: "values (Selection.Values) need one binding",
			Call: func() error {
				_, err := compact.NewPlanWindowLimit(ctx, n, with(func(s *compact.Selection) { s.Path = vkcompact.PathSinglePass }), 6000)
				return err
			}},
		{Entry: "NewPlan", Input: "values past the device's one binding", Want: vk.ErrInvalid, Msg: "values (Selection.Values) need one binding",
			Call: func() error {
				// Keys of 4 bytes that one binding holds, values of 8 that it does not.
				_, err := compact.NewPlan(ctx, uint64(ctx.Info().MaxStorageBufferRange)/8+1, byKey)
				return err
			}},
		{Entry: "Record", Input: "no values", Want: vk.ErrInvalid, Msg: "no values buffer",
			Call: record(p, compact.Buffers{ValuesOut: out.All()})},
		{Entry: "Record", Input: "no values out", Want: vk.ErrInvalid, Msg: "no values out buffer",
			Call: record(p, compact.Buffers{Values: vals.All()})},
		{Entry: "Record", Input: "values too small", Want: vk.ErrInvalid, Msg: "values range of 7992 bytes: 8000 needed",
			Call: record(p, compact.Buffers{Values: vals.Range(0, n*8-8), ValuesOut: out.All()})},
		{Entry: "Record", Input: "values out too small", Want: vk.ErrInvalid, Msg: "values out range of 4000 bytes: 8000 needed",
			Call: record(p, compact.Buffers{Values: vals.All(), ValuesOut: out.Range(0, n*4)})},
		{Entry: "Record", Input: "values out over the values", Want: vk.ErrInvalid, Msg: "the values and values out ranges overlap",
			Call: record(p, compact.Buffers{Values: vals.All(), ValuesOut: vals.All()})},
		{Entry: "Record", Input: "values without Selection.Values", Want: vk.ErrInvalid, Msg: "Values and ValuesOut are for Selection.Values",
			Call: record(unique, compact.Buffers{Values: vals.All(), ValuesOut: out.All()})},
		{Entry: "UniqueByKeySlice", Input: "fewer values than keys", Want: vk.ErrInvalid, Msg: "2 values for 3 keys",
			Call: func() error {
				_, _, _, err := compact.UniqueByKeySlice(ctx, []uint32{1, 2, 3}, []float32{1, 2}, compact.Selection{})
				return err
			}},
		{Entry: "UniqueByKeySlice", Input: "Values not the values' type", Want: vk.ErrInvalid, Msg: "Selection.Values is f32; the values are u32",
			Call: func() error {
				_, _, _, err := compact.UniqueByKeySlice(ctx, []uint32{1}, []uint32{1}, compact.Selection{Values: vkcompact.Float32})
				return err
			}},
		{Entry: "UniqueByKeySlice", Input: "another test", Want: vk.ErrInvalid, Msg: "asks for another test",
			Call: func() error {
				_, _, _, err := compact.UniqueByKeySlice(ctx, []uint32{1}, []uint32{1}, compact.Selection{Keep: compact.KeepMask(1)})
				return err
			}},
		{Entry: "UniqueByKeySlice", Input: "indices", Want: vk.ErrInvalid, Msg: "returns keys and values, not Output indices",
			Call: func() error {
				_, _, _, err := compact.UniqueByKeySlice(ctx, []uint32{1}, []uint32{1}, compact.Selection{Output: compact.OutputIndices})
				return err
			}},
		{Entry: "UniqueByKeySlice", Input: "keys of another type than Elem's", Want: vk.ErrInvalid, Msg: "Selection.Elem",
			Call: func() error {
				_, _, _, err := compact.UniqueByKeySlice(ctx, []float32{1}, []uint32{1}, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32)})
				return err
			}},
	}
	watched := map[*vk.Buffer][]byte{src: vktest.PoisonBytes(src.Size()), dst: vktest.PoisonBytes(dst.Size()), out: vktest.PoisonBytes(out.Size())}
	badinput.CheckAll(t, cases, watched, uint64(ctx.Info().MinStorageBufferOffsetAlignment))
}
