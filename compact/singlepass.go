package compact

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/bufcheck"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// singlePass is the single pass: one workgroup per tile, which publishes
// its kept count and finds its output offset by decoupled look-back over
// its predecessors' status words in the scratch. Past one binding the
// input is cut into windows of windowTiles tiles, one dispatch each.
type singlePass struct {
	wg, loads   uint32
	tile, tiles uint32
	spins       uint32
	byIndex     bool   // tiles go by workgroup index (tiling.TilesByIndex)
	selfReset   bool   // the pass leaves its status words zero (tiling.SelfReset)
	windowTiles uint32 // past one binding: tiles per dispatch (0: one dispatch)
	winWords    uint32 // past one binding: words per output window
	maxX        uint32 // maxComputeWorkGroupCount[0]
	// status is the scratch's status words: the tile counter, one per
	// tile, and the finished count.
	status  region
	lengths *runLengths // run lengths: the tiles' records and the fix-up
	scratch uint64
	pass    pipeline.TypedPipeline[onepassPush, onepassBindings]     // within one binding
	wide    pipeline.TypedPipeline[onepassPush, onepassWideBindings] // past one binding (windowTiles > 0)
}

// singlePassPhases names the intervals RecordTimed measures on the single
// pass (Plan.Phases).
var singlePassPhases = []string{"clear", "pass"}

// tuneSinglePass sizes the single pass for q on a device with info, with
// at most windowBytes bytes in one binding (0: maxStorageBufferRange), or
// says why it does not apply.
func tuneSinglePass(info vk.DeviceInfo, q *request, windowBytes uint64) (singlePass, string) {
	sel := &q.sel
	n := uint64(q.n)
	switch {
	case sel.InPlace:
		return singlePass{}, "it does not run in place"
	case sel.Split && !sel.ReverseRejected:
		return singlePass{}, "a split with the rejected elements in order needs the three phases (ReverseRejected allows the single pass)"
	case n > vkcompact.MaxSinglePassElements:
		return singlePass{}, fmt.Sprintf("%d elements: at most %d", n, vkcompact.MaxSinglePassElements)
	}
	s := singlePass{maxX: info.MaxWorkgroupCount[0]}
	var why string
	if s.wg, s.loads, why = singlePassTiles(info, q); why != "" {
		return singlePass{}, why
	}
	s.tile = s.wg * s.loads * q.epv
	// An empty input is one tile of no elements, whose workgroup writes
	// the result block, as a GPU count of 0 leaves it.
	s.tiles = uint32(max(align.CeilDiv(n, uint64(s.tile)), 1))
	s.status = region{0, (uint64(s.tiles) + 2) * 4}
	if s.status.size > uint64(info.MaxStorageBufferRange) {
		return singlePass{}, fmt.Sprintf("its tile status (%d bytes for %d tiles of %d elements) exceeds one binding (maxStorageBufferRange %d)",
			s.status.size, s.tiles, s.tile, info.MaxStorageBufferRange)
	}
	s.scratch = align.Up(s.status.size, 256)
	if sel.Output == outputRunLengths {
		s.lengths, s.scratch = newRunLengths(s.tiles, s.scratch)
	}
	s.spins = tiling.Spins(info, sel.Spins)
	s.byIndex = tiling.TilesByIndex(info, sel.Split, s.tiles)
	s.selfReset = tiling.SelfReset(s.tiles)
	if s.windowTiles, s.winWords, why = planWindows(info, q, s.tile, bindingBytes(info, windowBytes)); why != "" {
		return singlePass{}, why
	}
	if s.windowTiles > 0 {
		s.selfReset = false // a clear before every pass (many tiles: tiling.SelfReset)
	}
	return s, ""
}

// singlePassTiles picks the single pass's workgroup size and loads per
// lane for q: the small tiles of the tuning table on small inputs where
// the caller chose neither and they fit, else the resolved workgroup with
// the loads the caller chose or the table's, as many as fit shared
// memory; or it says why no tile fits.
func singlePassTiles(info vk.DeviceInfo, q *request) (wg, loads uint32, why string) {
	shared := func(wg, loads uint32) uint64 {
		maxSubgroups := uint64(wg / max(info.MinSubgroupSize, 1))
		return 4 * (uint64(wg*loads*q.epv*q.words) + uint64(loads+1)*maxSubgroups + 8)
	}
	c := tuningFor(info)
	wg, loads = q.wg, q.sel.LoadsPerLane
	if w, l, ok := c.smallTiles(info, uint64(q.n)*q.size, q.sel.WorkgroupSize, loads); ok && shared(w, l) <= uint64(info.MaxSharedMemory) {
		wg, loads = w, l
	}
	if loads == 0 {
		loads = c.singlePassLoads
		for loads > 1 && shared(wg, loads) > uint64(info.MaxSharedMemory) {
			loads--
		}
	}
	if need := shared(wg, loads); need > uint64(info.MaxSharedMemory) {
		return 0, 0, fmt.Sprintf("a tile's output needs %d bytes of shared memory (workgroup %d, %d loads per lane, %d-byte elements); the device has %d",
			need, wg, loads, q.size, info.MaxSharedMemory)
	}
	return wg, loads, ""
}

