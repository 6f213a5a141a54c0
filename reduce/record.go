package reduce

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the reduction into r's command buffer: on the single
// pass one dispatch (after a clear of its counter unless the commands
// recorded so far leave it zero, as the pass itself does: package
// vkcompact, "Scratch between runs"); on PathThreePhase the reduce and
// combine dispatches with a barrier between them. Past one binding the
// reduce is a dispatch per window. Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1. The single pass has "clear" (empty
// where the counter is known zero) and "reduce"; PathThreePhase has
// "reduce" and "combine".
func (p *Plan) Phases() []string {
	if p == nil {
		return nil
	}
	if p.path == vkcompact.PathThreePhase {
		return []string{"reduce", "combine"}
	}
	return []string{"clear", "reduce"}
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries, reset earlier in the command buffer; any further queries are
// left unwritten.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if !checkTimer(r, t, len(p.Phases())+1) {
		return
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

// checkTimer fails r unless t has at least need queries.
func checkTimer(r *pipeline.Recorder, t *vk.Timer, need int) bool {
	if t == nil {
		r.Fail(invalid("RecordTimed needs a timer"))
		return false
	}
	if t.Count() < uint32(need) {
		r.Fail(invalid("RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
		return false
	}
	return true
}

func (p *Plan) record(r *pipeline.Recorder, b Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	ctx := r.CommandBuffer().Context()
	scratch := b.Scratch.Sub(0, p.scratch)
	counter := scratch.Sub(0, p.partialsOff)
	count, countOn := bufcheck.CountWord(ctx, b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = scratch, 0 // bound, never read
	}
	result := b.Result.Sub(0, ResultSize)
	single := p.path != vkcompact.PathThreePhase
	stamp()
	if single {
		if !counter.KnownZero() {
			transfer.RecordFill(r, counter, 0)
		}
		stamp()
	}
	n, size := uint64(p.n), p.size
	perWindow := uint64(p.groups)
	if p.windowGroups != 0 {
		perWindow = uint64(p.windowGroups)
	}
	// Every workgroup of every dispatch counts itself done: the last of
	// them all combines.
	var launched uint64
	for g0 := uint64(0); g0 < uint64(p.groups); g0 += perWindow {
		grid, err := pipeline.GridFor(ctx.Info(), min(perWindow, uint64(p.groups)-g0))
		if err != nil {
			r.Fail(err)
			return
		}
		launched += uint64(grid.X) * uint64(grid.Y)
	}
	push := tilesPush{Total: p.n, Chunk: p.chunk, Groups: p.groups, Launched: uint32(launched), CountOn: countOn}
	for g0 := uint64(0); g0 < uint64(p.groups); g0 += perWindow {
		groups := min(perWindow, uint64(p.groups)-g0)
		first := g0 * uint64(p.chunk)
		elems := min(groups*uint64(p.chunk), n-min(first, n))
		src := scratch // no element to bind (a binding holds something): never read
		if elems > 0 {
			src = b.Src.Sub(first*size, elems*size)
		}
		push.N, push.Elem0, push.Group0, push.Own = uint32(elems), uint32(first), uint32(g0), uint32(groups)
		p.tiles.Dispatch(r, groups, push, tilesBindings{SrcVec: src, SrcWord: src, Scratch: scratch, Result: result, GpuCount: count})
	}
	stamp()
	if single {
		r.LeaveZero(counter)
		return
	}
	p.combine.Dispatch(r, 1, combinePush{Total: p.n, Groups: p.groups, CountOn: countOn},
		combineBindings{Scratch: scratch, Result: result, GpuCount: count})
	stamp()
}

// check validates the plan and b for r.
func (p *Plan) check(r *pipeline.Recorder, b *Buffers) error {
	if p == nil {
		return invalid("nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("the plan was made for another context")
	}
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: uint64(p.n) * p.size},
		{Name: "result", Range: b.Result, Need: ResultSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.scratch, Write: true}}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("reduce", p.ctx, list)
}
