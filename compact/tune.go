package compact

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/align"

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
	return tuneSegments(info, n, sel, 0)
}

// tuneSegments is tunePlan with the three phases' segments bound at most
// segBytes bytes at a time (0: maxStorageBufferRange, as tunePlan does):
// their destination pages and in-place copy-back pieces follow. Tests
// pass a small limit so that small inputs take several segments; it is
// an argument rather than package state, so the tuning stays a pure
// function of its arguments.
func tuneSegments(info vk.DeviceInfo, n uint64, sel Selection, segBytes uint64) (*Plan, error) {
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

	cutInfo := info // tiling.Cut reads maxStorageBufferRange only, as the segments' bound
	if segBytes != 0 && segBytes < uint64(info.MaxStorageBufferRange) {
		cutInfo.MaxStorageBufferRange = uint32(segBytes)
	}
	c, err := tiling.Cut(cutInfo, n, p.size, p.procs, tiling.MaxChunk(info, p.loads, epv, words, p.staged))
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	p.procs, p.chunk, p.nChunks, p.segElems = c.Procs, c.Chunk, c.NChunks, c.SegElems

	// Scratch: counts, copy-back arguments, and the in-place copy
	// (scratchLayout).
	p.countsBytes = align.Up(countsWords(p.procs)*4, 256)
	if sel.InPlace {
		p.pieces = uint32(align.CeilDiv(n, uint64(p.segElems)))
	}
	p.argsOff = p.countsBytes
	p.argsBytes = align.Up(uint64(max(p.pieces, 1))*16, 256)
	p.tmpOff = p.argsOff + p.argsBytes
	p.scratch = p.tmpOff
	if sel.InPlace {
		p.scratch += align.Up(n*p.size, 256)
	}
	return p, nil
}

// countsWords is the words of the three phases' counts for procs
// processors: each chunk's count (its first slot once scanned; the kept
// total at the chunk count), then the kept total at procs and the element
// count at procs + 1 (shaders/compact/select_scan.comp), which the move and the
// copy-back read.
func countsWords(procs uint32) uint64 { return uint64(procs) + 2 }

// region is a range of the scratch: off bytes from its start, size bytes
// long (none when size is 0).
type region struct{ off, size uint64 }

// scratchLayout is what the plan's kernels use of the scratch, as Record
// binds it: the single pass's status words (tile counter, one per tile,
// finished count); or the three phases' counts, the copy-back's indirect
// arguments (16 bytes per piece; bound even when there is no copy-back)
// and, in place, the copy of the output the move writes.
type scratchLayout struct {
	status, counts, args, tmp region
}

func (p *Plan) scratchLayout() scratchLayout {
	if p.onepass {
		return scratchLayout{status: region{0, (uint64(p.tiles) + 2) * 4}}
	}
	l := scratchLayout{counts: region{0, countsWords(p.procs) * 4}, args: region{p.argsOff, uint64(max(p.pieces, 1)) * 16}}
	if p.sel.InPlace {
		l.tmp = region{p.tmpOff, uint64(p.n) * p.size}
	}
	return l
}

// planSinglePass sizes the single pass, or says why it does not apply.
func (p *Plan) planSinglePass(info vk.DeviceInfo, n uint64, words, epv uint32) string {
	sel := p.sel
	limit := bindingLimit(info)
	switch {
	case sel.InPlace:
		return "it does not run in place"
	case sel.Split && !sel.ReverseRejected:
		return "a split with the rejected elements in order needs the three phases (ReverseRejected allows the single pass)"
	case n == 0:
		return "there are no elements"
	case n > vkcompact.MaxSinglePassElements:
		return fmt.Sprintf("%d elements: at most %d", n, vkcompact.MaxSinglePassElements)
	}
	wg0, loads0 := p.wg, p.loads // the three phases' if the single pass does not apply
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
	p.tiles = uint32(align.CeilDiv(n, uint64(p.tile)))
	if status := (uint64(p.tiles) + 2) * 4; status > uint64(info.MaxStorageBufferRange) {
		p.onepass, p.wg, p.loads = false, wg0, loads0
		return fmt.Sprintf("its tile status (%d bytes for %d tiles of %d elements) exceeds one binding (maxStorageBufferRange %d)", status, p.tiles, p.tile, info.MaxStorageBufferRange)
	}
	p.scratch = align.Up(uint64(p.tiles+2)*4, 256) // tile counter, status words, finished count
	p.spins = tiling.Spins(info, sel.Spins)
	p.byIndex = tiling.TilesByIndex(info, sel.Split, p.tiles)
	p.selfReset = tiling.SelfReset(p.tiles)
	if why := p.planWindows(info, n, limit); why != "" {
		p.onepass, p.wg, p.loads, p.windowTiles, p.winWords = false, wg0, loads0, 0, 0
		return why
	}
	return ""
}

// planWindows cuts a single pass whose elements or flags exceed one
// binding (limit bytes) into one dispatch per input window, with the
// output bound as up to tiling.MaxOutWindows windows, or says why it
// cannot.
func (p *Plan) planWindows(info vk.DeviceInfo, n, limit uint64) string {
	fb := uint64(0)
	if p.sel.Keep.Op == Flagged {
		fb = uint64(p.sel.Keep.FlagBytes)
	}
	bytes := n * p.size
	if bytes <= limit && align.Up(n*fb, 4) <= limit {
		return ""
	}
	tile := uint64(p.tile)
	p.windowTiles = tiling.WindowTiles(info, limit, tile*p.size, tile*fb)
	if p.windowTiles == 0 {
		return fmt.Sprintf("past one binding (%d bytes of elements, maxStorageBufferRange %d) its windows are whole tiles at offsets aligned to %d bytes, and one binding holds none of tiles of %d bytes of elements and %d of flags",
			bytes, limit, info.MinStorageBufferOffsetAlignment, tile*p.size, tile*fb)
	}
	if m := info.MaxPerStageStorageBuffers; m > 0 && m < wideBindings {
		return fmt.Sprintf("past one binding its kernel binds %d storage buffers; the device allows %d per stage (maxPerStageDescriptorStorageBuffers)", wideBindings, m)
	}
	win := tiling.OutWindowBytes(info, limit)
	if w := align.CeilDiv(bytes, win); w > tiling.MaxOutWindows {
		return fmt.Sprintf("its output of %d bytes needs %d bindings of %d bytes (maxStorageBufferRange %d): it binds at most %d",
			bytes, w, win, limit, tiling.MaxOutWindows)
	}
	p.winWords = uint32(win / 4)
	p.selfReset = false // a clear before every pass (many tiles: tiling.SelfReset)
	return ""
}

// wideBindings is select_onepass_wide's storage buffers.
const wideBindings = 11

// testWindowLimit, when not zero, replaces maxStorageBufferRange as the
// bytes one binding of the single pass holds: tests set it to cut small
// inputs into windows.
var testWindowLimit uint64

// bindingLimit is the bytes the single pass puts in one binding.
func bindingLimit(info vk.DeviceInfo) uint64 {
	if testWindowLimit != 0 {
		return min(testWindowLimit, uint64(info.MaxStorageBufferRange))
	}
	return uint64(info.MaxStorageBufferRange)
}
