package radix

import (
	"github.com/vkcompact/vkcompact/compact"
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
	for i := uint32(0); i < p.passes; i++ {
		src, srcVals := io.source(i)
		dst, dstVals := io.target(i)
		shift, width := p.shift(i), p.width(i)
		k := p.kernels[width]
		next := p.fuses(i)
		nextShift, nextWidth := uint32(0), uint32(0)
		if next {
			nextShift, nextWidth = p.shift(i+1), p.width(i+1)
		}
		push := []uint32{p.n, p.chunk, p.procs, shift, width, io.countOn, nextShift, nextWidth}
		if p.counted(i) {
			r.Dispatch(k.count, uint64(p.procs), push[:6], src, hist, io.count)
			stamp()
		}
		r.Dispatch(k.scan, uint64(1)<<width, []uint32{p.procs}, hist)
		stamp()
		inVals, outVals := p.values(src, srcVals, dst, dstVals)
		if next {
			compact.RecordFill(r, histNext.Sub(0, uint64(1)<<nextWidth*uint64(p.procs)*4), 0)
			stamp()
			r.Dispatch(k.scatterNext, uint64(p.procs), push, src, inVals, hist, dst, outVals, io.count, histNext)
			hist, histNext = histNext, hist
		} else {
			r.Dispatch(k.scatter, uint64(p.procs), push, src, inVals, hist, dst, outVals, io.count, hist) // 6: bound, unused
		}
		stamp()
	}
}
