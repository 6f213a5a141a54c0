package compact

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// The prefix sum's three phases: the same chunking as the selection, with
// sums in place of counts.
var (
	reduceKernel = &pipeline.Kernel{
		Name:          "scan_reduce",
		SPIRV:         shaders.MustSPIRV("scan_reduce"),
		Bindings:      []pipeline.Use{pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Read},
		PushWords:     5,
		FullSubgroups: true,
	}
	sumsKernel = &pipeline.Kernel{
		Name:          "scan_sums",
		SPIRV:         shaders.MustSPIRV("scan_sums"),
		Bindings:      []pipeline.Use{pipeline.ReadWrite, pipeline.Write},
		PushWords:     1,
		FullSubgroups: true,
	}
	applyKernel = &pipeline.Kernel{
		Name:          "scan_apply",
		SPIRV:         shaders.MustSPIRV("scan_apply"),
		Bindings:      []pipeline.Use{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Write, pipeline.Read},
		PushWords:     5,
		FullSubgroups: true,
	}
	// The single pass (scan_onepass.comp), for integer sums out of place.
	scanOnepassKernel = &pipeline.Kernel{
		Name:          "scan_onepass",
		SPIRV:         shaders.MustSPIRV("scan_onepass"),
		Bindings:      []pipeline.Use{pipeline.Read, pipeline.Read, pipeline.ReadWrite, pipeline.Write, pipeline.Write, pipeline.Write, pipeline.Read},
		PushWords:     4,
		FullSubgroups: true,
	}
)

// ScanTotalSize is the size of the total a prefix sum writes: one element.
const ScanTotalSize = 4

// Scan describes a prefix sum of uint32, int32 or float32 elements.
//
// Integer sums wrap modulo 2^32 (int32 in two's complement). float32 sums
// are computed in float32 in a tree order (per lane, per subgroup, per
// chunk), not left to right, so they differ from a serial float32 loop by
// rounding: the error bound is that of pairwise summation, usually
// smaller than the serial loop's. Infinities and NaNs propagate as in any
// order of IEEE additions. Zeros keep their sign as IEEE 754 and NumPy's
// cumsum give it: a sum of nothing but -0.0 is -0.0 (inclusive [-0.0, 1.0]
// is [-0.0, 1.0]), any other zero sum +0.0, and the sum of nothing (the
// first exclusive element, the total of no elements) +0.0.
type Scan struct {
	Type Type // Uint32, Int32 or Float32
	// Inclusive makes element i the sum of elements 0..i; otherwise
	// (exclusive) of 0..i-1, with element 0 zero.
	Inclusive bool
	// InPlace writes the sums over the source; Dst stays empty.
	InPlace bool
	// Options tunes the sum as a selection's: Path, Spins, Processors
	// (three phases), WorkgroupSize and LoadsPerLane apply; Write and
	// GroupSize must be left zero. The single pass (PathSinglePass) sums
	// uint32 and int32 out of place, when the source and destination each
	// fit one binding (maxStorageBufferRange). Float32 sums keep the
	// three phases: the single pass's fallback sums a late tile again in
	// another order, so a float total would depend on timing. Workgroups
	// above 512 invocations keep them too (on the H100 a workgroup of 1024
	// hung, cause not found). PathAuto takes the single pass where it
	// applies, on GPUs.
	Options
}

// ScanBuffers are the ranges a recorded prefix sum uses. Every offset must
// be a multiple of the device's minStorageBufferOffsetAlignment.
type ScanBuffers struct {
	Src     vk.Range // n elements, read (and written in place)
	Dst     vk.Range // n elements, written; empty in place
	Total   vk.Range // ScanTotalSize bytes, written: the sum of all n elements
	Scratch vk.Range // ScanPlan.ScratchSize bytes
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU (see Buffers.Count): the prefix sum then
	// covers the first min(count, n) elements, Total is their sum, and
	// the destination past them is not written.
	Count vk.Range
}

