package scan

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/align"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The tuning of a prefix sum: a pure function of the device's information,
// the element count and the Sum, which creates nothing; then the pipelines
// it names.

// Tuning reports the choices a plan made.
type Tuning struct {
	Path vkcompact.Path // the path taken
	// The three phases: processors, elements per chunk, chunks, and the
	// elements bound at once (maxStorageBufferRange).
	Processors, Chunk, Chunks, SegmentElems uint32
	// WorkgroupSize and LoadsPerLane are the resolved Options.
	WorkgroupSize, LoadsPerLane uint32
	// The single pass: elements per tile, tiles, re-reads of a late
	// predecessor before the fallback sums it, and whether a workgroup's
	// tile is its index in the dispatch (rather than the next number of a
	// tile counter).
	Tile, Tiles, Spins uint32
	TilesByIndex       bool // tiles by workgroup index (not a counter)
	// SelfReset: the pass sets its status words back to zero as it ends,
	// so a Record whose scratch is known zero records no clear before it
	// (package vkcompact, "Scratch between runs").
	SelfReset bool
	// WindowTiles: past one binding, the tiles of each dispatch, one per
	// window of the input and output; 0 when one dispatch binds them.
	WindowTiles uint32
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// tune checks s for n elements on a device with info and picks the
// plan's tuning and sizes: a pure function of its arguments, which creates
// nothing (the plan it returns has no context and no pipelines). An
// unset element type is Uint32.
func tune(info vk.DeviceInfo, n uint64, s Sum) (*Plan, error) {
	s.Type = s.Type.OrUint32()
	switch s.Type {
	case vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32:
	default:
		return nil, vk.Invalidf("scan: a prefix sum of %v: the element type must be u32, i32 or f32", s.Type)
	}
	if n > MaxElements {
		return nil, vk.Invalidf("scan: %d elements: at most %d", n, uint64(MaxElements))
	}
	if s.Path > vkcompact.PathSinglePass {
		return nil, vk.Invalidf("scan: unknown path %d", s.Path)
	}
	p := &Plan{sum: s, n: uint32(n)}
	var procs uint32
	var err error
	if p.wg, p.loads, procs, err = tiling.Resolve(info, s.WorkgroupSize, s.LoadsPerLane, s.Processors, 1); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if s.Path == vkcompact.PathSinglePass || (s.Path == vkcompact.PathAuto && tiling.AutoSinglePass(info)) {
		why := p.planSinglePass(info, n)
		if why == "" {
			return p, nil
		}
		if s.Path == vkcompact.PathSinglePass {
			return nil, vk.Invalidf("scan: the single pass does not apply to this prefix sum: %s", why)
		}
	}
	if p.Chunks, err = tiling.Cut(info, n, 4, procs, tiling.MaxChunk(info, p.loads, 4, 1, false)); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	return p, nil
}

// threePhasePipelines creates the three phases' pipelines.
func (p *Plan) threePhasePipelines(info vk.DeviceInfo) error {
	s := p.sum
	float := s.Type == vkcompact.Float32
	cache := pipeline.For(p.ctx)
	chunks := tiling.DefaultSelectSpec(p.wg, p.Procs, 1)
	chunks.Vecs = p.loads
	var err error
	if p.reduce, err = reduceKernel.Get(cache, reduceSpec{SelectSpec: chunks, FloatSum: float}); err != nil {
		return err
	}
	if p.apply, err = applyKernel.Get(cache, applySpec{SelectSpec: chunks, FloatSum: float, Inclusive: s.Inclusive}); err != nil {
		return err
	}
	p.sums, err = sumsKernel.Get(cache, sumsSpec{WorkgroupSize: pipeline.ScanWorkgroup(info), FloatSum: float})
	return err
}

// maxScanPassWorkgroup is the largest workgroup the single-pass prefix
// sum takes (see planSinglePass).
const maxScanPassWorkgroup = 512

// planSinglePass sizes the single pass, or says why it does not apply.
func (p *Plan) planSinglePass(info vk.DeviceInfo, n uint64) string {
	s := p.sum
	switch {
	case s.Type == vkcompact.Float32:
		return "float32 sums keep the three phases (the fallback would sum a late tile in another order, so the total would depend on timing)"
	case s.InPlace:
		return "it does not run in place"
	case n == 0:
		return "there are no elements"
	case p.wg > maxScanPassWorkgroup:
		// On the H100 a workgroup of 1024 (tiles of 16384) never finished:
		// the wait timed out after a minute, every time, while 512 and 256
		// passed 600 runs each. The cause is not found; until it is, the
		// single pass is not offered there.
		return fmt.Sprintf("workgroups above %d invocations are not proven on the single pass (%d asked)", maxScanPassWorkgroup, p.wg)
	}
	loads0 := p.loads // the three phases' if the single pass does not apply
	p.loads = s.LoadsPerLane
	if p.loads == 0 && s.WorkgroupSize == 0 {
		p.loads = tiling.SmallScanLoads(info, n)
	}
	if p.loads == 0 {
		// Tiles of 4 uvec4 loads per lane, as the compaction's.
		p.loads = vkcompact.MaxLoadsPerLane
	}
	p.onepass = true
	p.tile = p.wg * p.loads * 4
	p.tiles = uint32(align.CeilDiv(n, uint64(p.tile)))
	if status := 8 + 8*uint64(p.tiles); status > uint64(info.MaxStorageBufferRange) {
		p.onepass, p.loads = false, loads0
		return fmt.Sprintf("its tile status (%d bytes for %d tiles of %d elements) exceeds one binding (maxStorageBufferRange %d)", status, p.tiles, p.tile, info.MaxStorageBufferRange)
	}
	p.spins = tiling.Spins(info, s.Spins)
	p.byIndex = tiling.TilesByIndex(info, false, p.tiles)
	p.selfReset = tiling.SelfReset(p.tiles)
	if limit := bindingLimit(info); n*4 > limit {
		// Past one binding: one dispatch per window of whole tiles.
		if p.windowTiles = tiling.WindowTiles(info, limit, uint64(p.tile)*4); p.windowTiles == 0 {
			p.onepass, p.loads = false, loads0
			return fmt.Sprintf("past one binding (%d bytes of elements, maxStorageBufferRange %d) its windows are whole tiles at offsets aligned to %d bytes, and one binding holds none of tiles of %d bytes",
				n*4, limit, info.MinStorageBufferOffsetAlignment, p.tile*4)
		}
		p.selfReset = false // a clear before every pass (many tiles: tiling.SelfReset)
	}
	return ""
}

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

// singlePassPipelines creates the single pass's pipelines.
func (p *Plan) singlePassPipelines(info vk.DeviceInfo) error {
	byIndex := uint32(0)
	if p.byIndex {
		byIndex = 1
	}
	selfReset := uint32(0)
	if p.selfReset {
		selfReset = 1
	}
	tiles := tiling.DefaultSelectSpec(p.wg, 1, 1)
	tiles.Vecs = p.loads
	var err error
	p.pass, err = onepassKernel.Get(pipeline.For(p.ctx), onepassSpec{SelectSpec: tiles, Inclusive: p.sum.Inclusive,
		MaxSubgroups: p.wg / max(info.MinSubgroupSize, 1), TileByID: byIndex, SelfReset: selfReset, Windowed: b2u(p.windowTiles > 0)})
	return err
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	if p.onepass {
		return Tuning{Path: vkcompact.PathSinglePass, WorkgroupSize: p.wg, LoadsPerLane: p.loads, Tile: p.tile, Tiles: p.tiles, Spins: p.spins, TilesByIndex: p.byIndex, SelfReset: p.selfReset, WindowTiles: p.windowTiles}
	}
	return Tuning{Path: vkcompact.PathThreePhase, Processors: p.Procs, Chunk: p.Chunk, Chunks: p.NChunks, WorkgroupSize: p.wg, LoadsPerLane: p.loads, SegmentElems: p.SegElems}
}
