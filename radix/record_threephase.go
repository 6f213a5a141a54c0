package radix

import (
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// threePhasePlan is the three phases of a plan: the request, the three
// phases' tuning and their pipelines by digit width.
type threePhasePlan struct {
	*request
	*threePhase
	kernels map[uint32]*passKernels
}

// fuses reports whether pass i's scatter counts pass i+1's digits.
func (p *threePhasePlan) fuses(i uint32) bool { return p.threePhase.fuses(p.digits, i) }

// counted reports whether pass i has a count phase of its own.
func (p *threePhasePlan) counted(i uint32) bool { return p.threePhase.counted(p.digits, i) }

// phases appends the names of the intervals RecordTimed measures (Plan.Phases).
func (p *threePhasePlan) phases(names []string) []string {
	for i := range p.passes {
		switch {
		case p.counted(i):
			names = append(names, "count", "scan")
		default:
			names = append(names, "scan")
		}
		if p.fuses(i) {
			names = append(names, "clear")
		}
		names = append(names, "scatter")
	}
	return names
}

// record records the three phases of every pass: a count (but
// where the scatter before counted the pass's digits), a scan and a
// scatter. Fused, pass i's scatter counts pass i+1's digits into the
// other hist region, zeroed first (the scan writes the totals row).
func (p *threePhasePlan) record(r *pipeline.Recorder, io sortRanges, scratch vk.Range, stamp func()) {
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
		push := scatterPush{countPush: countPush{N: p.n, Chunk: p.chunk, Procs: p.procs, Shift: p.shift(i), Width: width, CountOn: io.countOn},
			WinSlots: p.winSlots}
		if next {
			push.NextShift, push.NextWidth = p.shift(i+1), p.width(i+1)
		}
		inVals, outVals := p.values(src, srcVals, dst, dstVals)
		ins := p.inWindows(src, inVals)
		if p.counted(i) {
			for _, w := range ins {
				push.Proc0, push.ProcEnd = w.proc0, w.procEnd
				k.count.Dispatch(r, uint64(w.procEnd-w.proc0), push.countPush, countBindings{Keys: w.keys, Hist: hist, GpuCount: io.count})
			}
			stamp()
		}
		k.scan.Dispatch(r, uint64(1)<<width, scanPush{Procs: p.procs}, scanBindings{Hist: hist})
		stamp()
		scatter, counts := k.scatter, hist // 6: bound, unused
		if next {
			transfer.RecordFill(r, histNext.Sub(0, uint64(1)<<push.NextWidth*uint64(p.procs)*4), 0)
			stamp()
			scatter, counts = k.scatterNext, histNext
		}
		keyWins, valWins := p.outWindows(dst, outVals)
		for _, w := range ins {
			push.Proc0, push.ProcEnd = w.proc0, w.procEnd
			scatter.dispatch(r, uint64(w.procEnd-w.proc0), push, scatterWideBindings{KeysIn: w.keys, ValsIn: w.vals, Hist: hist,
				KeysOut: keyWins[0], ValsOut: valWins[0], GpuCount: io.count, HistNext: counts,
				KeysOut1: keyWins[1], KeysOut2: keyWins[2], KeysOut3: keyWins[3], ValsOut1: valWins[1], ValsOut2: valWins[2], ValsOut3: valWins[3]})
		}
		if next {
			hist, histNext = histNext, hist
		}
		stamp()
	}
}

// procWindow is one dispatch of a count or a scatter: processors [proc0,
// procEnd) and the keys and values their chunks read.
type procWindow struct {
	proc0, procEnd uint32
	keys, vals     vk.Range
}

// inWindows cuts a pass's input (keys and values, or the keys twice for
// keys alone) into the dispatches of its count and scatter: one for every
// processor, or past one binding one per window of winProcs processors'
// chunks.
func (p *threePhasePlan) inWindows(keys, vals vk.Range) []procWindow {
	if p.winProcs == 0 {
		return []procWindow{{0, p.procs, keys, vals}}
	}
	n, chunk := uint64(p.n), uint64(p.chunk)
	var ws []procWindow
	for p0 := uint32(0); p0 < p.procs; p0 += p.winProcs {
		p1 := min(p0+p.winProcs, p.procs)
		first := uint64(p0) * chunk
		count := min(uint64(p1)*chunk, n) - first
		w := procWindow{proc0: p0, procEnd: p1, keys: keys.Sub(first*p.keyBytes, count*p.keyBytes)}
		w.vals = w.keys
		if p.sort.Values {
			w.vals = vals.Sub(first*4, count*4)
		}
		ws = append(ws, w)
	}
	return ws
}

// outWindows returns the output windows the wide scatter binds, of
// winSlots slots each (the last shorter; those past the output bound to
// the first, unused), or the outputs whole in the first where the keys
// fit one binding. For keys alone the values' are the keys'.
func (p *threePhasePlan) outWindows(keys, vals vk.Range) (k, v [tiling.MaxOutWindows]vk.Range) {
	if p.winProcs == 0 {
		k[0], v[0] = keys, vals
		return k, v
	}
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
