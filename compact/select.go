package compact

import (
	"fmt"
	"math"

	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// The three phases, and the copy-back of an in-place compaction. All need
// full subgroups: every subgroup is one processor walking one chunk.
var (
	countKernel = &pipeline.Kernel{
		Name:          "select_count",
		SPIRV:         shaders.MustSPIRV("select_count"),
		Bindings:      []pipeline.Access{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Read},
		PushWords:     7,
		FullSubgroups: true,
	}
	scanKernel = &pipeline.Kernel{
		Name:          "select_scan",
		SPIRV:         shaders.MustSPIRV("select_scan"),
		Bindings:      []pipeline.Access{pipeline.ReadWrite, pipeline.Write, pipeline.Write, pipeline.Read},
		PushWords:     9,
		FullSubgroups: true,
	}
	moveKernel = &pipeline.Kernel{
		Name:          "select_move",
		SPIRV:         shaders.MustSPIRV("select_move"),
		Bindings:      []pipeline.Access{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Write, pipeline.Read},
		PushWords:     10,
		FullSubgroups: true,
	}
	// The single pass (select_onepass.comp) and the clear of its status
	// words before each run.
	onepassKernel = &pipeline.Kernel{
		Name:          "select_onepass",
		SPIRV:         shaders.MustSPIRV("select_onepass"),
		Bindings:      []pipeline.Access{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.ReadWrite, pipeline.Write, pipeline.Write, pipeline.Write, pipeline.Read},
		PushWords:     8,
		FullSubgroups: true,
	}
	fillKernel = &pipeline.Kernel{
		Name:      "fill",
		SPIRV:     shaders.MustSPIRV("fill"),
		Bindings:  []pipeline.Access{pipeline.Write},
		PushWords: 2,
	}
	copybackKernel = &pipeline.Kernel{
		Name:      "select_copyback",
		SPIRV:     shaders.MustSPIRV("select_copyback"),
		Bindings:  []pipeline.Access{pipeline.Read, pipeline.Write, pipeline.Read, pipeline.Write, pipeline.Read},
		PushWords: 3,
	}
)

// MaxLoadsPerLane bounds Options.LoadsPerLane: the kernels keep each load
// in its own register, unrolled by hand.
const MaxLoadsPerLane = 4

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

// Path chooses the algorithm of a selection.
type Path uint8

const (
	// PathAuto takes the single pass on GPUs wherever it applies (see
	// PathSinglePass): it measured faster there at every size. It takes
	// the three phases otherwise, and on CPU devices.
	PathAuto Path = iota
	// PathThreePhase is Billeter's count, scan and move: the input is read
	// twice. It takes every selection.
	PathThreePhase
	// PathSinglePass reads the input once: a chained scan over tiles with
	// decoupled look-back and decoupled fallback. It applies out of place,
	// below 2^30 elements, when the source, destination and flags each fit
	// one binding (maxStorageBufferRange) and a tile's output fits shared
	// memory; a split needs ReverseRejected. NewPlan returns ErrInvalid,
	// naming the reason, when it is forced where it does not apply.
	PathSinglePass
)

// String names the path.
func (p Path) String() string {
	switch p {
	case PathThreePhase:
		return "three-phase"
	case PathSinglePass:
		return "single-pass"
	}
	return "auto"
}

// MaxSinglePassElements bounds the single pass: a tile's status packs its
// flag and prefix into one 32-bit word, 30 bits for the prefix.
const MaxSinglePassElements = 1<<30 - 1

// Options tunes a selection. Zero values take per-device defaults.
type Options struct {
	// Path picks the three phases or the single pass; PathAuto takes the
	// single pass where it applies.
	Path Path
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
	Elem Elem
	Keep Keep
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
	// VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT).
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
	Kept, Rejected, Total uint32
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

	wg, vecs, procs   uint32
	chunk, nChunks    uint32
	segElems          uint32 // elements per segment, and per destination page
	staged            bool
	count, scan, move *pipeline.Pipeline
	copyback          *pipeline.Pipeline

	onepass     bool // the single pass; none of the three-phase fields above apply
	tile, tiles uint32
	spins       uint32
	byIndex     bool // tiles go by workgroup index (tilesByIndex)
	pass, fill  *pipeline.Pipeline

	countsBytes, argsOff, argsBytes, tmpOff, scratch uint64
	pieces                                           uint32
	stageWords                                       uint64 // the staged write's shared words per workgroup (1 when scattered)
}

const chunkAlign = 256 // elements: keeps every segment offset a multiple of 256 bytes

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }
func alignUp(a, b uint64) uint64 { return ceilDiv(a, b) * b }