// ScanPlan is a prefix sum of n elements checked, tuned and sized for one
// context. It is immutable and safe for concurrent use.
type ScanPlan struct {
	ctx   *vk.Context
	scan  Scan
	n     uint32
	wg    uint32
	loads uint32
	chunks
	reduce, sums, apply *pipeline.Pipeline

	onepass     bool // the single pass; chunks and the three phases' pipelines do not apply
	tile, tiles uint32
	spins       uint32
	byIndex     bool // tiles go by workgroup index (tilesByIndex)
	pass, fill  *pipeline.Pipeline
}

// NewScanPlan checks s for n elements on ctx, picks its tuning and creates
// its pipelines.
func NewScanPlan(ctx *vk.Context, n uint64, s Scan) (*ScanPlan, error) {
	if ctx == nil {
		return nil, invalid("compact: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := ctx.Info()
	p, err := tuneScan(info, n, s)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	if p.onepass {
		return p, p.singlePassPipelines(info)
	}
	return p, p.threePhasePipelines(info)
}

// tuneScan checks s for n elements on a device with info and picks the
// plan's tuning and sizes: a pure function of its arguments, which creates
// nothing (the plan it returns has no context and no pipelines).
func tuneScan(info vk.DeviceInfo, n uint64, s Scan) (*ScanPlan, error) {
	switch s.Type {
	case Uint32, Int32, Float32:
	default:
		return nil, invalid("compact: a prefix sum of %v: the element type must be u32, i32 or f32", s.Type)
	}
	if n > MaxElements {
		return nil, invalid("compact: %d elements: at most %d", n, uint64(MaxElements))
	}
	if s.Write != WriteAuto || s.GroupSize != 0 {
		return nil, invalid("compact: Options.Write and Options.GroupSize do not apply to a prefix sum")
	}
	if s.Path > PathSinglePass {
		return nil, invalid("compact: unknown path %d", s.Path)
	}
	p := &ScanPlan{scan: s, n: uint32(n)}
	var procs uint32
	var err error
	if p.wg, p.loads, procs, err = s.Options.resolve(info, 1); err != nil {
		return nil, err
	}
	if s.Path == PathSinglePass || (s.Path == PathAuto && autoSinglePass(info)) {
		why := p.planSinglePass(info, n)
		if why == "" {
			return p, nil
		}
		if s.Path == PathSinglePass {
			return nil, invalid("compact: the single pass does not apply to this prefix sum: %s", why)
		}
	}
	if p.chunks, err = cutChunks(info, n, 4, procs, maxChunk(info, p.loads, 4, 1, false)); err != nil {
		return nil, err
	}
	return p, nil
}

// threePhasePipelines creates the three phases' pipelines.
func (p *ScanPlan) threePhasePipelines(info vk.DeviceInfo) error {
	s := p.scan
	float := uint32(0)
	if s.Type == Float32 {
		float = 1
	}
	inclusive := uint32(0)
	if s.Inclusive {
		inclusive = 1
	}
	cache := pipeline.For(p.ctx)
	// Constants as select.glsl numbers them: 1 PROCS, 2 STRIDE, ..., 7
	// VECS; 11 the float flag, 12 inclusive.
	common := []uint32{p.wg, p.procs, 1, 0, 0, 0, 4, p.loads, 0, 0, 0, float}
	var err error
	if p.reduce, err = cache.Get(reduceKernel, common...); err != nil {
		return err
	}
	if p.apply, err = cache.Get(applyKernel, append(common, inclusive)...); err != nil {
		return err
	}
	p.sums, err = cache.Get(sumsKernel, pipeline.ScanWorkgroup(info), float)
	return err
}

// maxScanPassWorkgroup is the largest workgroup the single-pass prefix
// sum takes (see planSinglePass).
const maxScanPassWorkgroup = 512

// planSinglePass sizes the single pass, or says why it does not apply.
func (p *ScanPlan) planSinglePass(info vk.DeviceInfo, n uint64) string {
	s := p.scan
	switch {
	case s.Type == Float32:
		return "float32 sums keep the three phases (the fallback would sum a late tile in another order, so the total would depend on timing)"
	case s.InPlace:
		return "it does not run in place"
	case n == 0:
		return "there are no elements"
	case n*4 > uint64(info.MaxStorageBufferRange):
		return fmt.Sprintf("%d bytes of elements exceed one binding (maxStorageBufferRange %d)", n*4, info.MaxStorageBufferRange)
	case p.wg > maxScanPassWorkgroup:
		// On the H100 a workgroup of 1024 (tiles of 16384) never finished:
		// the wait timed out after a minute, every time, while 512 and 256
		// passed 600 runs each. The cause is not found; until it is, the
		// single pass is not offered there.
		return fmt.Sprintf("workgroups above %d invocations are not proven on the single pass (%d asked)", maxScanPassWorkgroup, p.wg)
	}
	p.loads = s.LoadsPerLane
	if p.loads == 0 {
		// Tiles of 4 uvec4 loads per lane, as the compaction's.
		p.loads = MaxLoadsPerLane
	}
	p.onepass = true
	p.tile = p.wg * p.loads * 4
	p.tiles = uint32(ceilDiv(n, uint64(p.tile)))
	p.spins = SpinsFor(info, s.Spins)
	p.byIndex = tilesByIndex(info, false)
	return ""
}

// singlePassPipelines creates the single pass's pipelines.
func (p *ScanPlan) singlePassPipelines(info vk.DeviceInfo) error {
	inclusive := uint32(0)
	if p.scan.Inclusive {
		inclusive = 1
	}
	maxSubgroups := p.wg / max(info.MinSubgroupSize, 1)
	cache := pipeline.For(p.ctx)
	// Constants as select.glsl numbers them (1 PROCS, 2 STRIDE, ..., 7
	// VECS), then 8 inclusive, 9 the most subgroups, 10 tiles by index
	// (see tilesByIndex).
	var err error
	byIndex := uint32(0)
	if p.byIndex {
		byIndex = 1
	}
	if p.pass, err = cache.Get(scanOnepassKernel, p.wg, 1, 1, 0, 0, 0, 4, p.loads, inclusive, maxSubgroups, byIndex); err != nil {
		return err
	}
	p.fill, err = cache.Get(fillKernel, fillGroup)
	return err
}

// N returns the element count the plan was made for.
func (p *ScanPlan) N() uint64 { return uint64(p.n) }

// ScratchSize returns the bytes of scratch Record needs: one sum per chunk
// and the total, or on the single pass the status words of its tiles.
func (p *ScanPlan) ScratchSize() uint64 {
	if p.onepass {
		return alignUp((1+2*uint64(p.tiles))*4, 256)
	}
	return alignUp(uint64(p.nChunks+1)*4, 256)
}

// Tuning reports the choices the plan made (Write is unused).
func (p *ScanPlan) Tuning() Tuning {
	if p.onepass {
		return Tuning{Path: PathSinglePass, WorkgroupSize: p.wg, LoadsPerLane: p.loads, Tile: p.tile, Tiles: p.tiles, Spins: p.spins, TilesByIndex: p.byIndex}
	}
	return Tuning{Path: PathThreePhase, Processors: p.procs, Chunk: p.chunk, Chunks: p.nChunks, WorkgroupSize: p.wg, LoadsPerLane: p.loads, SegmentElems: p.segElems}
}

// Record records the prefix sum into r's command buffer: on the three
// phases reduce, scan of the chunk sums, and apply, with a buffer barrier
// between each; on the single pass the clear of its status words and the
// pass. Errors are kept by r.
//
// Synchronisation contract, as for Plan.Record: the first accesses are
// compute-shader reads of Src and Count (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
// VK_ACCESS_SHADER_READ_BIT) and compute-shader writes of Scratch, Total
// and Dst (Src in place); the last are compute-shader writes of Dst (Src
// in place) and Total. The caller orders its earlier writes of Src before
// the recording and its later reads of Dst and Total after it. Recording
// binds pipelines, descriptors and push constants.
func (p *ScanPlan) Record(r *pipeline.Recorder, b ScanBuffers) {
	p.record(r, b, nil)
}

// RecordTimed is Record with timestamps for profiling: t's queries 0 to 3
// are written before the reduce, after it, after the scan of the sums and
// at the end (the single pass: before the clear, after it, and twice after
// the pass). t needs 4 queries, reset earlier in the command buffer.
func (p *ScanPlan) RecordTimed(r *pipeline.Recorder, b ScanBuffers, t *vk.Timer) {
	if t == nil {
		r.Fail(invalid("compact: RecordTimed needs a timer"))
		return
	}
	p.record(r, b, stamper(r, t))
}

func (p *ScanPlan) record(r *pipeline.Recorder, b ScanBuffers, stamp func(uint32)) {
	if stamp == nil {
		stamp = func(uint32) {}
	}
	if r.Err() != nil {
		return
	}
	if p == nil {
		r.Fail(invalid("compact: nil ScanPlan"))
		return
	}
	if err := p.check(r, &b); err != nil {
		r.Fail(err)
		return
	}
	if p.onepass {
		p.recordSinglePass(r, b, stamp)
		return
	}
	info := p.ctx.Info()
	n := uint64(p.n)
	sums := b.Scratch.Sub(0, uint64(p.nChunks+1)*4)
	count, countOn := b.Count, uint32(1)
	if count.Buffer == nil {
		count, countOn = sums, 0 // bound, never read
	}
	seg := uint64(p.segElems)
	perGroup := uint64(max(p.wg/info.MaxSubgroupSize, 1))
	stamp(0)
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := ceilDiv(elems, uint64(p.chunk))
		src := b.Src.Sub(first*4, elems*4)
		r.Dispatch(p.reduce, ceilDiv(nc, perGroup), []uint32{uint32(first / uint64(p.chunk)), uint32(nc), p.chunk, uint32(elems), countOn},
			src, src, sums, count)
	}
	stamp(1)
	// With n == 0 this writes a zero total (nChunks is 0).
	r.Dispatch(p.sums, 1, []uint32{p.nChunks}, sums, b.Total.Sub(0, ScanTotalSize))
	stamp(2)
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := ceilDiv(elems, uint64(p.chunk))
		src, dst := b.Src.Sub(first*4, elems*4), b.Dst.Sub(first*4, elems*4)
		r.Dispatch(p.apply, ceilDiv(nc, perGroup), []uint32{uint32(first / uint64(p.chunk)), uint32(nc), p.chunk, uint32(elems), countOn},
			src, src, sums, dst, dst, count)
	}
	stamp(3)
}

