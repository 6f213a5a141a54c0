package radix

import (
	"fmt"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// threePhase is the three phases' own tuning: a count (where the scatter
// before did not count the pass's digits), a scan and a scatter per pass.
type threePhase struct {
	// procs processors, each owning chunk keys.
	procs, chunk uint32
	carry        bool // TailsHold: the scatter holds each run's last partial block back
	// fused: each scatter that fits the next pass's counters (nextFits)
	// counts the next pass's digits into the other hist region.
	fused    bool
	nextFits nextFits
	layout   scratchLayout
	// Past one binding (keys of more than maxStorageBufferRange bytes),
	// the count and scatter run winProcs processors a dispatch, whose
	// chunks lie in one window of the keys (and values), and the scatter
	// binds its outputs as outWindows windows of winSlots slots. All 0
	// where the keys fit one binding.
	winProcs, winSlots, outWindows uint32
	// scanWG is the workgroup of the scan of each digit's row of procs
	// counts (deviceTuning.scanWorkgroup).
	scanWG uint32
}

// tuneThreePhase picks the three phases' tuning for q: the held tails,
// the processors and their chunks, the fused counts, the scratch and,
// past one binding of bind bytes, the windows; or refuses, naming why.
func tuneThreePhase(info vk.DeviceInfo, q request, sh scatterShape, bind uint64) (*threePhase, error) {
	o := q.sort.Options
	carry := o.Tails == TailsHold || autoHold(info, q.sort, sh, q.digits)
	fits := sh.nextFits(carry, info.MaxSharedMemory)
	chunk := chunkFor(info, q, scatterIters(sh, q.bits, carry, false), bind)
	fused, err := fusedCounts(info, o, sh, q.digits, fits, carry, chunk)
	if err != nil {
		return nil, err
	}
	if fused {
		chunk = min(chunk, maxChunk(scatterIters(sh, q.bits, carry, true), uint64(q.wg)*uint64(q.kpl)))
	}
	n := uint64(q.n)
	t := &threePhase{procs: uint32(max(align.CeilDiv(n, chunk), 1)), chunk: uint32(chunk), carry: carry, fused: fused, nextFits: fits}
	t.scanWG = tuningFor(info).scanWorkgroup(info, t.procs)
	t.layout = threePhaseLayout(n, q.keyBytes, q.sort.Values, q.buckets(), t.procs, fused)
	if err := t.windows(info, q, bind); err != nil {
		return nil, err
	}
	return t, nil
}

// report writes the three phases' choices into t.
func (t *threePhase) report(r *Tuning) {
	r.Path, r.Processors, r.Chunk, r.FusedCounts, r.HeldTails = vkcompact.PathThreePhase, t.procs, t.chunk, t.fused, t.carry
	r.WindowProcessors, r.OutWindows = t.winProcs, t.outWindows
}

// fuses reports whether pass i's scatter counts pass i+1's digits (so
// that pass i+1 has no count phase): with fused counts, where its
// counters fit (nextFits.fusable).
func (t *threePhase) fuses(d digits, i uint32) bool { return t.fused && t.nextFits.fusable(d, i) }

// counted reports whether pass i has a count phase of its own.
func (t *threePhase) counted(d digits, i uint32) bool { return i == 0 || !t.fuses(d, i-1) }

// autoHold is TailsAuto's choice of held tails: for keys with values on a
// device whose table holds pair tails (a GPU), where the carried keys fit
// the scatter's shared memory and no pass but the last (which counts
// nothing) loses its fused counts to them.
func autoHold(info vk.DeviceInfo, s Sort, sh scatterShape, d digits) bool {
	if s.Tails != TailsAuto || !s.Values || !tuningFor(info).holdPairTails || sh.shared(d.bits, true) > info.MaxSharedMemory {
		return false
	}
	for i := uint32(0); i+1 < d.passes; i++ {
		if w := d.width(i); sh.fitsNext(w, false, info.MaxSharedMemory) && !sh.fitsNext(w, true, info.MaxSharedMemory) {
			return false
		}
	}
	return true
}

// fusedCounts decides Options.Counts: whether scatters count the next
// pass's digits. CountsFused takes them wherever there are two passes,
// and is refused where they do not apply; CountsAuto takes them where
// some pass's counters fit (fusable) and a chunk holds the table's
// fusedChunkPerCounter * 4^w keys for the widest such pass, w bits.
func fusedCounts(info vk.DeviceInfo, o Options, sh scatterShape, d digits, fits nextFits, carry bool, chunk uint64) (bool, error) {
	if o.Counts > CountsFused {
		return false, invalid("radix: unknown counts mode %d", o.Counts)
	}
	var whyNot string
	switch need := sh.shared(d.bits, carry) + nextCounters(d.bits); {
	case d.bits > MaxFusedBits:
		whyNot = fmt.Sprintf("%d-bit digits: at most %d", d.bits, MaxFusedBits)
	case need > info.MaxSharedMemory:
		whyNot = fmt.Sprintf("the scatter would need %d bytes of shared memory; the device has %d", need, info.MaxSharedMemory)
	}
	switch {
	case o.Counts == CountsFused && whyNot != "":
		return false, invalid("radix: fused counts do not apply: %s", whyNot)
	case o.Counts == CountsFused:
		return d.passes >= 2, nil
	case o.Counts == CountsSeparate || d.bits > MaxFusedBits || d.passes < 2:
		return false, nil
	}
	widest := uint32(0)
	for i := range d.passes {
		if fits.fusable(d, i) {
			widest = max(widest, d.width(i))
		}
	}
	return widest > 0 && chunk >= tuningFor(info).fusedChunkPerCounter<<(2*widest), nil
}

// loopIters counts the loop iterations of one invocation of the scatter,
// inner loops included: perRound for each round of its chunk, fixed once.
type loopIters struct{ perRound, fixed uint64 }

// scatterIters counts the scatter's loop iterations for digits of bits
// bits: per round the ranking, the scan of run lengths and the write-out;
// with held tails the carried keys' copy into the stage and their
// write-out; with fused counts the zeroing and final flush of the
// counters (fixed), and per round (a run crossing its chunk boundary
// taken as every round) a flush, a recount over the stage (and the
// carried keys) and an update per digit.
func scatterIters(sh scatterShape, bits uint32, carry, fused bool) loopIters {
	wg, buckets := uint64(sh.wg), uint64(1)<<bits
	it := loopIters{perRound: 4 + align.CeilDiv(buckets, wg)*uint64(1+sh.subgroups) + uint64(sh.kpl)*uint64(5+bits) + uint64(sh.subgroups)}
	if carry {
		it.perRound += align.CeilDiv(buckets*TailSector, wg) + align.CeilDiv(buckets*(TailSector-1), wg)
	}
	if fused {
		perCounters := align.CeilDiv(buckets*buckets, wg)
		it.fixed = 2 * perCounters
		it.perRound += perCounters + uint64(sh.kpl) + align.CeilDiv(buckets, wg)
		if carry {
			it.perRound += align.CeilDiv(buckets*(TailSector-1), wg)
		}
	}
	return it
}

// maxChunk is the longest chunk, in whole rounds, whose loop iterations
// stay under pipeline.LoopBudget: lavapipe ends a shader's loops after
// 65535 iterations (its guard against endless loops), which silently lost
// the end of a long chunk's output at subgroup size 4. Longer inputs get
// more processors instead.
func maxChunk(it loopIters, round uint64) uint64 {
	return max((pipeline.LoopBudget-min(it.fixed, pipeline.LoopBudget/2))/it.perRound, 1) * round
}

// wideStorageBuffers is the storage buffers the wide scatter binds
// (radix_scatter_wide.comp): seven, and three more windows of each
// output.
const wideStorageBuffers = 7 + 2*(tiling.MaxOutWindows-1)

// windows sizes the windows where the keys exceed one binding (limit
// bytes): the most processors whose chunks of keys (and values) fit one
// binding at an aligned offset, and the most slots of the outputs one
// binding holds, in at most tiling.MaxOutWindows windows. It refuses,
// naming the reason, what does not fit them: more keys than four windows
// hold, a device that allows fewer storage buffers per stage than the
// wide scatter binds, or a last chunk that would end past 2^32-1 (the
// kernels' slots are 32-bit).
func (t *threePhase) windows(info vk.DeviceInfo, q request, limit uint64) error {
	n := uint64(q.n)
	if n*q.keyBytes <= limit {
		return nil
	}
	valBytes := uint64(0)
	if q.sort.Values {
		valBytes = 4
	}
	past := fmt.Sprintf("radix: %d keys of %d bytes exceed one binding (%d bytes, maxStorageBufferRange)", n, q.keyBytes, limit)
	procs := tiling.WindowTiles(info, limit, uint64(t.chunk)*q.keyBytes, uint64(t.chunk)*valBytes)
	slots := tiling.WindowTiles(info, limit, q.keyBytes, valBytes)
	switch {
	case procs == 0 || slots == 0:
		return invalid("%s, and no window of whole chunks of %d keys at aligned offsets fits one", past, t.chunk)
	case align.CeilDiv(n, uint64(slots)) > tiling.MaxOutWindows:
		return invalid("%s: past it the sort binds each output as at most %d windows of %d keys, %d keys in all",
			past, tiling.MaxOutWindows, slots, tiling.MaxOutWindows*uint64(slots))
	case info.MaxPerStageStorageBuffers != 0 && info.MaxPerStageStorageBuffers < wideStorageBuffers:
		return invalid("%s: past it the scatter binds %d storage buffers; the device allows %d (maxPerStageDescriptorStorageBuffers)",
			past, wideStorageBuffers, info.MaxPerStageStorageBuffers)
	case uint64(t.procs)*uint64(t.chunk) > math.MaxUint32:
		return invalid("%s: the last of %d chunks of %d keys would end past slot 2^32-1", past, t.procs, t.chunk)
	}
	t.winProcs, t.winSlots, t.outWindows = evenWindows(info, t.procs, procs, uint64(t.chunk)*q.keyBytes, uint64(t.chunk)*valBytes), slots, uint32(align.CeilDiv(n, uint64(slots)))
	return nil
}

// evenWindows returns the processors per window that cut procs into as
// few windows as most per window does, of nearly equal size, with every
// window's offsets aligned (keyBytes and valBytes per processor): the
// windows' dispatches run one after the other, so a last window of a few
// processors would leave the device nearly idle through its dispatch.
func evenWindows(info vk.DeviceInfo, procs, most uint32, keyBytes, valBytes uint64) uint32 {
	windows := align.CeilDiv(uint64(procs), uint64(most))
	a := max(uint64(info.MinStorageBufferOffsetAlignment), 1)
	for w := align.CeilDiv(uint64(procs), windows); w < uint64(most); w++ {
		if w*keyBytes%a == 0 && w*valBytes%a == 0 {
			return uint32(w)
		}
	}
	return most
}
