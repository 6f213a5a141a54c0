package scan

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

// singlePass is the single pass (a chained scan over tiles with decoupled
// look-back and fallback) tuned for one request: any scan but float32
// sums, out of place, one workgroup per tile.
//
// Scratch: the status words, at its start: the tile counter, two words
// per tile (a flag and one 16-bit half of its value each), and the count
// of finished workgroups (shaders/scan/scan_onepass.glsl).
type singlePass struct {
	wg, loads   uint32
	tile, tiles uint32
	spins       uint32
	byIndex     bool   // tiles go by workgroup index (tiling.TilesByIndex)
	selfReset   bool   // the pass leaves its status words zero (tiling.SelfReset)
	windowTiles uint32 // past one binding: tiles per dispatch (0: one dispatch)
	pass        pipeline.TypedPipeline[onepassPush, onepassBindings]
}

// tuneSinglePass sizes the single pass for req in workgroups of wg
// invocations, or says why it does not apply. windowLimit, when not zero,
// lowers the bytes one binding holds below maxStorageBufferRange.
func tuneSinglePass(info vk.DeviceInfo, req request, wg uint32, windowLimit uint64) (*singlePass, string) {
	s, n := req.scan, uint64(req.n)
	table := passTunings[classOf(info)]
	switch {
	case req.key == vkcompact.Float32 && s.Op == Sum:
		return nil, "float32 sums keep the three phases (the fallback would sum a late tile in another order, so the total would depend on timing)"
	case s.InPlace:
		return nil, "it does not run in place"
	case wg > table.maxWorkgroup:
		return nil, fmt.Sprintf("workgroups above %d invocations are not proven on the single pass (%d asked)", table.maxWorkgroup, wg)
	}
	a := &singlePass{wg: wg, loads: table.passLoads(s.Options, n)}
	a.tile = a.wg * a.loads * 4
	// An empty input is one tile of no elements, whose workgroup writes
	// the total, as a GPU count of 0 leaves it.
	a.tiles = uint32(max(align.CeilDiv(n, uint64(a.tile)), 1))
	if status := a.statusWords() * 4; status > uint64(info.MaxStorageBufferRange) {
		return nil, fmt.Sprintf("its tile status (%d bytes for %d tiles of %d elements) exceeds one binding (maxStorageBufferRange %d)", status, a.tiles, a.tile, info.MaxStorageBufferRange)
	}
	a.spins = tiling.Spins(info, s.Spins)
	a.byIndex = tiling.TilesByIndex(info, false, a.tiles)
	a.selfReset = tiling.SelfReset(a.tiles)
	if limit := bindingLimit(info, windowLimit); n*4 > limit {
		// Past one binding: one dispatch per window of whole tiles.
		if a.windowTiles = tiling.WindowTiles(info, limit, uint64(a.tile)*4); a.windowTiles == 0 {
			return nil, fmt.Sprintf("past one binding (%d bytes of elements, maxStorageBufferRange %d) its windows are whole tiles at offsets aligned to %d bytes, and one binding holds none of tiles of %d bytes",
				n*4, limit, info.MinStorageBufferOffsetAlignment, a.tile*4)
		}
		a.selfReset = false // a clear before every pass (many tiles: tiling.SelfReset)
	}
	return a, ""
}

// bindingLimit is the bytes the single pass puts in one binding:
// maxStorageBufferRange, or windowLimit where that is lower and not zero.
func bindingLimit(info vk.DeviceInfo, windowLimit uint64) uint64 {
	if windowLimit != 0 {
		return min(windowLimit, uint64(info.MaxStorageBufferRange))
	}
	return uint64(info.MaxStorageBufferRange)
}

// statusWords is the scratch words of the status: tile counter, two per
// tile, finished count.
func (a *singlePass) statusWords() uint64 { return 2 + 2*uint64(a.tiles) }

func (a *singlePass) scratchSize() uint64 { return align.Up(a.statusWords()*4, 256) }

func (a *singlePass) phases() []string { return []string{"clear", "pass"} }

