package histogram

import (
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the histogram into r's command buffer: a clear of the
// counts (unless Accumulate), then one dispatch per segment of the
// samples (one in all up to maxStorageBufferRange bytes). Errors are
// kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
// The dispatches of several segments all add to Counts; the barriers
// between them are the recorder's.
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1: "clear" (empty with Accumulate) and
// "count".
func (p *Plan) Phases() []string {
	if p == nil {
		return nil
	}
	return []string{"clear", "count"}
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries, reset earlier in the command buffer; any further queries are
// left unwritten.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(invalid("histogram: RecordTimed needs a timer"))
		return
	}
	if p != nil { // a nil plan is refused by record
		if need := uint32(len(p.Phases()) + 1); t.Count() < need {
			r.Fail(invalid("histogram: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
			return
		}
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

func (p *Plan) record(r *pipeline.Recorder, b Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, b) }) {
		return
	}
	counts := b.Counts.Sub(0, uint64(p.h.Bins)*4)
	stamp()
	if !p.h.Accumulate {
		transfer.RecordFill(r, counts, 0)
	}
	stamp()
	count, countOn := bufcheck.CountWord(p.ctx, b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = counts, 0 // bound, never read
	}
	edges := counts // bound, never read, without Edges
	if p.h.Edges {
		edges = b.Edges.Sub(0, uint64(p.h.Bins+1)*4)
	}
	n, seg := uint64(p.n), uint64(p.tun.SegmentSamples)
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		src := b.Src.Sub(first*4, elems*4)
		push := p.push
		push.N, push.First, push.CountOn = uint32(elems), uint32(first), countOn
		p.pass.Dispatch(r, uint64(p.tun.Workgroups), push,
			countBindings{SrcVec: src, SrcWord: src, Edges: edges, Counts: counts, GpuCount: count})
	}
	stamp()
}

func (p *Plan) check(r *pipeline.Recorder, b Buffers) error {
	if p == nil {
		return invalid("histogram: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("histogram: the plan was made for another context")
	}
	list := []bufcheck.Range{{Name: "counts", Range: b.Counts, Need: uint64(p.h.Bins) * 4, Write: true}}
	if p.n > 0 {
		list = append(list, bufcheck.Range{Name: "source", Range: b.Src, Need: uint64(p.n) * 4})
	} else if b.Src.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "source", Range: b.Src})
	}
	switch {
	case p.h.Edges:
		list = append(list, bufcheck.Range{Name: "edges", Range: b.Edges, Need: uint64(p.h.Bins+1) * 4})
	case b.Edges.Buffer != nil:
		return invalid("histogram: an edges range for even bins: set Histogram.Edges to bin by it, or leave it empty")
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("histogram", p.ctx, list)
}
