package compact

import (
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// A three-way partition writes every element to one of three
// outputs: the first when Partition3.First keeps it, else the second when
// Partition3.Second keeps it, else the third (the rest). Each output holds
// its group in input order: all three are stable, none is reversed, since
// with three outputs a tile's offset in each is known from the prefixes of
// the first two groups alone (the rest's is the tile's first element less
// both), so no tile waits for a total. It runs as one pass over the input
// with decoupled look-back (shaders/compact/partition3_onepass.glsl), each
// tile publishing two counts, and the fallback of the compaction's single
// pass where a predecessor is late (on every device: lavapipe and
// SwiftShader take it at once).
//
// The outputs are three ranges, each with room for n elements, rather than
// one packed [first|second|rest] range: packed, the second group's offset
// is the first group's total, which a tile could only learn after every
// tile before the last had counted (the three phases: count, scan, move),
// reading the input twice. A caller wanting them packed passes three
// sub-ranges of one buffer and, where it needs them contiguous, copies
// the second and third groups after the first by the counts in the
// result block (transfer.RecordCopyCount).

// Partition3ResultSize is the bytes of a three-way partition's result
// block, which it writes to Partition3Buffers.Result.
const Partition3ResultSize = 112

// The result block's layout: the counts of the first, second and third
// groups and their total as uint32s; then for each group g (0 first, 1
// second, 2 rest) a VkDispatchIndirectCommand covering its elements with
// Options.GroupSize invocations per workgroup at
// Partition3DispatchOffset + 16*g (as ResultDispatchOffset's), and a
// VkDrawIndirectCommand (vertexCount the group's count, instanceCount 1)
// at Partition3DrawOffset + 16*g. Each count is a 4-byte range a next
// pass can take as its Buffers.Count.
const (
	Partition3FirstOffset    = 0
	Partition3SecondOffset   = 4
	Partition3RestOffset     = 8
	Partition3TotalOffset    = 12
	Partition3DispatchOffset = 16
	Partition3DrawOffset     = 64
)

// MaxPartition3Elements is the most elements a three-way partition takes:
// its inclusive prefixes are stored plus one in 32-bit words.
const MaxPartition3Elements = math.MaxUint32 - 1

// maxPartition3Tile bounds a tile's elements: a tile's aggregate holds
// both its counts in one word, 15 bits each.
const maxPartition3Tile = 1<<15 - 1

// Partition3 describes a three-way partition.
type Partition3 struct {
	// Elem is the elements' layout and their key (a zero Elem is plain
	// uint32 keys; Partition3Slice takes it from its type).
	Elem vkcompact.Elem
	// First and Second are the predicates: an element goes to the first
	// output where First keeps it, else to the second where Second keeps
	// it, else to the third. Any Keep but a flagged one (KeepNonZero,
	// KeepIf, KeepMask), each checked against the key type as a
	// selection's is.
	First, Second Keep
	// Options tunes the pass as a selection's single pass: Spins,
	// WorkgroupSize (a multiple of the largest subgroup size),
	// LoadsPerLane (uvec4 loads, elements past 16 bytes: elements, 1 to
	// vkcompact.MaxLoadsPerLane; a tile is WorkgroupSize * LoadsPerLane
	// times the elements per load, at most 32767) and GroupSize (the
	// dispatch arguments in the result block). There is one path: Path
	// PathAuto or PathSinglePass, PathThreePhase refused; Processors and
	// Write, the three phases' choices, are ignored as the single pass
	// ignores them.
	Options
}

// Partition3Buffers are the ranges a recorded three-way partition uses.
// Every offset must be a multiple of the device's
// minStorageBufferOffsetAlignment, but Count's, a multiple of 4 (as
// Buffers.Count's).
type Partition3Buffers struct {
	Src                 vk.Range // n elements, read
	First, Second, Rest vk.Range // each room for n elements, written from its start
	Result              vk.Range // Partition3ResultSize bytes, written
	// Scratch is Partition3Plan.ScratchSize bytes, read and written: the
	// tiles' status words, cleared before each pass.
	Scratch vk.Range
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU, as Buffers.Count: the partition then
	// covers the first min(count, n) elements.
	Count vk.Range
}

// Partition3Result is the result block's counts as read back.
type Partition3Result struct {
	First, Second, Rest uint32 // the groups' elements
	Total               uint32 // their sum: the elements covered (n, or the GPU count)
}

// Partition3Plan is a three-way partition of n elements checked, tuned
// and sized for one context. It is immutable and safe for concurrent use.
type Partition3Plan struct {
	ctx          *vk.Context
	req          request // the first predicate's selection, with the elements and options
	c2Lo, c2Hi   uint32  // the second predicate's constant
	pred2        uint32  // and its code
	part         Partition3
	pass         partition3Pass
	onePipeline  pipeline.TypedPipeline[partition3Push, partition3Bindings] // one binding; with or without the self-reset
	widePipeline pipeline.TypedPipeline[partition3Push, partition3WideBindings]
}

// partition3Pass is the single pass's tuning and scratch layout.
type partition3Pass struct {
	wg, loads, tile, tiles, spins uint32
	byIndex                       bool
	selfReset                     bool   // the pass leaves its status words zero (tiling.SelfReset)
	windowTiles, winWords         uint32 // past one binding (0: one dispatch)
	maxX                          uint32
	statusBytes, scratch          uint64
}

// partition3Push is partition3_onepass's push constants.
type partition3Push struct {
	N         uint32 `glsl:"n"`
	Tiles     uint32 `glsl:"tiles"`
	C1Lo      uint32 `glsl:"c1Lo"`
	C1Hi      uint32 `glsl:"c1Hi"`
	C2Lo      uint32 `glsl:"c2Lo"`
	C2Hi      uint32 `glsl:"c2Hi"`
	CountOn   uint32 `glsl:"countOn"`
	GroupSize uint32 `glsl:"groupSize"`
	MaxX      uint32 `glsl:"maxX"`
	Spins     uint32 `glsl:"spins"`
	Tile0     uint32 `glsl:"tile0"` // partition3_onepass_wide alone, as onepassPush's
	TileEnd   uint32 `glsl:"tileEnd"`
	WgBase    uint32 `glsl:"wgBase"`
	WinWords  uint32 `glsl:"winWords"`
}

// partition3Spec is partition3_onepass's specialization constants.
type partition3Spec struct {
	tiling.SelectSpec        // Pred is the first predicate
	Pred2             uint32 `glsl:"PRED2"`
	StageWords        uint32 `glsl:"STAGE_WORDS"`
	MaxSubgroups      uint32 `glsl:"MAX_SUBGROUPS"`
	TileByID          uint32 `glsl:"TILE_BY_ID"`
}

type (
	partition3Bindings struct {
		SrcVec, SrcWord              vk.Range `use:"read"`
		Status                       vk.Range `use:"readwrite"`
		DstFirst, DstSecond, DstRest vk.Range `use:"write"`
		Result                       vk.Range `use:"write"`
		GpuCount                     vk.Range `use:"read"`
	}
	// partition3WideBindings adds each output's windows 1 to 3.
	partition3WideBindings struct {
		SrcVec, SrcWord                    vk.Range `use:"read"`
		Status                             vk.Range `use:"readwrite"`
		DstFirst, DstSecond, DstRest       vk.Range `use:"write"`
		Result                             vk.Range `use:"write"`
		GpuCount                           vk.Range `use:"read"`
		DstFirst1, DstFirst2, DstFirst3    vk.Range `use:"write"`
		DstSecond1, DstSecond2, DstSecond3 vk.Range `use:"write"`
		DstRest1, DstRest2, DstRest3       vk.Range `use:"write"`
	}
)

var (
	partition3Kernel      = newKernel[partition3Push, partition3Spec, partition3Bindings]("partition3_onepass", true)
	partition3ResetKernel = newKernel[partition3Push, partition3Spec, partition3Bindings]("partition3_onepass_reset", true)
	partition3WideKernel  = newKernel[partition3Push, partition3Spec, partition3WideBindings]("partition3_onepass_wide", true)
)

// partition3Tuning is the measured choices of a three-way partition for
// one class of device; partition3Table holds them by class.
type partition3Tuning struct {
	// loads is the loads per lane where the caller chose none: as many as
	// fit shared memory and the tile bound, up to this.
	loads uint32
	// smallInputBytes, smallWorkgroup, smallLoads: on inputs of at most
	// smallInputBytes where the caller chose neither the workgroup size
	// nor the loads, tiles of smallWorkgroup invocations with smallLoads
	// loads each (none where smallWorkgroup is 0), as the compaction's
	// single pass has: more tiles to spread over a large GPU.
	smallInputBytes            uint64
	smallWorkgroup, smallLoads uint32
}

// partition3Table is the three-way partition's tuning by class of device:
// the compaction's single-pass choices (tuningTable), which the partition
// shares its structure with; not yet measured on its own.
var partition3Table = [...]partition3Tuning{
	gpuClass: {loads: vkcompact.MaxLoadsPerLane, smallInputBytes: 4 << 20, smallWorkgroup: 512, smallLoads: 1},
	cpuClass: {loads: vkcompact.MaxLoadsPerLane},
}

// NewPartition3Plan checks part for n elements on ctx, picks its tuning
// and creates its pipeline.
func NewPartition3Plan(ctx *vk.Context, n uint64, part Partition3) (*Partition3Plan, error) {
	return newPartition3Plan(ctx, n, part, partition3Limits{})
}

// partition3Limits are a test's overrides of the tuning: arguments, not
// package state, so the tuning stays a pure function of its arguments.
type partition3Limits struct {
	// windowBytes bounds what one binding holds (0: maxStorageBufferRange).
	windowBytes uint64
	// tilesByIndex takes tiles by workgroup index wherever the input has
	// one window, as GPUs do up to 1024 tiles, so that a CPU device runs
	// that path too.
	tilesByIndex bool
}

// newPartition3Plan is NewPartition3Plan within lim.
func newPartition3Plan(ctx *vk.Context, n uint64, part Partition3, lim partition3Limits) (*Partition3Plan, error) {
	if ctx == nil {
		return nil, errs.Invalidf("compact: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := tunePartition3(ctx.Info(), n, part, lim)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	q := &p.req
	s := &p.pass
	byIndex := uint32(0)
	if s.byIndex {
		byIndex = 1
	}
	spec := partition3Spec{SelectSpec: q.selectSpec(s.wg, 1, s.loads), Pred2: p.pred2, StageWords: s.tile * q.words,
		MaxSubgroups: s.wg / max(ctx.Info().MinSubgroupSize, 1), TileByID: byIndex}
	switch {
	case s.windowTiles > 0:
		p.widePipeline, err = partition3WideKernel.Get(pipeline.For(ctx), spec)
	case s.selfReset:
		p.onePipeline, err = partition3ResetKernel.Get(pipeline.For(ctx), spec)
	default:
		p.onePipeline, err = partition3Kernel.Get(pipeline.For(ctx), spec)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// partition3Keep checks that k is a predicate a partition takes; which
// names it in the error.
func partition3Keep(k Keep, which string) error {
	switch k.Op {
	case NonZero, Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, MaskAny:
		return nil
	case Flagged:
		return errs.Invalidf("compact: a three-way partition's %s predicate is flagged: it takes key predicates only (KeepNonZero, KeepIf, KeepMask); to partition by flags, select by them", which)
	}
	return errs.Invalidf("compact: a three-way partition's %s predicate %v does not apply: it takes key predicates only (KeepNonZero, KeepIf, KeepMask)", which, k.Op)
}

// tunePartition3 checks part for n elements on a device with info and
// tunes its single pass, within lim (the zero value for the device's own
// limits): a pure function of its arguments, which creates nothing.
func tunePartition3(info vk.DeviceInfo, n uint64, part Partition3, lim partition3Limits) (*Partition3Plan, error) {
	if err := partition3Keep(part.First, "first"); err != nil {
		return nil, err
	}
	if err := partition3Keep(part.Second, "second"); err != nil {
		return nil, err
	}
	if n > MaxPartition3Elements {
		return nil, errs.Invalidf("compact: a three-way partition of %d elements: at most %d", n, uint64(MaxPartition3Elements))
	}
	if err := part.Elem.Check(); err != nil {
		return nil, errs.Invalidf("%w", err)
	}
	if _, _, _, err := part.First.encode(part.Elem.Key); err != nil {
		return nil, errs.Invalidf("%w (the first predicate)", err)
	}
	p := &Partition3Plan{part: part}
	var err error
	if p.pred2, p.c2Lo, p.c2Hi, err = part.Second.encode(part.Elem.Key); err != nil {
		return nil, errs.Invalidf("%w (the second predicate)", err)
	}
	o := part.Options
	if o.Path == vkcompact.PathThreePhase {
		return nil, errs.Invalidf("compact: a three-way partition runs as one pass: Path %v does not apply", o.Path)
	}
	o.Processors = 0 // the three phases' alone
	if p.req, err = checkRequest(info, n, Selection{Elem: part.Elem, Keep: part.First, Options: o}, 0); err != nil {
		return nil, err
	}
	q := p.req
	s := partition3Pass{maxX: info.MaxWorkgroupCount[0]}
	if s.wg, s.loads, err = partition3Tiles(info, &q); err != nil {
		return nil, err
	}
	s.tile = s.wg * s.loads * q.epv
	s.tiles = uint32(max(align.CeilDiv(n, uint64(s.tile)), 1)) // one tile even for none: it writes the result block
	s.statusBytes = (2 + 3*uint64(s.tiles)) * 4                // the tile counter, 3 words a tile, the finished count
	if s.statusBytes > uint64(info.MaxStorageBufferRange) {
		return nil, errs.Invalidf("compact: a three-way partition's tile status (%d bytes for %d tiles of %d elements) exceeds one binding (maxStorageBufferRange %d)",
			s.statusBytes, s.tiles, s.tile, info.MaxStorageBufferRange)
	}
	s.scratch = align.Up(s.statusBytes, 256)
	s.spins = tiling.Spins(info, o.Spins)
	s.byIndex = tiling.TilesByIndex(info, true, s.tiles)
	if err := s.planWindows(info, &q, bindingBytes(info, lim.windowBytes)); err != nil {
		return nil, err
	}
	s.byIndex = s.byIndex || lim.tilesByIndex && s.windowTiles == 0
	s.selfReset = tiling.SelfReset(s.tiles) && s.windowTiles == 0
	p.pass = s
	return p, nil
}

// partition3Tiles picks the workgroup size and loads per lane for q: the
// table's small tiles on small inputs where the caller chose neither and
// they fit, else the resolved workgroup with the caller's loads or the
// table's, as many as fit shared memory and the tile bound; or it says
// why no tile fits.
func partition3Tiles(info vk.DeviceInfo, q *request) (wg, loads uint32, err error) {
	shared := func(wg, loads uint32) uint64 {
		maxSubgroups := uint64(wg / max(info.MinSubgroupSize, 1))
		return 4 * (uint64(wg*loads*q.epv*q.words) + 2*uint64(loads)*maxSubgroups + 8)
	}
	fits := func(wg, loads uint32) bool {
		return shared(wg, loads) <= uint64(info.MaxSharedMemory) && wg*loads*q.epv <= maxPartition3Tile
	}
	c := &partition3Table[gpuClass]
	if info.CPU() {
		c = &partition3Table[cpuClass]
	}
	wg, loads = q.wg, q.sel.LoadsPerLane
	if w := c.smallWorkgroup; w != 0 && q.sel.WorkgroupSize == 0 && loads == 0 && uint64(q.n)*q.size <= c.smallInputBytes &&
		info.MaxWorkgroupInvocations >= w && info.MaxWorkgroupSize[0] >= w && w%max(info.MaxSubgroupSize, 1) == 0 && fits(w, c.smallLoads) {
		return w, c.smallLoads, nil
	}
	if loads == 0 {
		loads = c.loads
		for loads > 1 && !fits(wg, loads) {
			loads--
		}
	}
	if need := shared(wg, loads); need > uint64(info.MaxSharedMemory) {
		return 0, 0, errs.Invalidf("compact: a three-way partition's tile needs %d bytes of shared memory (workgroup %d, %d loads per lane, %d-byte elements); the device has %d",
			need, wg, loads, q.size, info.MaxSharedMemory)
	}
	if t := wg * loads * q.epv; t > maxPartition3Tile {
		return 0, 0, errs.Invalidf("compact: a three-way partition's tile of %d elements (workgroup %d, %d loads per lane, %d per load): at most %d",
			t, wg, loads, q.epv, maxPartition3Tile)
	}
	return wg, loads, nil
}

// partition3WideBindingCount is partition3_onepass_wide's storage
// buffers, counted from its bindings struct.
var partition3WideBindingCount = uint32(len(partition3WideKernel.Bindings))

// planWindows cuts a pass whose input exceeds one binding (limit bytes)
// into one dispatch per window of windowTiles tiles, with each output
// bound as up to tiling.MaxOutWindows windows of winWords words; both stay
// 0 where one binding holds the input.
func (s *partition3Pass) planWindows(info vk.DeviceInfo, q *request, limit uint64) error {
	bytes := uint64(q.n) * q.size
	if bytes <= limit {
		return nil
	}
	t := uint64(s.tile)
	s.windowTiles = tiling.WindowTiles(info, limit, t*q.size)
	if s.windowTiles == 0 {
		return errs.Invalidf("compact: a three-way partition past one binding (%d bytes of elements, maxStorageBufferRange %d) cuts its input into whole tiles at offsets aligned to %d bytes, and one binding holds none of tiles of %d bytes",
			bytes, limit, info.MinStorageBufferOffsetAlignment, t*q.size)
	}
	if m := info.MaxPerStageStorageBuffers; m > 0 && m < partition3WideBindingCount {
		return errs.Invalidf("compact: a three-way partition past one binding binds %d storage buffers; the device allows %d per stage (maxPerStageDescriptorStorageBuffers)",
			partition3WideBindingCount, m)
	}
	win := tiling.OutWindowBytes(info, limit)
	if w := align.CeilDiv(bytes, win); w > tiling.MaxOutWindows {
		return errs.Invalidf("compact: a three-way partition's outputs of %d bytes each need %d bindings of %d bytes (maxStorageBufferRange %d): it binds at most %d each",
			bytes, w, win, limit, tiling.MaxOutWindows)
	}
	s.winWords = uint32(win / 4)
	return nil
}

// N returns the element count the plan was made for.
func (p *Partition3Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.req.n)
}

// ScratchSize returns the bytes of scratch Record needs: the tiles'
// status words. Up to tiling's SelfResetMaxTiles tiles (1024) the pass
// leaves them zero for its next run, which then records no clear (see
// package vkcompact, "Scratch between runs"); past that the host clears
// them before every pass.
func (p *Partition3Plan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.pass.scratch
}

// Tuning reports the choices the plan made: always the single pass
// (Tuning.Path PathSinglePass, Write WriteStaged).
func (p *Partition3Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	s := &p.pass
	return Tuning{Path: vkcompact.PathSinglePass, WorkgroupSize: s.wg, LoadsPerLane: s.loads, Write: WriteStaged,
		SinglePassTuning: SinglePassTuning{Tile: s.tile, Tiles: s.tiles, Spins: s.spins, TilesByIndex: s.byIndex, SelfReset: s.selfReset,
			WindowTiles: s.windowTiles, OutWindowBytes: uint64(s.winWords) * 4}}
}
