package radix

import (
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// recordOnesweep records the single pass: the zeroing of the digit
// counts, the tile counters and the first pass's status region; the
// histogram of every pass's digits and its scan into first slots; then one
// dispatch per digit pass.
func (p *Plan) recordOnesweep(r *pipeline.Recorder, io sortRanges, scratch vk.Range, stamp func()) {
	status := scratch.Sub(p.layout.statusOff, p.status.bytes())
	compact.RecordFill(r, scratch.Sub(0, p.layout.statusOff+4*(p.status.counterWords+p.status.regionWords)), 0)
	r.Dispatch(p.histogram, uint64(p.procs), []uint32{p.n, p.chunk, p.procs, p.begin, p.end, io.countOn}, io.keys, io.hist, io.count)
	r.Dispatch(p.scan, uint64(p.passes), []uint32{uint32(1) << p.bits}, io.hist)
	stamp()
	buckets := uint64(1) << p.bits
	for i := uint32(0); i < p.passes; i++ {
		src, srcVals := io.source(i)
		dst, dstVals := io.target(i)
		shift := p.begin + i*p.bits
		cur := p.status.counterWords + uint64(i%2)*p.status.regionWords
		next := p.status.counterWords + uint64((i+1)%2)*p.status.regionWords
		push := []uint32{p.n, p.status.tiles, shift, min(p.bits, p.end-shift), io.countOn, p.spins,
			i, uint32(cur), uint32(next), uint32(uint64(i) * buckets)}
		inVals, outVals := p.values(src, srcVals, dst, dstVals)
		r.Dispatch(p.onePass, uint64(p.status.tiles), push, src, inVals, io.hist, status, dst, outVals, io.count)
		stamp()
	}
}
