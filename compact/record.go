package compact

import (
	"slices"

	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the selection into r's command buffer: on the three
// phases count, scan and move dispatches with a buffer barrier between
// each (and, in place, a copy back); on the single pass one dispatch (or
// one per window of the input), after a clear of its status words where
// they are not known zero. Errors, such as a range too small, are kept by
// r and returned by r.Err or pipeline.Run.
//
// Synchronisation: as package vkcompact's "Synchronisation" section says.
//
// uint8 flags are read as 4-byte words: when n is not a multiple of 4 the
// last word's padding bytes, up to n rounded up to 4, must lie inside the
// flags buffer (their values are ignored).
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1. The three phases have "count", "scan"
// and "move" (the move and, in place, the copy back); the single pass
// has "clear" (the clear of its status words, where recorded) and "pass".
// The run lengths package runs asks for add "lengths" last (the fix-up of
// each chunk's or tile's last run).
func (p *Plan) Phases() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.alg.phases())
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i], so t needs
// len(Phases())+1 queries: 4 on the three phases, 3 on the single pass;
// any further queries are left unwritten. t must be reset (Timer.Reset)
// earlier in the command buffer.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(errs.Invalidf("compact: RecordTimed needs a timer"))
		return
	}
	if p != nil { // a nil plan is refused by record
		if need := uint32(len(p.alg.phases()) + 1); t.Count() < need {
			r.Fail(errs.Invalidf("compact: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
			return
		}
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

func (p *Plan) record(r *pipeline.Recorder, b Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	p.alg.record(r, &p.req, b, stamp)
}

// flagsFor returns the flags of the segment [first, first+elems), or src
// when the predicate reads no flags (the binding must hold something).
func (q *request) flagsFor(b Buffers, src vk.Range, first, elems uint64) vk.Range {
	if q.sel.Keep.Op != Flagged {
		return src
	}
	fb := uint64(q.sel.Keep.FlagBytes)
	return vk.Range{Buffer: b.Flags.Buffer, Offset: b.Flags.Offset + first*fb, Size: align.Up(elems*fb, 4)}
}

// check validates the buffers against the plan.
func (p *Plan) check(r *pipeline.Recorder, b *Buffers) error {
	if p == nil {
		return errs.Invalidf("compact: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return errs.Invalidf("compact: the plan was made for another context")
	}
	n := uint64(p.req.n)
	sel := &p.req.sel
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: n * p.req.size, Write: sel.InPlace},
		{Name: "result", Range: b.Result, Need: ResultSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.alg.scratchSize(), Write: true}}
	if sel.InPlace {
		if b.Dst.Buffer != nil && b.Dst != b.Src {
			return errs.Invalidf("compact: in place, the destination must be the source or left empty")
		}
	} else {
		list = append(list, bufcheck.Range{Name: "destination", Range: b.Dst, Need: n * p.req.outSize(), Write: true})
	}
	if sel.Keep.Op == Flagged {
		list = append(list, bufcheck.Range{Name: "flags", Range: b.Flags, Need: n * uint64(sel.Keep.FlagBytes)})
	}
	if p.req.writesElements() {
		list = append(list, bufcheck.Range{Name: "elements", Range: b.Elements, Need: n * p.req.size, Write: true})
	} else if b.Elements.Buffer != nil {
		return errs.Invalidf("compact: Elements is for Selection.Output OutputBoth: leave it empty")
	}
	if vb := uint64(p.req.vwords) * 4; vb > 0 {
		list = append(list, bufcheck.Range{Name: "values", Range: b.Values, Need: n * vb},
			bufcheck.Range{Name: "values out", Range: b.ValuesOut, Need: n * vb, Write: true})
	} else if b.Values.Buffer != nil || b.ValuesOut.Buffer != nil {
		return errs.Invalidf("compact: Values and ValuesOut are for Selection.Values: leave them empty")
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	if err := bufcheck.Check("compact", p.ctx, list); err != nil {
		return err
	}
	if sel.Keep.Op == Flagged && sel.Keep.FlagBytes == 1 && n%4 != 0 {
		if end := b.Flags.Offset + align.Up(n, 4); end > b.Flags.Buffer.Size() {
			return errs.Invalidf("compact: uint8 flags are read in 4-byte words: the flags buffer needs %d bytes after offset %d (n rounded up to 4), it has %d",
				align.Up(n, 4), b.Flags.Offset, b.Flags.Buffer.Size()-b.Flags.Offset)
		}
	}
	return nil
}