// recordSinglePass records the clear of the tile counter and status
// words, then one dispatch of a workgroup per tile.
func (p *ScanPlan) recordSinglePass(r *pipeline.Recorder, b ScanBuffers, stamp func(uint32)) {
	words := 1 + 2*uint64(p.tiles)
	status := b.Scratch.Sub(0, words*4)
	count, countOn := b.Count, uint32(1)
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	n := uint64(p.n)
	src, dst := b.Src.Sub(0, n*4), b.Dst.Sub(0, n*4)
	stamp(0)
	r.Dispatch(p.fill, ceilDiv(words, fillGroup), []uint32{uint32(words), 0}, status)
	stamp(1)
	r.Dispatch(p.pass, uint64(p.tiles), []uint32{p.n, p.tiles, countOn, p.spins},
		src, src, status, dst, dst, b.Total.Sub(0, ScanTotalSize), count)
	stamp(2)
	stamp(3)
}

func (p *ScanPlan) check(r *pipeline.Recorder, b *ScanBuffers) error {
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("compact: the plan was made for another context")
	}
	n := uint64(p.n) * 4
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: n, Write: p.scan.InPlace},
		{Name: "total", Range: b.Total, Need: ScanTotalSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.ScratchSize(), Write: true}}
	if p.scan.InPlace {
		if b.Dst.Buffer != nil && b.Dst != b.Src {
			return invalid("compact: in place, the destination must be the source or left empty")
		}
		b.Dst = b.Src
	} else {
		list = append(list, bufcheck.Range{Name: "destination", Range: b.Dst, Need: n, Write: true})
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true})
	}
	return bufcheck.Check("compact", p.ctx, list)
}