// NewPlan checks sel for n elements on ctx, picks its tuning and creates
// its pipelines.
func NewPlan(ctx *vk.Context, n uint64, sel Selection) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("compact: nil context")
	}
	if err := ctx.Usable(); err != nil {
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
	if p.wg, p.vecs, p.procs, err = o.resolve(info, words); err != nil {
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
	p.stageWords = uint64(p.wg) * uint64(p.vecs) * uint64(epv) * uint64(words)
	fits := p.stageWords*4 <= uint64(info.MaxSharedMemory)
	switch o.Write {
	case WriteStaged:
		if !fits {
			return nil, invalid("compact: the staged write needs %d bytes of shared memory here (workgroup %d, %d loads per lane, %d-byte elements); the device has %d",
				p.stageWords*4, p.wg, p.vecs, p.size, info.MaxSharedMemory)
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

	c, err := cutChunks(info, n, p.size, p.procs, maxChunk(info, p.vecs, epv, words, p.staged))
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
	common := []uint32{p.wg, p.procs, words, sel.Elem.KeyOffset / 4, uint32(sel.Elem.Key), p.pred, flagBytes, p.vecs}
	cache := pipeline.For(p.ctx)
	var err error
	if p.count, err = cache.Get(countKernel, common...); err != nil {
		return err
	}
	if p.move, err = cache.Get(moveKernel, append(common, split, staged, uint32(p.stageWords))...); err != nil {
		return err
	}
	if p.scan, err = cache.Get(scanKernel, pipeline.ScanWorkgroup(info), p.procs, words); err != nil {
		return err
	}
	if p.pieces > 0 {
		if p.copyback, err = cache.Get(copybackKernel, p.wg, 1, words, p.procs); err != nil {
			return err
		}
	}
	return nil
}

// autoSinglePass is PathAuto's choice where the single pass applies: on
// every GPU. On the H100, with the clocks up, it ran faster than the three
// phases at every size measured (2^28 uint32, keep 0.5: 0.85 against
// 1.12 ms; split 1.04 against 2.05 ms; BENCHMARKS.md). On CPU devices
// (lavapipe) the three phases ran faster: 7.0 against 23.4 ms at 2^20
// uint32.
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
	shared := func(vecs uint32) uint64 {
		return 4 * (uint64(p.wg*vecs*epv*words) + uint64(vecs+1)*maxSubgroups + 8)
	}
	vecs := p.sel.LoadsPerLane
	if vecs == 0 {
		// Tiles of 4 loads per lane. On the H100 at 2^28 uint32, keep 0.5
		// (BENCHMARKS.md), 256 x 4 took 0.662 ms (compaction) and 0.822
		// ms (split), against 0.822 and 1.014 ms with 3 loads, which need
		// fewer registers (32 against 46) but make more tiles to look
		// back over. Since e242596 (units ranked from shared memory) 4
		// loads need 37 registers; 3 loads then took 0.678 ms against
		// 0.671 for 4 in that experiment's build.
		vecs = MaxLoadsPerLane
		for vecs > 1 && shared(vecs) > uint64(info.MaxSharedMemory) {
			vecs--
		}
	}
	if shared(vecs) > uint64(info.MaxSharedMemory) {
		return fmt.Sprintf("a tile's output needs %d bytes of shared memory (workgroup %d, %d loads per lane, %d-byte elements); the device has %d",
			shared(vecs), p.wg, vecs, p.size, info.MaxSharedMemory)
	}
	p.onepass = true
	p.vecs = vecs
	p.tile = p.wg * vecs * epv
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
	// in index order. On the H100 (BENCHMARKS.md) by index was the faster
	// for compaction (2^28 uint32, keep 0.5: 0.81 against 0.86 ms) and
	// the slower for split (1.24 against 1.04 ms).
	byIndex := uint32(0)
	if p.byIndex {
		byIndex = 1
	}
	stage := p.tile * words
	maxSubgroups := p.wg / max(info.MinSubgroupSize, 1)
	cache := pipeline.For(p.ctx)
	var err error
	if p.pass, err = cache.Get(onepassKernel, p.wg, 1, words, sel.Elem.KeyOffset/4, uint32(sel.Elem.Key), p.pred, flagBytes, p.vecs,
		split, stage, maxSubgroups, byIndex); err != nil {
		return err
	}
	p.fill, err = cache.Get(fillKernel, fillGroup)
	return err
}

const fillGroup = 256

// resolve applies the per-device defaults to the options shared by the
// selection and the prefix sum, and checks them.
func (o Options) resolve(info vk.DeviceInfo, words uint32) (wg, vecs, procs uint32, err error) {
	wg = o.WorkgroupSize
	if wg == 0 {
		wg = max(256, info.MaxSubgroupSize)
	}
	if wg%info.MaxSubgroupSize != 0 {
		return 0, 0, 0, invalid("compact: workgroup size %d is not a multiple of the largest subgroup size %d", wg, info.MaxSubgroupSize)
	}
	vecs = o.LoadsPerLane
	if vecs == 0 {
		vecs = defaultLoads(words)
	}
	if vecs > MaxLoadsPerLane {
		return 0, 0, 0, invalid("compact: %d loads per lane: at most %d", vecs, MaxLoadsPerLane)
	}
	procs = o.Processors
	if procs == 0 {
		procs = defaultProcessors(info, wg)
	}
	// The counts of all processors, and two words more, are one binding.
	if limit := info.MaxStorageBufferRange/4 - 2; procs > limit {
		return 0, 0, 0, invalid("compact: %d processors: at most %d (their counts must fit one binding)", procs, limit)
	}
	return wg, vecs, procs, nil
}

// chunks is Billeter's cut of the input: nChunks chunks of chunk elements
// (the last shorter), each walked by one subgroup, bound segElems
// elements (whole chunks) at a time so that no binding exceeds
// maxStorageBufferRange.
type chunks struct {
	procs, chunk, nChunks, segElems uint32
}

// cutChunks cuts n elements of size bytes for about procs processors, with
// chunks of at most limit elements (more processors where needed).
func cutChunks(info vk.DeviceInfo, n, size uint64, procs uint32, limit uint64) (chunks, error) {
	maxSeg := (uint64(info.MaxStorageBufferRange) / size) &^ (chunkAlign - 1)
	if maxSeg == 0 {
		return chunks{}, invalid("compact: %d-byte elements do not fit the device's maxStorageBufferRange %d", size, info.MaxStorageBufferRange)
	}
	chunk := max(alignUp(ceilDiv(n, uint64(procs)), chunkAlign), chunkAlign)
	chunk = min(chunk, maxSeg, limit)
	nChunks := ceilDiv(n, chunk)
	return chunks{
		procs:    max(procs, uint32(nChunks)),
		chunk:    uint32(chunk),
		nChunks:  uint32(nChunks),
		segElems: uint32((maxSeg / chunk) * chunk),
	}, nil
}

func invalid(format string, args ...any) error {
	return vk.Invalidf(format, args...)
}

// maxChunk bounds a chunk so that one subgroup's walk stays under pipeline.LoopBudget
// loop iterations, the staged write-out's inner iterations included.
// lavapipe stops a shader's loops after 65535 iterations (its guard
// against endless loops): a longer walk silently lost the end of its
// output there. Longer inputs get more processors instead.
func maxChunk(info vk.DeviceInfo, vecs, epv, words uint32, staged bool) uint64 {
	perStep := uint64(1)
	if staged {
		perStep += uint64(vecs * epv * words)
	}
	steps := pipeline.LoopBudget / perStep
	step := uint64(max(info.MinSubgroupSize, 1) * vecs * epv)
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

// defaultProcessors is P for a device: enough subgroups to fill it.
func defaultProcessors(info vk.DeviceInfo, wg uint32) uint32 {
	perGroup := max(wg/info.MaxSubgroupSize, 1)
	switch {
	case info.ComputeUnits > 0 && info.SubgroupsPerUnit > 0:
		// Two subgroups per resident slot: on the H100 (132 x 64) 16896
		// ran faster than 4224 or 8448 at 2^28 (BENCHMARKS.md).
		return max(info.ComputeUnits*info.SubgroupsPerUnit*2, perGroup)
	case info.ComputeUnits > 0:
		return info.ComputeUnits * 4 * perGroup
	}
	return 64 * perGroup
}

// N returns the element count the plan was made for.
func (p *Plan) N() uint64 { return uint64(p.n) }

// ScratchSize returns the bytes of scratch Record needs: per-chunk counts,
// and with InPlace the n elements the move writes before copying back.
func (p *Plan) ScratchSize() uint64 { return p.scratch }

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	w := WriteScattered
	if p.staged || p.onepass {
		w = WriteStaged
	}
	if p.onepass {
		return Tuning{Path: PathSinglePass, WorkgroupSize: p.wg, LoadsPerLane: p.vecs, Write: w, Tile: p.tile, Tiles: p.tiles, Spins: p.spins, TilesByIndex: p.byIndex}
	}
	return Tuning{Path: PathThreePhase, Processors: p.procs, Chunk: p.chunk, Chunks: p.nChunks, WorkgroupSize: p.wg, LoadsPerLane: p.vecs, Write: w, SegmentElems: p.segElems}
}

// Tuning is what a Plan chose.
type Tuning struct {
	Path Path
	// The three phases: processors, elements per chunk, chunks.
	Processors, Chunk, Chunks   uint32
	WorkgroupSize, LoadsPerLane uint32
	Write                       Write
	SegmentElems                uint32 // elements bound at once (maxStorageBufferRange)
	// The single pass: elements per tile, tiles, and re-reads of a late
	// predecessor before the fallback counts it.
	Tile, Tiles, Spins uint32
	// TilesByIndex: a workgroup's tile is its index in the dispatch (a
	// compaction) rather than the next number of a tile counter (a
	// split). See singlePassPipelines.
	TilesByIndex bool
}
