package radix

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// recordThreePhase records the three phases of every pass: a count (but
// where the scatter before counted the pass's digits), a scan and a
// scatter. Fused, pass i's scatter counts pass i+1's digits into the
// other hist region, zeroed first (the scan writes the totals row).
func (p *Plan) recordThreePhase(r *pipeline.Recorder, io sortRanges, scratch vk.Range, stamp func()) {
	hist, histNext := io.hist, io.hist
	if p.fused {
		histNext = scratch.Sub(p.layout.hist2Off, p.layout.histWords*4)
	}
	for i := range p.passes {
		src, srcVals := io.source(i)
		dst, dstVals := io.target(i)
		width := p.width(i)
		k := p.kernels[width]
		next := p.fuses(i)
		push := scatterPush{countPush: countPush{N: p.n, Chunk: p.chunk, Procs: p.procs, Shift: p.shift(i), Width: width, CountOn: io.countOn}}
		if next {
			push.NextShift, push.NextWidth = p.shift(i+1), p.width(i+1)
		}
		if p.counted(i) {
			k.count.Dispatch(r, uint64(p.procs), push.countPush, src, hist, io.count)
			stamp()
		}
		k.scan.Dispatch(r, uint64(1)<<width, scanPush{Procs: p.procs}, hist)
		stamp()
		inVals, outVals := p.values(src, srcVals, dst, dstVals)
		if next {
			vkcompact.RecordFill(r, histNext.Sub(0, uint64(1)<<push.NextWidth*uint64(p.procs)*4), 0)
			stamp()
			k.scatterNext.Dispatch(r, uint64(p.procs), push, src, inVals, hist, dst, outVals, io.count, histNext)
			hist, histNext = histNext, hist
		} else {
			k.scatter.Dispatch(r, uint64(p.procs), push, src, inVals, hist, dst, outVals, io.count, hist) // 6: bound, unused
		}
		stamp()
	}
}
