package scan

import (
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the prefix sum into r's command buffer: on the three
// phases reduce, scan of the chunk sums, and apply, with a buffer barrier
// between each; on the single pass the pass, after a clear of its status
// words unless they are known zero (package vkcompact, "Scratch between
// runs"). Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1. The three phases have "reduce", "scan"
// (of the chunk sums) and "apply"; the single pass has "clear" (empty
// where its status words are known zero) and "pass".
func (p *Plan) Phases() []string {
	if p == nil {
		return nil
	}
	return p.alg.phases()
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries, reset earlier in the command buffer; any further queries are
// left unwritten.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(errs.Invalidf("scan: RecordTimed needs a timer"))
		return
	}
	if p != nil { // a nil plan is refused by record
		if need := uint32(len(p.alg.phases()) + 1); t.Count() < need {
			r.Fail(errs.Invalidf("scan: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
			return
		}
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

func (p *Plan) record(r *pipeline.Recorder, b Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	p.alg.record(r, p.n, b, stamp)
}

func (p *Plan) check(r *pipeline.Recorder, b *Buffers) error {
	if p == nil {
		return errs.Invalidf("scan: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return errs.Invalidf("scan: the plan was made for another context")
	}
	n := uint64(p.n) * 4
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: n, Write: p.scan.InPlace},
		{Name: "total", Range: b.Total, Need: TotalSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.ScratchSize(), Write: true}}
	if p.scan.InPlace {
		if b.Dst.Buffer != nil && b.Dst != b.Src {
			return errs.Invalidf("scan: in place, the destination must be the source or left empty")
		}
		b.Dst = b.Src
	} else {
		list = append(list, bufcheck.Range{Name: "destination", Range: b.Dst, Need: n, Write: true})
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("scan", p.ctx, list)
}