// ScanTotal is a prefix sum's total as the GPU wrote it: read it as the
// plan's element type.
type ScanTotal uint32

// Uint32 is the total of uint32 elements (wrapped modulo 2^32).
func (t ScanTotal) Uint32() uint32 { return uint32(t) }

// Int32 is the total of int32 elements (wrapped modulo 2^32).
func (t ScanTotal) Int32() int32 { return int32(t) }

// Float32 is the total of float32 elements.
func (t ScanTotal) Float32() float32 { return math.Float32frombits(uint32(t)) }

// Run records the prefix sum on the context's own queue and waits. A zero
// Total or Scratch range is allocated for the call and released after it.
// It returns the total.
func (p *ScanPlan) Run(b ScanBuffers) (ScanTotal, error) {
	if p == nil {
		return 0, invalid("compact: nil ScanPlan")
	}
	var temps []*vk.Buffer
	defer func() {
		for _, t := range temps {
			t.Release()
		}
	}()
	for _, x := range []struct {
		r    *vk.Range
		size uint64
	}{{&b.Total, ScanTotalSize}, {&b.Scratch, p.ScratchSize()}} {
		if x.r.Buffer != nil {
			continue
		}
		buf, err := p.ctx.NewBuffer(max(x.size, 16), vk.DeviceLocal)
		if err != nil {
			return 0, err
		}
		temps = append(temps, buf)
		*x.r = buf.Range(0, x.size)
	}
	if err := pipeline.Run(p.ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return 0, err
	}
	var total [1]uint32
	if err := vk.Download(b.Total.Sub(0, ScanTotalSize), total[:]); err != nil {
		return 0, err
	}
	return ScanTotal(total[0]), nil
}

