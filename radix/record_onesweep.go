package radix

import (
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// onesweepPlan is the single pass of a plan: the request, the single
// pass's tuning and its pipelines.
type onesweepPlan struct {
	*request
	*onesweep
	histogram pipeline.TypedPipeline[histogramPush, histogramBindings]
	scan      pipeline.TypedPipeline[scanPush, scanBindings] // without self-reset
	onePass   pipeline.TypedPipeline[onesweepPush, onesweepBindings]
}

// phases appends the names of the intervals RecordTimed measures (Plan.Phases).
func (p *onesweepPlan) phases(names []string) []string {
	names = append(names, "histogram")
	for range p.passes {
		names = append(names, "pass")
	}
	return names
}

// record records the single pass: the zeroing of the digit
// counts, the tile counters and the first pass's status region (with
// self-reset only where the commands recorded so far do not leave them
// zero, as a self-resetting run over this range does); the histogram of
// every pass's digits (one row of 2^DigitBits counts per pass) and,
// without self-reset, its scan into first slots (with self-reset each
// pass's workgroups scan their row themselves); then one dispatch per
// digit pass.
func (p *onesweepPlan) record(r *pipeline.Recorder, io sortRanges, scratch vk.Range, stamp func()) {
	status := scratch.Sub(p.layout.statusOff, p.status.bytes())
	zeroed := scratch.Sub(0, p.layout.statusOff+4*p.status.region(1))
	if !p.selfReset || !zeroed.KnownZero() {
		transfer.RecordFill(r, zeroed, 0)
	}
	p.histogram.Dispatch(r, uint64(p.procs), histogramPush{N: p.n, Chunk: p.chunk, Procs: p.procs, Begin: p.begin, End: p.end, CountOn: io.countOn},
		histogramBindings{Keys: io.keys, Hist: io.hist, GpuCount: io.count})
	if !p.selfReset {
		p.scan.Dispatch(r, uint64(p.passes), scanPush{Procs: p.buckets()}, scanBindings{Hist: io.hist})
	}
	stamp()
	for i := range p.passes {
		src, srcVals := io.source(i)
		dst, dstVals := io.target(i)
		shift, width := p.sweepDigit(i)
		push := onesweepPush{N: p.n, Tiles: p.status.tiles, Shift: shift, Width: width, CountOn: io.countOn, Spins: p.spins,
			Counter: i, Cur: uint32(p.status.region(i)), Next: uint32(p.status.region(i + 1)), First: i * p.buckets()}
		if p.selfReset && i == p.passes-1 {
			push.Done = p.passes // the word after the tile counters
		}
		inVals, outVals := p.values(src, srcVals, dst, dstVals)
		p.onePass.Dispatch(r, uint64(p.status.tiles), push, onesweepBindings{KeysIn: src, ValsIn: inVals, Hist: io.hist, Status: status,
			KeysOut: dst, ValsOut: outVals, GpuCount: io.count})
		stamp()
	}
	if p.selfReset {
		r.LeaveZero(zeroed)
	}
}
