package radix

import (
	"github.com/vkcompact/vkcompact/internal/tiling"
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
	wide      pipeline.TypedPipeline[onesweepPush, onesweepWideBindings] // past one binding
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
	for _, w := range p.histWindows(io.keys) {
		p.histogram.Dispatch(r, uint64(w.end-w.first), histogramPush{N: p.n, Chunk: p.chunk, Procs: p.procs, Begin: p.begin, End: p.end,
			CountOn: io.countOn, Proc0: w.first, ProcEnd: w.end}, histogramBindings{Keys: w.keys, Hist: io.hist, GpuCount: io.count})
	}
	if !p.selfReset {
		p.scan.Dispatch(r, uint64(p.passes), scanPush{Procs: p.buckets()}, scanBindings{Hist: io.hist})
	}
	stamp()
	for i := range p.passes {
		src, srcVals := io.source(i)
		dst, dstVals := io.target(i)
		shift, width := p.sweepDigit(i)
		push := onesweepPush{N: p.n, Shift: shift, Width: width, CountOn: io.countOn, Spins: p.spins,
			Counter: p.status.counter(i, 0), Cur: uint32(p.status.region(i)), Next: uint32(p.status.region(i + 1)), First: i * p.buckets()}
		if p.selfReset && i == p.passes-1 {
			push.Done = p.passes // the word after the tile counters
		}
		inVals, outVals := p.values(src, srcVals, dst, dstVals)
		if p.winTiles == 0 {
			push.Tiles = p.status.tiles
			p.onePass.Dispatch(r, uint64(p.status.tiles), push, onesweepBindings{KeysIn: src, ValsIn: inVals, Hist: io.hist, Status: status,
				KeysOut: dst, ValsOut: outVals, GpuCount: io.count})
			stamp()
			continue
		}
		k, v := p.outWindows(dst, outVals)
		for w, win := range p.tileWindows(src, inVals) {
			push.Counter, push.Tile0, push.Tiles, push.WinSlots = p.status.counter(i, uint32(w)), win.first, win.end, p.winSlots
			p.wide.Dispatch(r, uint64(win.end-win.first), push, onesweepWideBindings{KeysIn: win.keys, ValsIn: win.vals, Hist: io.hist, Status: status,
				KeysOut: k[0], ValsOut: v[0], GpuCount: io.count, KeysOut1: k[1], KeysOut2: k[2], KeysOut3: k[3], ValsOut1: v[1], ValsOut2: v[2], ValsOut3: v[3]})
		}
		stamp()
	}
	if p.selfReset {
		r.LeaveZero(zeroed)
	}
}

// window is one dispatch's share of a single pass: its items [first,
// end) (tiles of a digit pass, processors of the histogram) and the keys
// and values they read.
type window struct {
	first, end uint32
	keys, vals vk.Range
}

// tileWindows cuts a digit pass's input (keys and values, or the keys
// twice for keys alone) into windows of winTiles tiles.
func (p *onesweepPlan) tileWindows(keys, vals vk.Range) []window {
	n, tile := uint64(p.n), uint64(p.status.tile)
	var ws []window
	for t0 := uint32(0); t0 < p.status.tiles; t0 += p.winTiles {
		t1 := min(t0+p.winTiles, p.status.tiles)
		first := uint64(t0) * tile
		count := min(uint64(t1)*tile, n) - first
		w := window{first: t0, end: t1, keys: keys.Sub(first*p.keyBytes, count*p.keyBytes)}
		w.vals = w.keys
		if p.sort.Values {
			w.vals = vals.Sub(first*4, count*4)
		}
		ws = append(ws, w)
	}
	return ws
}

// histWindows cuts the histogram's keys into windows of winProcs
// processors' chunks: one of every processor within one binding.
func (p *onesweepPlan) histWindows(keys vk.Range) []window {
	if p.winTiles == 0 {
		return []window{{first: 0, end: p.procs, keys: keys}}
	}
	n, chunk := uint64(p.n), uint64(p.chunk)
	var ws []window
	for p0 := uint32(0); p0 < p.procs; p0 += p.winProcs {
		p1 := min(p0+p.winProcs, p.procs)
		first := uint64(p0) * chunk
		ws = append(ws, window{first: p0, end: p1, keys: keys.Sub(first*p.keyBytes, (min(uint64(p1)*chunk, n)-first)*p.keyBytes)})
	}
	return ws
}

// outWindows returns the output windows of a digit pass past one binding,
// winSlots slots each (the last shorter; those past the output bound to
// the first, unused). For keys alone the values' are the keys'.
func (p *onesweepPlan) outWindows(keys, vals vk.Range) (k, v [tiling.MaxOutWindows]vk.Range) {
	n, slots := uint64(p.n), uint64(p.winSlots)
	for w := range k {
		first := uint64(w) * slots
		if first >= n {
			k[w], v[w] = k[0], v[0]
			continue
		}
		count := min(slots, n-first)
		k[w] = keys.Sub(first*p.keyBytes, count*p.keyBytes)
		v[w] = k[w]
		if p.sort.Values {
			v[w] = vals.Sub(first*4, count*4)
		}
	}
	return k, v
}