// ScanSlice runs a prefix sum of data on the GPU and returns the sums and
// the total. T decides the element type (s.Type is ignored). InPlace is
// honoured on the GPU; data is not modified.
func ScanSlice[T uint32 | int32 | float32](ctx *vk.Context, data []T, s Scan) ([]T, T, error) {
	var zero T
	var t Type
	switch any(zero).(type) {
	case uint32:
		t = Uint32
	case int32:
		t = Int32
	default:
		t = Float32
	}
	s.Type = t
	n := uint64(len(data))
	p, err := NewScanPlan(ctx, n, s)
	if err != nil {
		return nil, zero, err
	}
	src, err := ctx.NewBuffer(max(n*4, 16), vk.DeviceLocal)
	if err != nil {
		return nil, zero, err
	}
	defer src.Release()
	b := ScanBuffers{Src: src.Range(0, n*4)}
	if err := vk.Upload(b.Src, data); err != nil {
		return nil, zero, err
	}
	if !s.InPlace {
		dst, err := ctx.NewBuffer(max(n*4, 16), vk.DeviceLocal)
		if err != nil {
			return nil, zero, err
		}
		defer dst.Release()
		b.Dst = dst.Range(0, n*4)
	}
	total, err := p.Run(b)
	if err != nil {
		return nil, zero, err
	}
	out := make([]T, n)
	dst := b.Dst
	if s.InPlace {
		dst = b.Src
	}
	if err := vk.Download(dst, out); err != nil {
		return nil, zero, err
	}
	return out, *(*T)(unsafe.Pointer(&total)), nil
}

// String names the scan ("exclusive u32").
func (s Scan) String() string {
	kind := "exclusive"
	if s.Inclusive {
		kind = "inclusive"
	}
	return fmt.Sprintf("%s %v", kind, s.Type)
}
