package radix

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// recordOnesweep records the single pass: the zeroing of the digit
// counts, the tile counters and the first pass's status region; the
// histogram of every pass's digits and its scan into first slots (one
// row of 2^DigitBits counts per pass); then one dispatch per digit pass.
func (p *Plan) recordOnesweep(r *pipeline.Recorder, io sortRanges, scratch vk.Range, stamp func()) {
	status := scratch.Sub(p.layout.statusOff, p.status.bytes())
	vkcompact.RecordFill(r, scratch.Sub(0, p.layout.statusOff+4*p.status.region(1)), 0)
	p.histogram.Dispatch(r, uint64(p.procs), histogramPush{N: p.n, Chunk: p.chunk, Procs: p.procs, Begin: p.begin, End: p.end, CountOn: io.countOn},
		io.keys, io.hist, io.count)
	p.scan.Dispatch(r, uint64(p.passes), scanPush{Procs: p.buckets()}, io.hist)
	stamp()
	for i := range p.passes {
		src, srcVals := io.source(i)
		dst, dstVals := io.target(i)
		shift, width := p.sweepDigit(i)
		push := onesweepPush{N: p.n, Tiles: p.status.tiles, Shift: shift, Width: width, CountOn: io.countOn, Spins: p.spins,
			Counter: i, Cur: uint32(p.status.region(i)), Next: uint32(p.status.region(i + 1)), First: i * p.buckets()}
		inVals, outVals := p.values(src, srcVals, dst, dstVals)
		p.onePass.Dispatch(r, uint64(p.status.tiles), push, src, inVals, io.hist, status, dst, outVals, io.count)
		stamp()
	}
}
