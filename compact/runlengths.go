package compact

import (
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/keepop"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Run lengths (internal/keepop.RunLengths): a FirstOfRun compaction that
// writes each run's length to Dst and its first element to
// Buffers.Elements, for package runs' Encode. Either path's pass stages
// its kept indices, writes each run's length but the last of each tile
// (single pass) or chunk (three phases), whose slot gets its first index,
// and a record per tile or chunk: its first kept slot and index. A last
// dispatch (select_lengths) fixes those slots from the records and the
// result block. Its scratch is the records, two words per tile or
// chunk.

// outputRunLengths is the run lengths' Output.
const outputRunLengths Output = keepop.RunLengths

// lengthsWorkgroup is select_lengths's workgroup size: any device runs
// 64 invocations (Vulkan's minimum is 128).
const lengthsWorkgroup = 64

// runLengths is the run lengths' part of a plan: its records in the
// scratch, and the fix-up.
type runLengths struct {
	records uint32 // tiles or chunks
	recs    region
	fix     pipeline.TypedPipeline[lengthsPush, lengthsBindings]
}

// newRunLengths places records records at byte off of the scratch (a
// multiple of 256) and returns the scratch's end.
func newRunLengths(records uint32, off uint64) (*runLengths, uint64) {
	l := &runLengths{records: records, recs: region{off, uint64(records) * 8}}
	return l, off + align.Up(l.recs.size, 256)
}

// pipelines creates the fix-up's pipeline on ctx.
func (l *runLengths) pipelines(ctx *vk.Context) error {
	var err error
	l.fix, err = lengthsKernel.Get(pipeline.For(ctx), lengthsSpec{WorkgroupSize: lengthsWorkgroup})
	return err
}

// records returns the records' range of the scratch.
func (l *runLengths) recordsIn(scratch vk.Range) vk.Range {
	return scratch.Sub(l.recs.off, l.recs.size)
}

// record records the fix-up of the lengths (Dst, n of them) from the
// records in scratch and the result block, after the pass.
func (l *runLengths) record(r *pipeline.Recorder, n uint64, b Buffers) {
	if n == 0 {
		return // no run: the pass wrote the result block
	}
	l.fix.Dispatch(r, align.CeilDiv(uint64(l.records), lengthsWorkgroup), lengthsPush{Records: l.records},
		lengthsBindings{Records: l.recordsIn(b.Scratch), Lengths: b.Dst.Sub(0, n*4), Result: b.Result.Sub(0, ResultSize)})
}

// lengthsPhase is the phase the fix-up adds (Plan.Phases).
const lengthsPhase = "lengths"

// withLengths returns phases with the fix-up's after them where l is set.
func withLengths(phases []string, l *runLengths) []string {
	if l == nil {
		return phases
	}
	return append(phases[:len(phases):len(phases)], lengthsPhase)
}

// checkRunLengths refuses run lengths where they do not apply: a
// compaction out of place (checkIndices) keeping the first of each run.
func checkRunLengths(sel Selection) error {
	if sel.Keep.Op != FirstOfRun {
		return errs.Invalidf("compact: run lengths apply to a FirstOfRun selection, not %v", sel.Keep)
	}
	return nil
}
