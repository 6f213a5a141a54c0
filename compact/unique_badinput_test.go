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
