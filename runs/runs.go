package runs

import (
	"fmt"
	"slices"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/keepop"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Op is what a plan finds.
type Op uint8

const (
	// Encode writes each run's first element and its length.
	Encode Op = iota
	// NonTrivial writes the offset and the length of each run longer
	// than one.
	NonTrivial
)

// String names the operation.
func (o Op) String() string {
	switch o {
	case Encode:
		return "encode"
	case NonTrivial:
		return "non-trivial runs"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Result block layout: Record writes ResultSize bytes to Buffers.Result,
// as package compact lays out its own (compact.ResultSize).
const (
	ResultSize = compact.ResultSize
	// ResultRunsOffset holds the runs' count (uint32), followed by the
	// elements covered less the runs (uint32) and the elements covered
	// (uint32: n, or the GPU count).
	ResultRunsOffset = compact.ResultKeptOffset
	// ResultDispatchOffset holds a VkDispatchIndirectCommand covering the
	// runs with Encoding.GroupSize invocations per workgroup (x*y
	// workgroups past maxComputeWorkGroupCount[0], as compact's).
	ResultDispatchOffset = compact.ResultDispatchOffset
	// ResultDrawOffset holds a VkDrawIndirectCommand with vertexCount the
	// runs' count.
	ResultDrawOffset = compact.ResultDrawOffset
)

// Encoding describes a run-length encoding (Encode) or a search for the
// runs longer than one (NonTrivial).
type Encoding struct {
	Op Op
	// Elem is the elements' layout (a zero Elem is plain uint32 keys; the
	// slice helpers take it from their type).
	Elem vkcompact.Elem
	// Equal says when neighbours are equal: their keys by default
	// (compact.EqualKeys: IEEE 754 for floats, so a NaN is a run of its
	// own and -0.0 equals 0.0).
	Equal compact.Equality
	// Options tunes the first dispatch, a selection, as a selection's
	// (Path, Spins, Processors, WorkgroupSize, LoadsPerLane, Write); its
	// GroupSize is the invocations per workgroup of the caller's next
	// pass, for the dispatch arguments in this encoding's result block
	// (ResultDispatchOffset). Default 64.
	compact.Options
	// Lengths (Encode) chooses where the runs' lengths are found: in the
	// selection's own pass, or by runs_finish after it; LengthsAuto takes
	// the device class's choice (Tuning.Lengths). NonTrivial's are always
	// runs_finish's.
	Lengths Lengths
}

// Lengths chooses where Encode finds the runs' lengths.
type Lengths uint8

const (
	// LengthsAuto takes the device class's choice: in the selection on
	// GPUs (fewer bytes moved), by runs_finish on CPU devices (measured
	// faster there) and where the caller chose the scattered write
	// (compact.WriteScattered), which has no stage to find them in.
	LengthsAuto Lengths = iota
	// LengthsInSelection finds them in the selection's own pass: each
	// run's first element ends the run before it, its index less the
	// previous run's first, and a small last dispatch ends the last run
	// of each tile or chunk from the first run of the next one (the
	// selection's last phase, "lengths"). The run starts' indices are
	// neither written nor read back.
	LengthsInSelection
	// LengthsFinish has the selection write each run's first index to
	// the scratch, and a second dispatch (runs_finish) turn them into
	// lengths.
	LengthsFinish
)

// String names the choice.
func (l Lengths) String() string {
	switch l {
	case LengthsAuto:
		return "auto"
	case LengthsInSelection:
		return "in the selection"
	case LengthsFinish:
		return "finish"
	}
	return fmt.Sprintf("Lengths(%d)", uint8(l))
}

// Buffers are the ranges a recorded plan uses. Every offset must be a
// multiple of the device's minStorageBufferOffsetAlignment, but Count's, a
// multiple of 4 (as compact.Buffers.Count's).
type Buffers struct {
	Src vk.Range // n elements, read
	// Keys (Encode) has room for n elements: each run's first element.
	Keys vk.Range
	// Offsets (NonTrivial) has room for n/2 uint32s: each run's first
	// index.
	Offsets vk.Range
	// Lengths has room for n (Encode) or n/2 (NonTrivial) uint32s.
	Lengths vk.Range
	Result  vk.Range // ResultSize bytes, written
	// Scratch is Plan.ScratchSize bytes, read and written, as a
	// compact.Buffers' scratch (including its "Scratch between runs").
	Scratch vk.Range
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU, as compact.Buffers.Count: the plan's n is
	// then a capacity, and the runs are those of the first min(count, n)
	// elements.
	Count vk.Range
}

// Result is the result block as read back.
type Result struct {
	Runs  uint32 // the runs found (all of them, or those longer than one)
	Total uint32 // the elements covered: n, or the GPU count
}

// Plan is an encoding of n elements checked, tuned and sized for one
// context. It is immutable and safe for concurrent use.
type Plan struct {
	ctx  *vk.Context
	enc  Encoding
	n    uint64
	size uint64        // bytes per element
	sel  *compact.Plan // the first dispatch: indices of run starts or edges, or with LengthsInSelection the runs
	// choice is where the lengths are found: LengthsInSelection (the
	// selection alone, no finish) or LengthsFinish.
	choice Lengths
	wg     uint32 // runs_finish's workgroup size
	groups uint64 // and workgroups
	// The scratch: the selection's own from 0, then its result block at
	// selBlock and the selected indices at selIdx, each at a multiple of
	// 256 bytes; scratch bytes in all.
	selBlock, selIdx, scratch uint64
	finish                    pipeline.TypedPipeline[finishPush, finishBindings]
}

// NewPlan checks enc for n elements on ctx, plans its selection and
// creates its pipelines.
func NewPlan(ctx *vk.Context, n uint64, enc Encoding) (*Plan, error) {
	if ctx == nil {
		return nil, errs.Invalidf("runs: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if enc.Op > NonTrivial {
		return nil, errs.Invalidf("runs: unknown operation %d", enc.Op)
	}
	lengths, err := chooseLengths(ctx.Info(), enc)
	if err != nil {
		return nil, err
	}
	if enc.GroupSize == 0 {
		enc.GroupSize = 64
	}
	keep := compact.KeepFirstOfRun(enc.Equal)
	if enc.Op == NonTrivial {
		keep = compact.Keep{Op: compact.Op(keepop.RunEdges), Equal: enc.Equal}
	}
	sel := compact.Selection{Elem: enc.Elem, Keep: keep, Output: compact.OutputIndices, Options: enc.Options}
	switch {
	case lengths == LengthsInSelection:
		sel.Output = compact.Output(keepop.RunLengths) // the lengths and the runs' first elements, the keys
	case enc.Op == Encode:
		sel.Output = compact.OutputBoth // the runs' first elements, the keys, in the same pass
	}
	selPlan, err := compact.NewPlan(ctx, n, sel)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	p := &Plan{ctx: ctx, enc: enc, n: n, size: uint64(enc.Elem.Size()), sel: selPlan, choice: lengths}
	if lengths == LengthsInSelection {
		p.scratch = selPlan.ScratchSize()
		return p, nil
	}
	p.wg, p.groups = finishGrid(ctx.Info(), n)
	p.selBlock = align.Up(selPlan.ScratchSize(), 256)
	p.selIdx = p.selBlock + 256
	p.scratch = p.selIdx + align.Up(max(n*4, 4), 256)
	encode := uint32(0)
	if enc.Op == Encode {
		encode = 1
	}
	p.finish, err = finishKernel.Get(pipeline.For(ctx), finishSpec{WorkgroupSize: p.wg, Encode: encode})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// N returns the element count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return p.n
}

// ScratchSize returns the bytes of scratch Record needs: the selection's
// (compact.Plan.ScratchSize), and with LengthsFinish its result block
// and n indices.
func (p *Plan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.scratch
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	return Tuning{Selection: p.sel.Tuning(), Lengths: p.choice, FinishWorkgroupSize: p.wg, FinishWorkgroups: p.groups}
}

// Tuning is what a Plan chose: its selection's tuning and the shape of
// its second dispatch.
type Tuning struct {
	Selection compact.Tuning // the first dispatch's, a selection's
	// Lengths is where the lengths are found: LengthsInSelection or
	// LengthsFinish (NonTrivial's always).
	Lengths Lengths
	// FinishWorkgroupSize and FinishWorkgroups are the second dispatch's
	// (runs_finish) invocations per workgroup and workgroups; 0 with
	// LengthsInSelection, which has none.
	FinishWorkgroupSize uint32
	FinishWorkgroups    uint64
}

// Record records the encoding into r's command buffer: the selection,
// then runs_finish, with a buffer barrier between them; with
// LengthsInSelection the selection alone (its last dispatch ends the
// last run of each tile or chunk). Errors, such as a range too small, are
// kept by r and returned by r.Err or pipeline.Run.
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, nil)
}

// finishPhases names the intervals RecordTimed measures with
// LengthsFinish.
var finishPhases = []string{"select", "finish"}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1. With LengthsFinish (and NonTrivial)
// they are "select" (the selection of run starts or edges) and "finish"
// (their lengths, keys or offsets, and the result block); with
// LengthsInSelection they are the selection's (compact.Plan.Phases, the
// last being "lengths", its fix-up of the tiles' or chunks' last runs).
func (p *Plan) Phases() []string {
	if p != nil && p.choice == LengthsInSelection {
		return p.sel.Phases()
	}
	return slices.Clone(finishPhases)
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i], so t needs
// len(Phases())+1 queries. t must be reset (Timer.Reset) earlier in the
// command buffer.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(errs.Invalidf("runs: RecordTimed needs a timer"))
		return
	}
	if need := uint32(len(p.Phases()) + 1); t.Count() < need {
		r.Fail(errs.Invalidf("runs: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
		return
	}
	p.record(r, b, t)
}

func (p *Plan) record(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	if p.choice == LengthsInSelection {
		sb := compact.Buffers{Src: b.Src, Dst: b.Lengths, Elements: b.Keys, Result: b.Result, Scratch: b.Scratch.Sub(0, p.scratch), Count: b.Count}
		if t != nil {
			p.sel.RecordTimed(r, sb, t)
		} else {
			p.sel.Record(r, sb)
		}
		return
	}
	stamp := pipeline.Stamps(r, t)
	stamp()
	selBlock := b.Scratch.Sub(p.selBlock, ResultSize)
	idx := b.Scratch.Sub(p.selIdx, max(p.n*4, 4))
	sb := compact.Buffers{Src: b.Src, Dst: idx, Result: selBlock, Scratch: b.Scratch.Sub(0, p.sel.ScratchSize()), Count: b.Count}
	if p.enc.Op == Encode {
		sb.Elements = b.Keys // the runs' first elements, written by the selection
	}
	p.sel.Record(r, sb)
	stamp()
	lengths := b.Lengths.Sub(0, min(max(p.lengths()*4, 4), b.Lengths.Size))
	offsets := lengths // Encode: bound, never written
	if p.enc.Op == NonTrivial {
		offsets = b.Offsets.Sub(0, min(max(p.lengths()*4, 4), b.Offsets.Size))
	}
	p.finish.Dispatch(r, p.groups, finishPush{GroupSize: p.enc.GroupSize, MaxX: p.ctx.Info().MaxWorkgroupCount[0]},
		finishBindings{Sel: idx, SelBlock: selBlock, Offsets: offsets, Lengths: lengths, Result: b.Result.Sub(0, ResultSize)})
	stamp()
}

// lengths is the most runs the plan can write: n, or n/2 longer than one.
func (p *Plan) lengths() uint64 {
	if p.enc.Op == NonTrivial {
		return p.n / 2
	}
	return p.n
}

// check validates the buffers against the plan.
func (p *Plan) check(r *pipeline.Recorder, b *Buffers) error {
	if p == nil {
		return errs.Invalidf("runs: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return errs.Invalidf("runs: the plan was made for another context")
	}
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: p.n * p.size},
		{Name: "lengths", Range: b.Lengths, Need: p.lengths() * 4, Write: true},
		{Name: "result", Range: b.Result, Need: ResultSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.scratch, Write: true}}
	if p.enc.Op == Encode {
		if b.Offsets.Buffer != nil {
			return errs.Invalidf("runs: Encode writes keys, not offsets: leave Offsets empty")
		}
		list = append(list, bufcheck.Range{Name: "keys", Range: b.Keys, Need: p.n * p.size, Write: true})
	} else {
		if b.Keys.Buffer != nil {
			return errs.Invalidf("runs: NonTrivial writes offsets, not keys: leave Keys empty")
		}
		list = append(list, bufcheck.Range{Name: "offsets", Range: b.Offsets, Need: p.lengths() * 4, Write: true})
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("runs", p.ctx, list)
}

// ReadResult reads the result block at r (ResultSize bytes, written by a
// recorded plan whose submission has completed).
func ReadResult(r vk.Range) (Result, error) {
	c, err := compact.ReadResult(r)
	if err != nil {
		return Result{}, err
	}
	return Result{Runs: c.Kept, Total: c.Total}, nil
}

// Run records the plan on the context's own queue, waits, and reads the
// result block back. A zero Result or Scratch range is allocated for the
// call and released after it.
func (p *Plan) Run(b Buffers) (Result, error) {
	if p == nil {
		return Result{}, errs.Invalidf("runs: nil Plan")
	}
	return planrun.Run(p.ctx, []planrun.Temp{{Range: &b.Result, Size: ResultSize}, {Range: &b.Scratch, Size: p.ScratchSize()}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, func() (Result, error) { return ReadResult(b.Result) })
}