func (a *singlePass) tuning() Tuning {
	return Tuning{Path: vkcompact.PathSinglePass, WorkgroupSize: a.wg, LoadsPerLane: a.loads, Tile: a.tile, Tiles: a.tiles, Spins: a.spins,
		TilesByIndex: a.byIndex, SelfReset: a.selfReset, WindowTiles: a.windowTiles}
}

// pipelines creates the single pass's pipeline.
func (a *singlePass) pipelines(cache *pipeline.Cache, info vk.DeviceInfo, req request) error {
	tiles := tiling.DefaultSelectSpec(a.wg, 1, 1)
	tiles.Vecs = a.loads
	spec := onepassSpec{SelectSpec: tiles, Inclusive: req.scan.Inclusive,
		MaxSubgroups: a.wg / max(info.MinSubgroupSize, 1), TileByID: b2u(a.byIndex), SelfReset: b2u(a.selfReset), Windowed: b2u(a.windowTiles > 0)}
	var err error
	if req.scan.Op != Sum {
		spec.KeyType = tiling.KeyCode(req.key)
		a.pass, err = onepassMinMaxKernel.of(req.key).Get(cache, onepassMinMaxSpec{onepassSpec: spec, Op: uint32(req.scan.Op)})
		return err
	}
	a.pass, err = onepassKernel.Get(cache, spec)
	return err
}

// record records one dispatch of a workgroup per tile (or one per window
// past one binding), after a clear of the status words unless the
// commands recorded so far leave them zero, as the pass itself does up to
// tiling.SelfResetMaxTiles tiles (shaders/include/tile_reset.glsl); a stamp
// before the clear, after it and after the pass.
func (a *singlePass) record(r *pipeline.Recorder, n uint32, b Buffers, stamp func()) {
	status := b.Scratch.Sub(0, a.statusWords()*4)
	count, countOn := bufcheck.CountWord(r.CommandBuffer().Context(), b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	stamp()
	if !a.selfReset || !status.KnownZero() {
		transfer.RecordFill(r, status, 0)
	}
	stamp()
	push := onepassPush{N: n, Tiles: a.tiles, CountOn: countOn, Spins: a.spins}
	if a.windowTiles == 0 {
		src, dst := b.Src.Sub(0, uint64(n)*4), b.Dst.Sub(0, uint64(n)*4)
		if n == 0 {
			// No element to bind (a binding holds something): the one
			// tile reads and writes none, so the status words stand in.
			src, dst = status, status
		}
		a.pass.Dispatch(r, uint64(a.tiles), push, onepassBindings{SrcVec: src, SrcWord: src, Status: status,
			DstVec: dst, DstWord: dst, Total: b.Total.Sub(0, TotalSize), GpuCount: count})
	} else {
		a.recordWindows(r, n, b, push, status, count)
	}
	if a.selfReset {
		r.LeaveZero(status)
	}
	stamp()
}

// recordWindows records a single pass past one binding: one dispatch per
// window of a.windowTiles tiles, binding the same window of the input and
// the output, each after a barrier (the recorder's: each reads and
// writes status).
func (a *singlePass) recordWindows(r *pipeline.Recorder, n32 uint32, b Buffers, push onepassPush, status, count vk.Range) {
	n := uint64(n32)
	info := r.CommandBuffer().Context().Info()
	for t0 := uint32(0); t0 < a.tiles; t0 += a.windowTiles {
		tiles := min(a.windowTiles, a.tiles-t0)
		first := uint64(t0) * uint64(a.tile)
		elems := min(uint64(tiles)*uint64(a.tile), n-first)
		src, dst := b.Src.Sub(first*4, elems*4), b.Dst.Sub(first*4, elems*4)
		push.Tile0, push.TileEnd = t0, t0+tiles
		a.pass.Dispatch(r, uint64(tiles), push, onepassBindings{SrcVec: src, SrcWord: src, Status: status,
			DstVec: dst, DstWord: dst, Total: b.Total.Sub(0, TotalSize), GpuCount: count})
		grid, err := pipeline.GridFor(info, uint64(tiles))
		if err != nil {
			r.Fail(err)
			return
		}
		push.WgBase += grid.X * grid.Y // each took a number from the tile counter
	}
}
