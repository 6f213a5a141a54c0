package compact

import (
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// MaxElements is the largest element count a selection takes: slots and
// counts are 32-bit on the GPU.
const MaxElements = math.MaxUint32

// Result block layout: the scan writes ResultSize bytes to Buffers.Result.
const (
	ResultSize = 48
	// ResultKeptOffset holds the kept count (uint32), followed by the
	// rejected count and the total.
	ResultKeptOffset = 0
	// ResultDispatchOffset holds a VkDispatchIndirectCommand covering the
	// kept elements with Options.GroupSize invocations per workgroup: x
	// workgroups, or x*y >= the workgroups needed when they exceed
	// maxComputeWorkGroupCount[0] (the shader then linearises
	// gl_WorkGroupID and bounds itself by the kept count).
	ResultDispatchOffset = 16
	// ResultDrawOffset holds a VkDrawIndirectCommand: vertexCount = kept,
	// instanceCount = 1, firstVertex = firstInstance = 0.
	ResultDrawOffset = 32
)

// Write chooses how the move phase writes.
type Write uint8

const (
	// WriteAuto picks staged where the stage fits shared memory,
	// scattered otherwise.
	WriteAuto Write = iota
	// WriteScattered stores each element at its slot from the lane that
	// holds it.
	WriteScattered
	// WriteStaged gathers each step's output in shared memory first, then
	// stores it in contiguous spans.
	WriteStaged
)

// String names the strategy.
func (w Write) String() string {
	switch w {
	case WriteScattered:
		return "scattered"
	case WriteStaged:
		return "staged"
	}
	return "auto"
}

// Options tunes a selection. Zero values take per-device defaults.
type Options struct {
	// Path picks the three phases or the single pass; PathAuto takes the
	// single pass where it applies: out of place, a split only with
	// ReverseRejected, up to vkcompact.MaxSinglePassElements elements, and
	// past one binding (maxStorageBufferRange) with an output of at most
	// four bindings (Tuning.WindowTiles, OutWindowBytes).
	Path vkcompact.Path
	// Spins is, on the single pass, how many times a tile re-reads a
	// predecessor that has not published before counting that
	// predecessor's tile itself (the decoupled fallback). 0 takes the
	// device default (64 on GPUs, none on CPU devices, whose loops are
	// bounded); a negative value means none: the fallback runs at the first
	// unpublished predecessor.
	Spins int32
	// Processors is Billeter's P: the input is cut into at most this many
	// chunks, each walked by one subgroup. Default: twice the device's
	// compute units times the subgroups each keeps resident; 4 workgroups
	// per unit where the residency is unknown.
	Processors uint32
	// WorkgroupSize is the invocations per workgroup of the count and move
	// phases: a multiple of the largest subgroup size. Default 256.
	WorkgroupSize uint32
	// LoadsPerLane is the loads each lane issues per step before using
	// any: uvec4s for elements of 4, 8 and 16 bytes, elements otherwise.
	LoadsPerLane uint32
	// Write chooses scattered or staged stores. WriteAuto takes staged
	// where the stage fits shared memory.
	Write Write
	// GroupSize is the invocations per workgroup of the caller's next
	// pass, for the dispatch arguments in the result block. Default 64.
	GroupSize uint32
}

// Selection describes a compaction or split.
type Selection struct {
	// Elem is the elements' layout and their key (a zero Elem is plain
	// uint32 keys; the Slice helpers take it from their type).
	Elem vkcompact.Elem
	Keep Keep // which elements are kept
	// Split writes every element, the kept ones first; the kept count is
	// the split point. Otherwise only the kept elements are written.
	Split bool
	// InPlace makes the source the destination. The move then writes to
	// scratch and a last pass copies the result back (ScratchSize counts
	// the extra n elements).
	InPlace bool
	// ReverseRejected, with Split, writes the rejected elements in reverse
	// order after the kept ones, as CUB's DevicePartition::If does: the
	// r-th rejected element goes to slot n-1-r. The single pass needs it to
	// split (a tile then never waits for the kept total).
	ReverseRejected bool
	Options
}

// Buffers are the ranges a recorded selection uses. Every offset must be a
// multiple of the device's minStorageBufferOffsetAlignment.
type Buffers struct {
	Src    vk.Range // n elements, read
	Dst    vk.Range // room for n elements, written; unused (zero) with InPlace
	Flags  vk.Range // Flagged: n flags; uint8 flags are read in 4-byte words, see Plan.Record
	Result vk.Range // ResultSize bytes, written
	// Scratch is Plan.ScratchSize bytes, read and written, also as
	// indirect dispatch arguments (an engine's buffer needs
	// VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT). The single pass leaves its
	// status words there zero for its next run: see package vkcompact,
	// "Scratch between runs".
	Scratch vk.Range
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU: for instance the kept count a previous
	// operation left in its result block (Result.Sub(ResultKeptOffset,
	// 4)). The plan's n is then a capacity: the selection covers the first
	// min(count, n) elements, and leaves the elements past them, in the
	// source and the destination, as they were. It is read in the
	// compute-shader stage and must not overlap a range the same operation
	// writes: a frame loop that compacts by the previous frame's kept count
	// alternates two result blocks, or copies the count to a word of its
	// own. The chunks are cut for n, so a count far below n leaves
	// processors idle.
	Count vk.Range
}

// Result is the result block as read back.
type Result struct {
	Kept     uint32 // the kept elements (the split point of a split)
	Rejected uint32 // the others
	Total    uint32 // Kept + Rejected: the elements covered (n, or the GPU count)
}

// Plan is a selection of n elements checked, tuned and sized for one
// context. It is immutable and safe for concurrent use.
type Plan struct {
	ctx  *vk.Context
	sel  Selection
	n    uint32
	size uint64 // bytes per element
	pred uint32
	cLo  uint32
	cHi  uint32

	wg, loads, procs uint32
	chunk, nChunks   uint32
	segElems         uint32 // elements per segment, and per destination page
	staged           bool
	count            pipeline.TypedPipeline[countPush, countBindings]
	scan             pipeline.TypedPipeline[scanPush, scanBindings]
	move             pipeline.TypedPipeline[movePush, moveBindings]
	copyback         pipeline.TypedPipeline[copybackPush, copybackBindings]

	onepass     bool // the single pass; none of the three-phase fields above apply
	tile, tiles uint32
	spins       uint32
	byIndex     bool                                                     // tiles go by workgroup index (tilesByIndex)
	selfReset   bool                                                     // the pass leaves its status words zero (tiling.SelfReset)
	windowTiles uint32                                                   // past one binding: tiles per dispatch (0: one dispatch)
	winWords    uint32                                                   // past one binding: words per output window
	pass        pipeline.TypedPipeline[onepassPush, onepassBindings]     // one binding's worth
	wide        pipeline.TypedPipeline[onepassPush, onepassWideBindings] // past one binding (windowTiles > 0)

	countsBytes, argsOff, argsBytes, tmpOff, scratch uint64
	pieces                                           uint32
	stageWords                                       uint64 // the staged write's shared words per workgroup (1 when scattered)
}

// NewPlan checks sel for n elements on ctx, picks its tuning and creates
// its pipelines.
func NewPlan(ctx *vk.Context, n uint64, sel Selection) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("compact: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := ctx.Info()
	p, err := tunePlan(info, n, sel)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	words := uint32(p.size / 4)
	if p.onepass {
		return p, p.singlePassPipelines(info, words)
	}
	return p, p.threePhasePipelines(info, words)
}

// threePhasePipelines creates the three phases' pipelines.
func (p *Plan) threePhasePipelines(info vk.DeviceInfo, words uint32) error {
	sel := p.sel
	flagBytes := sel.Keep.FlagBytes
	if flagBytes == 0 {
		flagBytes = 4
	}
	split, staged := uint32(0), uint32(0)
	if sel.Split {
		split = 1
		if sel.ReverseRejected {
			split = 2
		}
	}
	if p.staged {
		staged = 1
	}
	common := tiling.SelectSpec{WorkgroupSize: p.wg, Procs: p.procs, Stride: words, KeyWord: sel.Elem.KeyOffset / 4,
		KeyType: tiling.KeyCode(sel.Elem.Key), Pred: p.pred, FlagBytes: flagBytes, Vecs: p.loads}
	cache := pipeline.For(p.ctx)
	var err error
	if p.count, err = countKernel.Get(cache, common); err != nil {
		return err
	}
	if p.move, err = moveKernel.Get(cache, moveSpec{SelectSpec: common, Split: split, Staged: staged, StageWords: uint32(p.stageWords)}); err != nil {
		return err
	}
	if p.scan, err = scanKernel.Get(cache, tiling.DefaultSelectSpec(pipeline.ScanWorkgroup(info), p.procs, words)); err != nil {
		return err
	}
	if p.pieces > 0 {
		if p.copyback, err = copybackKernel.Get(cache, copybackSpec{WorkgroupSize: p.wg, VecsPerThread: 1, Stride: words, Procs: p.procs}); err != nil {
			return err
		}
	}
	return nil
}

// singlePassPipelines creates the single pass's pipelines.
func (p *Plan) singlePassPipelines(info vk.DeviceInfo, words uint32) error {
	sel := p.sel
	flagBytes := sel.Keep.FlagBytes
	if flagBytes == 0 {
		flagBytes = 4
	}
	split := uint32(0)
	if sel.Split {
		split = 1
	}
	// Which tile a workgroup takes. From a counter (atomicAdd at its
	// start), every tile it waits on belongs to a workgroup already
	// running, whatever order the device starts workgroups in. By its
	// index in the dispatch, it starts loading at once, a round trip to
	// memory earlier; a predecessor not yet started costs only the
	// fallback, so this is safe anywhere and fast where workgroups start
	// in index order. On the H100 (BENCHMARKS-history.md) by index was the faster
	// for compaction (2^28 uint32, keep 0.5: 0.81 against 0.86 ms) and
	// the slower for split (1.24 against 1.04 ms).
	byIndex := uint32(0)
	if p.byIndex {
		byIndex = 1
	}
	stage := p.tile * words
	maxSubgroups := p.wg / max(info.MinSubgroupSize, 1)
	spec := onepassSpec{
		SelectSpec: tiling.SelectSpec{WorkgroupSize: p.wg, Procs: 1, Stride: words, KeyWord: sel.Elem.KeyOffset / 4,
			KeyType: tiling.KeyCode(sel.Elem.Key), Pred: p.pred, FlagBytes: flagBytes, Vecs: p.loads},
		Split: split, StageWords: stage, MaxSubgroups: maxSubgroups, TileByID: byIndex}
	var err error
	switch {
	case p.windowTiles > 0:
		p.wide, err = onepassWideKernel.Get(pipeline.For(p.ctx), spec) // past one binding
	case p.selfReset:
		p.pass, err = onepassResetKernel.Get(pipeline.For(p.ctx), spec) // the pass resets its status words (shaders/include/tile_reset.glsl)
	default:
		p.pass, err = onepassKernel.Get(pipeline.For(p.ctx), spec)
	}
	return err
}

func invalid(format string, args ...any) error {
	return vk.Invalidf(format, args...)
}

// N returns the element count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// ScratchSize returns the bytes of scratch Record needs: per-chunk counts,
// and with InPlace the n elements the move writes before copying back.
func (p *Plan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.scratch
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	w := WriteScattered
	if p.staged || p.onepass {
		w = WriteStaged
	}
	if p.onepass {
		return Tuning{Path: vkcompact.PathSinglePass, WorkgroupSize: p.wg, LoadsPerLane: p.loads, Write: w, Tile: p.tile, Tiles: p.tiles, Spins: p.spins, TilesByIndex: p.byIndex, SelfReset: p.selfReset,
			WindowTiles: p.windowTiles, OutWindowBytes: uint64(p.winWords) * 4}
	}
	return Tuning{Path: vkcompact.PathThreePhase, Processors: p.procs, Chunk: p.chunk, Chunks: p.nChunks, WorkgroupSize: p.wg, LoadsPerLane: p.loads, Write: w, SegmentElems: p.segElems}
}

// Tuning is what a Plan chose.
type Tuning struct {
	Path vkcompact.Path // the path taken
	// The three phases: processors, elements per chunk, chunks.
	Processors, Chunk, Chunks uint32
	// WorkgroupSize and LoadsPerLane are the resolved Options.
	WorkgroupSize, LoadsPerLane uint32
	Write                       Write  // the three phases' write strategy
	SegmentElems                uint32 // elements bound at once (maxStorageBufferRange)
	// The single pass: elements per tile, tiles, and re-reads of a late
	// predecessor before the fallback counts it.
	Tile, Tiles, Spins uint32
	// TilesByIndex: a workgroup's tile is its index in the dispatch
	// rather than the next number of a tile counter
	// (tiling.TilesByIndex).
	TilesByIndex bool
	// SelfReset: the pass sets its status words back to zero as it ends,
	// so a Record whose scratch is known zero records no clear before it
	// (package vkcompact, "Scratch between runs"); up to
	// tiling.SelfResetMaxTiles tiles.
	SelfReset bool
	// Past one binding (elements or flags above maxStorageBufferRange):
	// the tiles of each dispatch, one per window of the input, and the
	// bytes of each window of the output (at most four). Both are 0 when
	// one dispatch binds everything.
	WindowTiles    uint32
	OutWindowBytes uint64
}
