package compact

import (
	"fmt"

	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The tuning of a selection: a pure function of the device's information,
// the element count and the Selection, which creates nothing.

// tunePlan checks sel for n elements on a device with info and picks the
// plan's tuning and sizes: a pure function of its arguments, which creates
// nothing (the plan it returns has no context and no pipelines).
func tunePlan(info vk.DeviceInfo, n uint64, sel Selection) (*Plan, error) {
	if err := sel.Elem.Check(); err != nil {
		return nil, vk.Invalidf("%w", err)
	}
	if n > MaxElements {
		return nil, invalid("compact: %d elements: at most %d", n, uint64(MaxElements))
	}
	pred, lo, hi, err := sel.Keep.encode(sel.Elem.Key)
	if err != nil {
		return nil, vk.Invalidf("%w", err)
	}
	p := &Plan{sel: sel, n: uint32(n), size: uint64(sel.Elem.Size()), pred: pred, cLo: lo, cHi: hi}
	words := uint32(p.size / 4)
	epv := uint32(1)
	switch words {
	case 1:
		epv = 4
	case 2:
		epv = 2
	}
	o := sel.Options
	if p.wg, p.loads, p.procs, err = o.resolve(info, words); err != nil {
		return nil, err
	}
	if o.GroupSize == 0 {
		p.sel.GroupSize = 64
	}
	if o.Path > PathSinglePass {
		return nil, invalid("compact: unknown path %d", o.Path)
	}
	if o.Write > WriteStaged { // checked here too: the single pass ignores Write
		return nil, invalid("compact: unknown write strategy %d", o.Write)
	}
	if sel.ReverseRejected && !sel.Split {
		return nil, invalid("compact: ReverseRejected applies to a split only")
	}
	if o.Path == PathSinglePass || (o.Path == PathAuto && autoSinglePass(info)) {
		why := p.planSinglePass(info, n, words, epv)
		if why == "" {
			return p, nil
		}
		if o.Path == PathSinglePass {
			return nil, invalid("compact: the single pass does not apply: %s", why)
		}
	}
	p.stageWords = uint64(p.wg) * uint64(p.loads) * uint64(epv) * uint64(words)
	fits := p.stageWords*4 <= uint64(info.MaxSharedMemory)
	switch o.Write {
	case WriteStaged:
		if !fits {
			return nil, invalid("compact: the staged write needs %d bytes of shared memory here (workgroup %d, %d loads per lane, %d-byte elements); the device has %d",
				p.stageWords*4, p.wg, p.loads, p.size, info.MaxSharedMemory)
		}
		p.staged = true
	case WriteAuto:
		p.staged = fits // staged was the faster everywhere measured (BENCHMARKS.md)
	case WriteScattered:
	default:
		return nil, invalid("compact: unknown write strategy %d", o.Write)
	}
	if !p.staged {
		p.stageWords = 1
	}

	c, err := cutChunks(info, n, p.size, p.procs, maxChunk(info, p.loads, epv, words, p.staged))
	if err != nil {
		return nil, err
	}
	p.procs, p.chunk, p.nChunks, p.segElems = c.procs, c.chunk, c.nChunks, c.segElems

	// Scratch: counts, copy-back arguments, and the in-place copy.
	p.countsBytes = alignUp((uint64(p.procs)+2)*4, 256)
	if sel.InPlace {
		p.pieces = uint32(ceilDiv(n, uint64(p.segElems)))
	}
	p.argsOff = p.countsBytes
	p.argsBytes = alignUp(uint64(max(p.pieces, 1))*16, 256)
	p.tmpOff = p.argsOff + p.argsBytes
	p.scratch = p.tmpOff
	if sel.InPlace {
		p.scratch += alignUp(n*p.size, 256)
	}
	return p, nil
}

// autoSinglePass is PathAuto's choice where the single pass applies: on
// every GPU, where it measured faster than the three phases at every size
// (the H100, BENCHMARKS.md); not on CPU devices, where the three phases
// were the faster.
func autoSinglePass(info vk.DeviceInfo) bool {
	return !info.CPU()
}

// planSinglePass sizes the single pass, or says why it does not apply.
func (p *Plan) planSinglePass(info vk.DeviceInfo, n uint64, words, epv uint32) string {
	sel := p.sel
	limit := uint64(info.MaxStorageBufferRange)
	switch {
	case sel.InPlace:
		return "it does not run in place"
	case sel.Split && !sel.ReverseRejected:
		return "a split with the rejected elements in order needs the three phases (ReverseRejected allows the single pass)"
	case n == 0:
		return "there are no elements"
	case n > MaxSinglePassElements:
		return fmt.Sprintf("%d elements: at most %d", n, MaxSinglePassElements)
	case n*p.size > limit:
		return fmt.Sprintf("%d bytes of elements exceed one binding (maxStorageBufferRange %d)", n*p.size, limit)
	case sel.Keep.Op == Flagged && alignUp(n*uint64(sel.Keep.FlagBytes), 4) > limit:
		return fmt.Sprintf("the flags exceed one binding (maxStorageBufferRange %d)", limit)
	}
	maxSubgroups := uint64(p.wg / max(info.MinSubgroupSize, 1))
	shared := func(loads uint32) uint64 {
		return 4 * (uint64(p.wg*loads*epv*words) + uint64(loads+1)*maxSubgroups + 8)
	}
	loads := p.sel.LoadsPerLane
	if loads == 0 {
		// Tiles of 4 loads per lane, where they fit shared memory: on the
		// H100 fewer, larger tiles (less look-back) beat the registers 3
		// loads save (BENCHMARKS.md).
		loads = MaxLoadsPerLane
		for loads > 1 && shared(loads) > uint64(info.MaxSharedMemory) {
			loads--
		}
	}
	if shared(loads) > uint64(info.MaxSharedMemory) {
		return fmt.Sprintf("a tile's output needs %d bytes of shared memory (workgroup %d, %d loads per lane, %d-byte elements); the device has %d",
			shared(loads), p.wg, loads, p.size, info.MaxSharedMemory)
	}
	p.onepass = true
	p.loads = loads
	p.tile = p.wg * loads * epv
	p.tiles = uint32(ceilDiv(n, uint64(p.tile)))
	p.scratch = alignUp(uint64(p.tiles+1)*4, 256)
	p.spins = SpinsFor(info, sel.Spins)
	p.byIndex = tilesByIndex(info, sel.Split)
	return ""
}

// SpinsFor resolves a single pass's Options.Spins for a device: the
// re-reads of an unpublished predecessor before the fallback (package
// radix resolves its sort's the same way).
func SpinsFor(info vk.DeviceInfo, spins int32) uint32 {
	switch {
	case spins < 0:
		return 0
	case spins > 0:
		return uint32(spins)
	case info.CPU():
		// lavapipe ends any loop after 65535 iterations: count a late
		// predecessor at once rather than wait for it.
		return 0
	}
	return 64
}

// byIndex says whether the single pass's tiles go by workgroup index: for
// a compaction on a GPU. A split, and any single pass on a CPU device,
// takes tiles from the counter. lavapipe ends a shader's loops after 65535
// iterations in all (a guard against endless loops), and it does not run
// the workgroups of a 2D grid in index order: by index, a tile of the
// grid's second row ran before most of its predecessors and fell back over
// tens of thousands of them, past that guard, and wrote wrong output
// (2^20 uint32 at subgroup size 4 with tiles of 16). From the counter, a
// tile's unpublished predecessors are only those still running beside it.
func tilesByIndex(info vk.DeviceInfo, split bool) bool {
	return !split && !info.CPU()
}

// resolve applies the per-device defaults to the options shared by the
// selection and the prefix sum, and checks them.
func (o Options) resolve(info vk.DeviceInfo, words uint32) (wg, loads, procs uint32, err error) {
	wg = o.WorkgroupSize
	if wg == 0 {
		wg = max(256, info.MaxSubgroupSize)
	}
	if wg%info.MaxSubgroupSize != 0 {
		return 0, 0, 0, invalid("compact: workgroup size %d is not a multiple of the largest subgroup size %d", wg, info.MaxSubgroupSize)
	}
	loads = o.LoadsPerLane
	if loads == 0 {
		loads = defaultLoads(words)
	}
	if loads > MaxLoadsPerLane {
		return 0, 0, 0, invalid("compact: %d loads per lane: at most %d", loads, MaxLoadsPerLane)
	}
	procs = o.Processors
	if procs == 0 {
		procs = defaultProcessors(info, wg)
	}
	// The counts of all processors, and two words more, are one binding.
	if limit := info.MaxStorageBufferRange/4 - 2; procs > limit {
		return 0, 0, 0, invalid("compact: %d processors: at most %d (their counts must fit one binding)", procs, limit)
	}
	return wg, loads, procs, nil
}

// chunks is Billeter's cut of the input: nChunks chunks of chunk elements
// (the last shorter), each walked by one subgroup, bound segElems
// elements (whole chunks) at a time so that no binding exceeds
// maxStorageBufferRange.
type chunks struct {
	procs, chunk, nChunks, segElems uint32
}

// maxChunk bounds a chunk so that one subgroup's walk stays under pipeline.LoopBudget
// loop iterations, the staged write-out's inner iterations included.
// lavapipe stops a shader's loops after 65535 iterations (its guard
// against endless loops): a longer walk silently lost the end of its
// output there. Longer inputs get more processors instead.
func maxChunk(info vk.DeviceInfo, loads, epv, words uint32, staged bool) uint64 {
	perStep := uint64(1)
	if staged {
		perStep += uint64(loads * epv * words)
	}
	steps := pipeline.LoopBudget / perStep
	step := uint64(max(info.MinSubgroupSize, 1) * loads * epv)
	return max((steps*step)&^(chunkAlign-1), chunkAlign)
}

// defaultLoads is the loads per lane per step: enough to keep several
// requests in flight per lane.
func defaultLoads(words uint32) uint32 {
	if words <= 4 {
		return 2
	}
	return 4
}
