package compact

import (
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
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

// Options tunes a selection, and a three-way partition (Partition3 says
// which fields apply there). Zero values take per-device defaults.
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
	// uint32 keys; the slice helpers take it from their type).
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
	// Output chooses what a compaction writes for each kept element: the
	// element (the default), or its index in the input (a uint32) to Dst
	// and, with OutputBoth, the element to Buffers.Elements. Indices apply
	// to a compaction out of place (not a split, not InPlace) whose input
	// one binding holds.
	Output Output
	// Values, where set, is the type of a second array beside the
	// elements (Buffers.Values), whose value at each kept element's index
	// goes to the same slot of Buffers.ValuesOut, in the same pass: with
	// FirstOfRun, unique by key, as CUB's DeviceSelect::UniqueByKey
	// (UniqueByKeySlice). Any 4- or 8-byte type: the values are moved, not
	// read. It applies to a FirstOfRun compaction out of place writing
	// elements (not a split, not InPlace, Output OutputElements); Unset
	// moves none.
	Values vkcompact.Type
	Options
}

// Buffers are the ranges a recorded selection uses. Every offset must be a
// multiple of the device's minStorageBufferOffsetAlignment, but Count's,
// a multiple of 4.
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
	// Elements (Selection.Output OutputBoth) has room for n elements: the
	// kept elements, while Dst gets their indices.
	Elements vk.Range
	// Values (Selection.Values) holds n values, read; ValuesOut has room
	// for n values, written: the kept elements' values, in their order.
	Values, ValuesOut vk.Range
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU: for instance the kept count a previous
	// operation left in its result block (Result.Sub(ResultKeptOffset,
	// 4)), or any other word of one (a three-way partition's second count
	// at byte 4): its offset need only be a multiple of 4, since it is
	// bound from its offset rounded down to the alignment. The plan's n is then a capacity: the selection covers the first
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
	ctx *vk.Context
	req request   // the checked selection, which every algorithm shares
	alg algorithm // the three phases (*threePhase) or the single pass (*singlePass)
}

// algorithm is one way of running a selection, with its own tuning (made
// by tuneThreePhase or tuneSinglePass), scratch layout, pipelines and
// recording.
type algorithm interface {
	// pipelines creates the algorithm's pipelines on ctx.
	pipelines(ctx *vk.Context, q *request) error
	// record records the selection of q over b into r, calling stamp
	// len(phases())+1 times: first, and after each phase.
	record(r *pipeline.Recorder, q *request, b Buffers, stamp func())
	// phases names the intervals between the stamps of record.
	phases() []string
	scratchSize() uint64
	tuning() Tuning
}

// NewPlan checks sel for n elements on ctx, picks its tuning and creates
// its pipelines.
func NewPlan(ctx *vk.Context, n uint64, sel Selection) (*Plan, error) {
	return newPlan(ctx, n, sel, limits{})
}

// newPlan is NewPlan with the bindings bound by lim (tests make them
// small).
func newPlan(ctx *vk.Context, n uint64, sel Selection, lim limits) (*Plan, error) {
	if ctx == nil {
		return nil, errs.Invalidf("compact: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := tunePlan(ctx.Info(), n, sel, lim)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	return p, p.alg.pipelines(ctx, &p.req)
}

// N returns the element count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.req.n)
}

// ScratchSize returns the bytes of scratch Record needs: per-chunk counts,
// and with InPlace the n elements the move writes before copying back;
// on the single pass, the tiles' status words; for package runs' run
// lengths, two words per chunk or tile too.
func (p *Plan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.alg.scratchSize()
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	return p.alg.tuning()
}

// Tuning is what a Plan chose: the path, what both paths have, and the
// path's own choices (the other path's are zero).
type Tuning struct {
	Path vkcompact.Path // the path taken
	// WorkgroupSize and LoadsPerLane are the resolved Options (the single
	// pass may pick its own where the caller chose neither).
	WorkgroupSize, LoadsPerLane uint32
	// Write is the three phases' write strategy; the single pass's is
	// always WriteStaged.
	Write Write
	ThreePhaseTuning
	SinglePassTuning
}

// ThreePhaseTuning is what the three phases chose (Tuning.Path
// PathThreePhase).
type ThreePhaseTuning struct {
	// Processors, elements per chunk, and chunks.
	Processors, Chunk, Chunks uint32
	SegmentElems              uint32 // elements bound at once (maxStorageBufferRange)
}

// SinglePassTuning is what the single pass chose (Tuning.Path
// PathSinglePass).
type SinglePassTuning struct {
	// Elements per tile, tiles, and re-reads of a late predecessor before
	// the fallback counts it.
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
