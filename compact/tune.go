package compact

import (
	"fmt"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
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
	if p.wg, p.loads, p.procs, err = tiling.Resolve(info, o.WorkgroupSize, o.LoadsPerLane, o.Processors, words); err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	if o.GroupSize == 0 {
		p.sel.GroupSize = 64
	}
	if o.Path > vkcompact.PathSinglePass {
		return nil, invalid("compact: unknown path %d", o.Path)
	}
	if o.Write > WriteStaged { // checked here too: the single pass ignores Write
		return nil, invalid("compact: unknown write strategy %d", o.Write)
	}
	if sel.ReverseRejected && !sel.Split {
		return nil, invalid("compact: ReverseRejected applies to a split only")
	}
	if o.Path == vkcompact.PathSinglePass || (o.Path == vkcompact.PathAuto && tiling.AutoSinglePass(info)) {
		why := p.planSinglePass(info, n, words, epv)
		if why == "" {
			return p, nil
		}
		if o.Path == vkcompact.PathSinglePass {
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
		p.staged = fits // staged was the faster everywhere measured (BENCHMARKS-history.md)
	case WriteScattered:
	default:
		return nil, invalid("compact: unknown write strategy %d", o.Write)
	}
	if !p.staged {
		p.stageWords = 1
	}

	c, err := tiling.Cut(info, n, p.size, p.procs, tiling.MaxChunk(info, p.loads, epv, words, p.staged))
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	p.procs, p.chunk, p.nChunks, p.segElems = c.Procs, c.Chunk, c.NChunks, c.SegElems

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
	case n > vkcompact.MaxSinglePassElements:
		return fmt.Sprintf("%d elements: at most %d", n, vkcompact.MaxSinglePassElements)
	case n*p.size > limit:
		return fmt.Sprintf("%d bytes of elements exceed one binding (maxStorageBufferRange %d)", n*p.size, limit)
	case sel.Keep.Op == Flagged && alignUp(n*uint64(sel.Keep.FlagBytes), 4) > limit:
		return fmt.Sprintf("the flags exceed one binding (maxStorageBufferRange %d)", limit)
	}
	shared := func(loads uint32) uint64 {
		maxSubgroups := uint64(p.wg / max(info.MinSubgroupSize, 1))
		return 4 * (uint64(p.wg*loads*epv*words) + uint64(loads+1)*maxSubgroups + 8)
	}
	loads := p.sel.LoadsPerLane
	if wg, l, ok := tiling.SmallTiles(info, n*p.size, sel.WorkgroupSize, loads); ok {
		old := p.wg
		if p.wg = wg; shared(l) <= uint64(info.MaxSharedMemory) {
			loads = l
		} else {
			p.wg = old
		}
	}
	if loads == 0 {
		// Tiles of 4 loads per lane, where they fit shared memory: on the
		// H100 fewer, larger tiles (less look-back) beat the registers 3
		// loads save (BENCHMARKS-history.md).
		loads = vkcompact.MaxLoadsPerLane
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
	p.scratch = alignUp(uint64(p.tiles+2)*4, 256) // tile counter, status words, finished count
	p.spins = tiling.Spins(info, sel.Spins)
	p.byIndex = tiling.TilesByIndex(info, sel.Split, p.tiles)
	p.selfReset = tiling.SelfReset(p.tiles)
	return ""
}