// planWindows cuts a single pass of tiles of tile elements whose elements
// or flags exceed one binding (limit bytes) into one dispatch per input
// window of windowTiles tiles, with the output bound as up to
// tiling.MaxOutWindows windows of winWords words; both are 0 where one
// binding holds everything. Or it says why it cannot.
func planWindows(info vk.DeviceInfo, q *request, tile uint32, limit uint64) (windowTiles, winWords uint32, why string) {
	fb := uint64(0)
	if q.sel.Keep.Op == Flagged {
		fb = uint64(q.sel.Keep.FlagBytes)
	}
	n := uint64(q.n)
	bytes := n * q.size
	if bytes <= limit && align.Up(n*fb, 4) <= limit {
		return 0, 0, ""
	}
	t := uint64(tile)
	windowTiles = tiling.WindowTiles(info, limit, t*q.size, t*fb)
	if windowTiles == 0 {
		return 0, 0, fmt.Sprintf("past one binding (%d bytes of elements, maxStorageBufferRange %d) its windows are whole tiles at offsets aligned to %d bytes, and one binding holds none of tiles of %d bytes of elements and %d of flags",
			bytes, limit, info.MinStorageBufferOffsetAlignment, t*q.size, t*fb)
	}
	if m := info.MaxPerStageStorageBuffers; m > 0 && m < wideBindings {
		return 0, 0, fmt.Sprintf("past one binding its kernel binds %d storage buffers; the device allows %d per stage (maxPerStageDescriptorStorageBuffers)", wideBindings, m)
	}
	win := tiling.OutWindowBytes(info, limit)
	if w := align.CeilDiv(bytes, win); w > tiling.MaxOutWindows {
		return 0, 0, fmt.Sprintf("its output of %d bytes needs %d bindings of %d bytes (maxStorageBufferRange %d): it binds at most %d",
			bytes, w, win, limit, tiling.MaxOutWindows)
	}
	return windowTiles, uint32(win / 4), ""
}

// wideBindings is select_onepass_wide's storage buffers, counted from its
// bindings struct (held to the GLSL by TestKernelBlocks).
var wideBindings = uint32(len(onepassWideKernel.Bindings))

func (s *singlePass) scratchSize() uint64 { return s.scratch }

func (s *singlePass) phases() []string { return withLengths(singlePassPhases, s.lengths) }

func (s *singlePass) tuning() Tuning {
	return Tuning{Path: vkcompact.PathSinglePass, WorkgroupSize: s.wg, LoadsPerLane: s.loads, Write: WriteStaged,
		SinglePassTuning: SinglePassTuning{Tile: s.tile, Tiles: s.tiles, Spins: s.spins, TilesByIndex: s.byIndex, SelfReset: s.selfReset,
			WindowTiles: s.windowTiles, OutWindowBytes: uint64(s.winWords) * 4}}
}

// pipelines creates the single pass's pipeline on ctx.
func (s *singlePass) pipelines(ctx *vk.Context, q *request) error {
	split := uint32(0)
	if q.sel.Split {
		split = 1
	}
	// Which tile a workgroup takes. From a counter (atomicAdd at its
	// start), every tile it waits on belongs to a workgroup already
	// running, whatever order the device starts workgroups in. By its
	// index in the dispatch, it starts loading at once, a round trip to
	// memory earlier; a predecessor not yet started costs only the
	// fallback, so this is safe anywhere and fast where workgroups start
	// in index order (tiling.TilesByIndex says where it is taken).
	byIndex := uint32(0)
	if s.byIndex {
		byIndex = 1
	}
	spec := onepassSpec{SelectSpec: q.selectSpec(s.wg, 1, s.loads),
		Split: split, StageWords: s.tile * q.words, MaxSubgroups: s.wg / max(ctx.Info().MinSubgroupSize, 1), TileByID: byIndex, OutIndex: q.outIndex(), ValueWords: q.vwords}
	if tuningFor(ctx.Info()).stageUnits {
		spec.StageUnits = 1
	}
	if tuningFor(ctx.Info()).stageRejected {
		spec.StageRej = 1
	}
	if s.lengths != nil {
		if err := s.lengths.pipelines(ctx); err != nil {
			return err
		}
	}
	var err error
	switch {
	case s.windowTiles > 0:
		s.wide, err = onepassWideKernel.Get(pipeline.For(ctx), spec) // past one binding
	case s.selfReset && q.neighbours():
		s.pass, err = onepassResetRunsKernel.Get(pipeline.For(ctx), spec)
	case s.selfReset:
		s.pass, err = onepassResetKernel.Get(pipeline.For(ctx), spec) // the pass resets its status words (shaders/include/tile_reset.glsl)
	case q.neighbours():
		s.pass, err = onepassRunsKernel.Get(pipeline.For(ctx), spec)
	default:
		s.pass, err = onepassKernel.Get(pipeline.For(ctx), spec)
	}
	return err
}

