package permute

import (
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the move into r's command buffer: a fill of the status
// word with StatusOK where there is one, then one dispatch per segment of
// the positions (one in all up to maxStorageBufferRange bytes of the
// in-order side). Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
// Moves of several buffers by one set of indices (a sort's order applied
// to each attribute) read the indices only: recorded one after another,
// with distinct destinations and no status word or one each, they run
// with no barrier between them.
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Phases names the intervals RecordTimed measures: "move" (the status
// word's fill and the move).
func (p *Plan) Phases() []string {
	if p == nil {
		return nil
	}
	return []string{"move"}
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries, reset earlier in the command buffer; any further queries are
// left unwritten.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(invalid("permute: RecordTimed needs a timer"))
		return
	}
	if p != nil { // a nil plan is refused by record
		if need := uint32(len(p.Phases()) + 1); t.Count() < need {
			r.Fail(invalid("permute: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
			return
		}
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

func (p *Plan) record(r *pipeline.Recorder, b Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, b) }) {
		return
	}
	stamp()
	var statusOn uint32
	if b.Status.Buffer != nil {
		b.Status = b.Status.Sub(0, StatusSize)
		transfer.RecordFill(r, b.Status, StatusOK)
		statusOn = 1
	}
	count, countOn := bufcheck.CountWord(p.ctx, b.Count) // any 4-byte aligned word
	n, seg, size := uint64(p.n), uint64(p.tun.SegmentElems), uint64(p.size)
	indexed := b.Src
	if p.perm.Scatter {
		indexed = b.Dst
	}
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		idx := b.Indices.Sub(first*4, elems*4)
		ordered := b.Dst
		if p.perm.Scatter {
			ordered = b.Src
		}
		ordered = ordered.Sub(first*size, elems*size)
		src, dst := indexed, ordered
		if p.perm.Scatter {
			src, dst = ordered, indexed
		}
		status, gpuCount := b.Status, count
		if statusOn == 0 {
			status = dst // bound, never written
		}
		gpuCountOn := countOn
		if b.Count.Buffer == nil {
			gpuCount, gpuCountOn = idx, 0 // bound, never read
		}
		push := movePush{N: uint32(elems), First: uint32(first), CountOn: gpuCountOn, Bound: uint32(p.bound(b)), StatusOn: statusOn}
		p.pass.Dispatch(r, p.groups(elems), push, moveBindings{IdxVec: idx, IdxWord: idx, SrcVec: src, SrcPair: src, SrcWord: src,
			DstVec: dst, DstPair: dst, DstWord: dst, Status: status, GpuCount: gpuCount})
	}
	stamp()
}

func (p *Plan) check(r *pipeline.Recorder, b Buffers) error {
	if p == nil {
		return invalid("permute: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("permute: the plan was made for another context")
	}
	n, size := uint64(p.n), uint64(p.size)
	indexedName, indexed := "source", b.Src
	ordered := bufcheck.Range{Name: "destination", Range: b.Dst, Need: n * size, Write: true}
	if p.perm.Scatter {
		indexedName, indexed = "destination", b.Dst
		ordered = bufcheck.Range{Name: "source", Range: b.Src, Need: n * size}
	}
	var list []bufcheck.Range
	for _, x := range []bufcheck.Range{{Name: "indices", Range: b.Indices, Need: n * 4}, ordered,
		{Name: indexedName, Range: indexed, Need: min(n, 1) * max(indexed.Size, size), Write: p.perm.Scatter}} { // any of its elements
		if n > 0 || x.Range.Buffer != nil {
			list = append(list, x)
		}
	}
	if b.Status.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "status", Range: b.Status, Need: StatusSize, Exact: true, Write: true})
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	if err := bufcheck.Check("permute", p.ctx, list); err != nil {
		return err
	}
	if limit := uint64(p.ctx.Info().MaxStorageBufferRange); n > 0 && indexed.Size > limit {
		return invalid("permute: the %s range of %d bytes: the indices may select any of its elements, so it is bound whole, at most maxStorageBufferRange %d bytes",
			indexedName, indexed.Size, limit)
	}
	return nil
}
