package radix

import (
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the sort into r's command buffer: the three phases'
// count (where the scatter before did not count the pass's digits), scan
// and scatter per pass, or the single pass's histogram and a dispatch
// per pass (Phases names them), with a buffer barrier between each.
// Errors are kept by r. With Tuning.SelfReset the single pass leaves the
// start of Scratch zero for the plan's next run, and Record records the
// clear before it only where the commands recorded so far do not leave it
// so (the package vkcompact's "Scratch between runs" gives the contract).
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1. The three phases have "count", "scan"
// and "scatter" per pass, with fused counts "count" in the first pass only
// and "clear" (the zeroing of the next pass's counts) before each scatter
// but the last; the single pass has "histogram" (the zeroing, where
// recorded, the histogram of every digit and, without self-reset, its
// scan), then "pass" per digit pass.
// A copy back of an in-place sort with an odd number of passes is
// "copy" (none for the lane-serial sort's packed pairs, whose last pass
// writes the output: Plan.copiesBack). A sort of no keys, or of no bits,
// has one interval, "copy".
func (p *Plan) Phases() []string {
	if p == nil {
		return nil
	}
	var names []string
	switch {
	case p.n == 0 || p.passes == 0:
		return []string{"copy"}
	case p.one != nil:
		return []string{"sort"}
	case p.lanes != nil:
		names = p.lanes.phases(names)
	case p.sweep != nil:
		names = p.sweep.phases(names)
	default:
		names = p.three.phases(names)
	}
	if p.copiesBack() {
		names = append(names, "copy")
	}
	return names
}

// copiesBack reports whether the sort runs in place with an odd number of
// passes, so that its last pass writes scratch and a copy brings the
// result back (not the lane-serial sort's packed pairs, whose passes
// write scratch but for the last).
func (p *Plan) copiesBack() bool {
	return p.sort.InPlace && p.passes%2 == 1 && (p.lanes == nil || !p.lanes.packed)
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries and must be reset (Timer.Reset) earlier in the command buffer.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(invalid("radix: RecordTimed needs a timer"))
		return
	}
	if p == nil {
		r.Fail(invalid("radix: nil Plan"))
		return
	}
	if need := uint32(len(p.Phases()) + 1); t.Count() < need {
		r.Fail(invalid("radix: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
		return
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

// record checks b and records the sort, calling stamp where RecordTimed
// writes a timestamp (Phases names the intervals between).
func (p *Plan) record(r *pipeline.Recorder, b Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	if p.n == 0 {
		stamp()
		stamp()
		return
	}
	stamp()
	if p.one != nil {
		p.one.record(r, p.oneRanges(b), p.n, p.begin, p.end)
		stamp()
		return
	}
	io := p.ranges(b)
	if p.passes == 0 {
		if !p.sort.InPlace {
			p.copy(r, io.outKeys, io.keys, io.outVals, io.vals, b.Count)
		}
		stamp()
		return
	}
	switch {
	case p.lanes != nil:
		p.lanes.record(r, &p.request, io, stamp)
	case p.sweep != nil:
		p.sweep.record(r, io, b.Scratch, stamp)
	default:
		p.three.record(r, io, b.Scratch, stamp)
	}
	if io.copyBack {
		last, lastVals := io.target(p.passes - 1)
		p.copy(r, io.keys, last, io.vals, lastVals, b.Count)
		stamp()
	}
}

// sortRanges are the ranges a recorded sort reads and writes, cut to its
// n keys.
type sortRanges struct {
	keys, vals       vk.Range // the input: Keys and Values
	outKeys, outVals vk.Range // the output: KeysOut and ValuesOut, or Keys and Values in place
	tmpKeys, tmpVals vk.Range // scratch's half of the ping-pong (the lane-serial sort's packed pairs: its two regions of 8n bytes)
	hist             vk.Range // the digit counts at the start of scratch
	// count is Buffers.Count bound from its offset rounded down to
	// minStorageBufferOffsetAlignment, countOn 1 + the index of its word
	// there (bufcheck.CountWord); or with countOn 0 any range (hist),
	// bound and never read.
	count   vk.Range
	countOn uint32
	// copyBack: in place with an odd number of passes, the last pass
	// writes scratch and a copy brings the result back (Plan.copiesBack).
	copyBack bool
	passes   uint32
}

// oneRanges cuts b (checked) to the plan for its one workgroup: the
// inputs, the outputs and the count (countOn 0: none).
func (p *Plan) oneRanges(b Buffers) sortRanges {
	n := uint64(p.n)
	io := sortRanges{keys: b.Keys.Sub(0, n*p.keyBytes), outKeys: b.KeysOut.Sub(0, n*p.keyBytes), count: b.Count}
	if p.sort.Values {
		io.vals, io.outVals = b.Values.Sub(0, 4*n), b.ValuesOut.Sub(0, 4*n)
	}
	if b.Count.Buffer != nil {
		io.count, io.countOn = bufcheck.CountWord(p.ctx, b.Count) // any 4-byte aligned word
	}
	return io
}

// ranges cuts b (checked, with the outputs set in place) to the plan.
func (p *Plan) ranges(b Buffers) sortRanges {
	n, l := uint64(p.n), p.layout()
	keyBytes := n * p.keyBytes
	io := sortRanges{
		keys: b.Keys.Sub(0, keyBytes), outKeys: b.KeysOut.Sub(0, keyBytes), tmpKeys: b.Scratch.Sub(l.keysOff, keyBytes),
		hist:     b.Scratch.Sub(0, l.histWords*4),
		copyBack: p.copiesBack(),
		passes:   p.passes,
	}
	if p.sort.Values {
		io.vals, io.outVals, io.tmpVals = b.Values.Sub(0, 4*n), b.ValuesOut.Sub(0, 4*n), b.Scratch.Sub(l.valsOff, 4*n)
	}
	if p.lanes != nil && p.lanes.packed {
		// The lane-serial sort's packed pairs: two regions of 8n bytes
		// (lanesPlan).
		io.tmpKeys, io.tmpVals = b.Scratch.Sub(l.keysOff, 8*n), b.Scratch.Sub(l.valsOff, 8*n)
	}
	if b.Count.Buffer != nil {
		io.count, io.countOn = bufcheck.CountWord(p.ctx, b.Count) // any 4-byte aligned word
	} else {
		io.count, io.countOn = io.hist, 0 // bound, never read
	}
	return io
}

// target returns the keys and values pass i writes. The passes alternate
// between the output and scratch so that the last pass writes the output:
// backwards from it, output and scratch alternate. In place, pass 0 must
// not write the keys it reads: with an odd number of passes the result
// then lands in scratch and is copied back.
func (io sortRanges) target(i uint32) (keys, vals vk.Range) {
	switch {
	case io.copyBack && i%2 == 0:
		return io.tmpKeys, io.tmpVals
	case io.copyBack:
		return io.keys, io.vals
	case (io.passes-1-i)%2 == 0:
		return io.outKeys, io.outVals
	}
	return io.tmpKeys, io.tmpVals
}

// source returns the keys and values pass i reads: the input, then what
// the pass before wrote.
func (io sortRanges) source(i uint32) (keys, vals vk.Range) {
	if i == 0 {
		return io.keys, io.vals
	}
	return io.target(i - 1)
}

// values returns the value ranges a pass from keys src to dst binds: the
// values, or for keys alone the keys again (bound, unused).
func (q *request) values(src, srcVals, dst, dstVals vk.Range) (in, out vk.Range) {
	if !q.sort.Values {
		return src, dst
	}
	return srcVals, dstVals
}

func (p *Plan) copy(r *pipeline.Recorder, keys, from, vals, fromVals, count vk.Range) {
	cp := func(dst, src vk.Range, elemBytes uint32) {
		if count.Buffer == nil {
			transfer.RecordCopy(r, dst, src, transfer.CopyOptions{})
		} else {
			transfer.RecordCopyCount(r, dst, src, count, elemBytes, transfer.CopyOptions{})
		}
	}
	cp(keys, from, uint32(p.keyBytes))
	if p.sort.Values {
		cp(vals, fromVals, 4)
	}
}

func (p *Plan) check(r *pipeline.Recorder, b *Buffers) error {
	if p == nil {
		return invalid("radix: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("radix: the plan was made for another context")
	}
	n := uint64(p.n)
	s := p.sort
	list := []bufcheck.Range{{Name: "keys", Range: b.Keys, Need: n * p.keyBytes, Write: s.InPlace}}
	if p.one == nil { // one workgroup needs no scratch
		list = append(list, bufcheck.Range{Name: "scratch", Range: b.Scratch, Need: p.layout().size, Write: true})
	}
	if s.Values {
		list = append(list, bufcheck.Range{Name: "values", Range: b.Values, Need: 4 * n, Write: s.InPlace})
	} else if b.Values.Buffer != nil || b.ValuesOut.Buffer != nil {
		return invalid("radix: values given for a sort of keys only (set Sort.Values)")
	}
	if s.InPlace {
		if b.KeysOut.Buffer != nil && b.KeysOut != b.Keys || b.ValuesOut.Buffer != nil && b.ValuesOut != b.Values {
			return invalid("radix: in place, the outputs must be the inputs or left empty")
		}
		b.KeysOut, b.ValuesOut = b.Keys, b.Values
	} else {
		list = append(list, bufcheck.Range{Name: "keys output", Range: b.KeysOut, Need: n * p.keyBytes, Write: true})
		if s.Values {
			list = append(list, bufcheck.Range{Name: "values output", Range: b.ValuesOut, Need: 4 * n, Write: true})
		}
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Word: true})
	}
	return bufcheck.Check("radix", p.ctx, list)
}