// record records the single pass: one dispatch of a workgroup per tile,
// after a clear of its status words (tile counter, tiles' status,
// finished count) unless the commands recorded so far leave them zero, as
// the pass itself does up to tiling.SelfResetMaxTiles tiles
// (shaders/include/tile_reset.glsl). It calls stamp before the clear, after it
// and at the end.
func (s *singlePass) record(r *pipeline.Recorder, q *request, b Buffers, stamp func()) {
	status := b.Scratch.Sub(s.status.off, s.status.size)
	count, countOn := bufcheck.CountWord(r.CommandBuffer().Context(), b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	n := uint64(q.n)
	src, dst := b.Src.Sub(0, n*q.size), b.Dst.Sub(0, n*q.outSize())
	push := onepassPush{N: q.n, Tiles: s.tiles, CLo: q.cLo, CHi: q.cHi, CountOn: countOn,
		GroupSize: q.sel.GroupSize, MaxX: s.maxX, Spins: s.spins}
	stamp()
	if !s.selfReset || !status.KnownZero() {
		transfer.RecordFill(r, status, 0)
	}
	stamp()
	if s.windowTiles > 0 {
		s.recordWindows(r, q, b, push, status, count)
	} else {
		elems, flags := dst, q.flagsFor(b, src, 0, n)
		if q.writesElements() {
			elems = b.Elements.Sub(0, n*q.size)
		}
		values, valuesOut := q.valueRanges(b, src, dst)
		records := dst // bound, never written
		if s.lengths != nil {
			records = s.lengths.recordsIn(b.Scratch)
		}
		if n == 0 {
			// No element to bind (a binding holds something): the one
			// tile reads and writes none, so the status words stand in.
			src, dst, elems, flags, values, valuesOut = status, status, status, status, status, status
			if s.lengths == nil {
				records = status
			} // else the records, whose one tile records no run
		}
		s.pass.Dispatch(r, uint64(s.tiles), push, onepassBindings{SrcVec: src, SrcWord: src, Flags: flags, Status: status,
			DstVec: dst, DstWord: dst, Result: b.Result.Sub(0, ResultSize), GpuCount: count, DstElems: elems,
			Values: values, ValuesOut: valuesOut, RunRecords: records})
	}
	if s.selfReset {
		r.LeaveZero(status)
	}
	stamp()
	if s.lengths != nil {
		s.lengths.record(r, n, b)
		stamp()
	}
}

// recordWindows records a single pass past one binding: one dispatch per
// window of s.windowTiles tiles of the input (and flags), each after a
// barrier (the recorder's: each reads and writes status), with the
// output bound as windows of s.winWords words.
func (s *singlePass) recordWindows(r *pipeline.Recorder, q *request, b Buffers, push onepassPush, status, count vk.Range) {
	n := uint64(q.n)
	win := uint64(s.winWords) * 4
	var out [tiling.MaxOutWindows]vk.Range
	for w := range out {
		first := uint64(w) * win
		if first >= n*q.size {
			out[w] = out[0] // bound, never written
			continue
		}
		out[w] = b.Dst.Sub(first, min(win, n*q.size-first))
	}
	push.WinWords = s.winWords
	info := r.CommandBuffer().Context().Info()
	for t0 := uint32(0); t0 < s.tiles; t0 += s.windowTiles {
		tiles := min(s.windowTiles, s.tiles-t0)
		first := uint64(t0) * uint64(s.tile)
		elems := min(uint64(tiles)*uint64(s.tile), n-first)
		src := b.Src.Sub(first*q.size, elems*q.size)
		push.Tile0, push.TileEnd = t0, t0+tiles
		s.wide.Dispatch(r, uint64(tiles), push, onepassWideBindings{SrcVec: src, SrcWord: src, Flags: q.flagsFor(b, src, first, elems), Status: status,
			DstVec: out[0], DstWord: out[0], Result: b.Result.Sub(0, ResultSize), GpuCount: count, DstWord1: out[1], DstWord2: out[2], DstWord3: out[3], DstElems: out[0]})
		grid, err := pipeline.GridFor(info, uint64(tiles))
		if err != nil {
			r.Fail(err)
			return
		}
		push.WgBase += grid.X * grid.Y // each took a number from the tile counter
	}
}
