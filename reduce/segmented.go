package reduce

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Segmented describes a reduction within segments: segment s is elements
// [Offsets[s], Offsets[s+1]) and is reduced on its own, as CUB's
// DeviceSegmentedReduce does, with the offsets as the segmented sort
// takes them (radix.SegmentedBuffers.Offsets).
//
// The offsets live on the GPU (SegmentedBuffers.Offsets), so a plan
// cannot check them: they are read as uint32 and clamped to n, and a
// segment whose end is at or below its start is empty. An empty segment
// gets the empty value: 0 (+0.0) for Sum, the type's greatest value
// (+Inf) for Min, its least (-Inf) for Max. Elements before Offsets[0]
// and from Offsets[segments] on belong to no segment. Offsets that
// decrease make the output unspecified, but nothing is written outside
// the output and the scratch.
type Segmented struct {
	// Elem is the elements' type, as Reduce.Elem.
	Elem vkcompact.Elem
	// Op is Sum, Min or Max (the arg ops are not taken per segment).
	Op Op
	// Options: WorkgroupSize and LoadsPerLane tune the tiles; Path,
	// Spins, Workgroups and GroupSize must be left zero (one path, no
	// look-back, a workgroup per tile, no dispatch arguments).
	Options
}

// String names the reduction ("segmented sum u32").
func (s Segmented) String() string {
	return fmt.Sprintf("segmented %v %v", s.Op, s.Elem.Key.OrUint32())
}

// SegmentedBuffers are the ranges a recorded segmented reduction uses.
// Every offset must be a multiple of the device's
// minStorageBufferOffsetAlignment, and the outputs must overlap no
// input. There is no Count: as the segmented sort, this reduction takes
// its segments from the GPU already (package vkcompact, "Counts from the
// GPU").
type SegmentedBuffers struct {
	Src vk.Range // n elements, read
	// Offsets holds segments+1 uint32 words: segment s is elements
	// [Offsets[s], Offsets[s+1]).
	Offsets vk.Range
	// Dst receives a value per segment (segments elements).
	Dst     vk.Range
	Scratch vk.Range // SegmentedPlan.ScratchSize bytes, written and read (none for no elements)
}

// SegmentedTuning reports the choices a SegmentedPlan made.
type SegmentedTuning struct {
	// WorkgroupSize and LoadsPerLane are the resolved Options; a
	// workgroup reduces a tile of Tile elements (WorkgroupSize *
	// LoadsPerLane uvec4s), and Tiles cover the input.
	WorkgroupSize, LoadsPerLane uint32
	Tile, Tiles                 uint32
}

// SegmentedPlan is a segmented reduction of n elements in a number of
// segments, checked, tuned and sized for one context. It is immutable
// and safe for concurrent use.
//
// Its first dispatch (reduce_segments) reduces each tile of the input in
// a workgroup, writing every segment that begins and ends in the tile
// and keeping the parts of those that cross its edges in the scratch;
// the second (reduce_segments_fixup, an invocation per segment) combines
// those parts in tile order and writes the empty segments. The elements,
// the offsets and the output must each fit one binding
// (maxStorageBufferRange): this reduction has no windows, and NewPlan
// refuses more.
type SegmentedPlan struct {
	ctx      *vk.Context
	req      Segmented
	n        uint32
	segments uint32
	tileTuning
	tilesPass pipeline.TypedPipeline[segPush, segBindings]
	fixupPass pipeline.TypedPipeline[segFixupPush, segFixupBindings]
}

// NewSegmentedPlan checks s for n elements in segments segments on ctx,
// picks its tuning (a pure function of the device's information, n,
// segments and s) and creates its pipelines.
func NewSegmentedPlan(ctx *vk.Context, n uint64, segments uint32, s Segmented) (*SegmentedPlan, error) {
	if ctx == nil {
		return nil, invalid("nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	req, t, err := tuneSegmented(ctx.Info(), n, segments, s)
	if err != nil {
		return nil, err
	}
	p := &SegmentedPlan{ctx: ctx, req: req, n: uint32(n), segments: segments, tileTuning: t}
	cache := pipeline.For(ctx)
	spec := segSpec{WorkgroupSize: t.wg, Op: uint32(req.Op), Type: typeCode(req.Elem.Key), Vecs: t.loads}
	if p.tilesPass, err = segKernel.Get(cache, spec); err != nil {
		return nil, err
	}
	p.fixupPass, err = segFixupKernel.Get(cache, spec)
	return p, err
}

// tuneSegmented checks s for n elements in segments segments on a device
// with info and picks the plan's tuning: a pure function of its
// arguments.
func tuneSegmented(info vk.DeviceInfo, n uint64, segments uint32, s Segmented) (Segmented, tileTuning, error) {
	t, err := checkElem(s.Elem, "Segmented.Elem")
	if err != nil {
		return s, tileTuning{}, err
	}
	s.Elem = vkcompact.Plain(t)
	switch {
	case s.Op > Max:
		return s, tileTuning{}, invalid("segmented reduction %v: the op must be sum, min or max", s.Op)
	case s.Path != vkcompact.PathAuto:
		return s, tileTuning{}, invalid("segmented reduction: Options.Path %v: it has one path (leave PathAuto)", s.Path)
	case s.Spins != 0 || s.Workgroups != 0 || s.GroupSize != 0:
		return s, tileTuning{}, invalid("segmented reduction: Options.Spins, Options.Workgroups and Options.GroupSize do not apply (no look-back, a workgroup per tile, no dispatch arguments)")
	case segments == ^uint32(0):
		return s, tileTuning{}, invalid("%d segments: at most %d (their offsets are segments+1 uint32 words)", segments, segments-1)
	}
	size := sizeOf(t)
	for _, b := range []struct {
		what  string
		bytes uint64
	}{{"elements", n * size}, {"offsets", (uint64(segments) + 1) * 4}, {"output", uint64(segments) * size}} {
		if b.bytes > uint64(info.MaxStorageBufferRange) {
			return s, tileTuning{}, invalid("segmented reduction: %d bytes of %s exceed one binding (maxStorageBufferRange %d); it has no windows", b.bytes, b.what, info.MaxStorageBufferRange)
		}
	}
	tt, err := tuneTiles(info, n, size, s.Options)
	return s, tt, err
}

// N returns the element count the plan was made for.
func (p *SegmentedPlan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// Segments returns the segment count the plan was made for.
func (p *SegmentedPlan) Segments() uint32 {
	if p == nil {
		return 0
	}
	return p.segments
}

// ScratchSize returns the bytes of scratch Record needs: a record of 32
// bytes per tile (none for no elements).
func (p *SegmentedPlan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.recordsSize()
}

// Tuning reports the choices the plan made.
func (p *SegmentedPlan) Tuning() SegmentedTuning {
	if p == nil {
		return SegmentedTuning{}
	}
	return SegmentedTuning{WorkgroupSize: p.wg, LoadsPerLane: p.loads, Tile: p.tile, Tiles: p.ntiles}
}

// Phases names the intervals RecordTimed measures, in order: "tiles"
// (the first dispatch) and "fixup" (the second).
func (p *SegmentedPlan) Phases() []string { return []string{"tiles", "fixup"} }

// Record records the segmented reduction into r's command buffer: its
// two dispatches, with a barrier between them. Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
func (p *SegmentedPlan) Record(r *pipeline.Recorder, b SegmentedBuffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// RecordTimed is Record with timestamps for profiling, as Plan.RecordTimed.
func (p *SegmentedPlan) RecordTimed(r *pipeline.Recorder, b SegmentedBuffers, t *vk.Timer) {
	if !checkTimer(r, t, len(p.Phases())+1) {
		return
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

// Run records the reduction on the context's own queue and waits. A zero
// Scratch range is allocated for the call where the plan needs one.
func (p *SegmentedPlan) Run(b SegmentedBuffers) error {
	if p == nil {
		return invalid("nil SegmentedPlan")
	}
	_, err := planrun.Run[struct{}](p.ctx, temps(planrun.Temp{Range: &b.Scratch, Size: p.ScratchSize()}), func(r *pipeline.Recorder) { p.Record(r, b) }, nil)
	return err
}

func (p *SegmentedPlan) record(r *pipeline.Recorder, b SegmentedBuffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	size := sizeOf(p.req.Elem.Key)
	offsets := b.Offsets.Sub(0, (uint64(p.segments)+1)*4)
	records := offsets // bound, never read where there are no tiles
	if p.ntiles > 0 {
		records = b.Scratch.Sub(0, p.recordsSize())
	}
	stamp()
	if p.n > 0 {
		src := b.Src.Sub(0, uint64(p.n)*size)
		dst := records // nothing to write where there are no segments
		if p.segments > 0 {
			dst = b.Dst.Sub(0, uint64(p.segments)*size)
		}
		p.tilesPass.Dispatch(r, uint64(p.ntiles), segPush{N: p.n, Segments: p.segments},
			segBindings{SrcVec: src, SrcWord: src, Offsets: offsets, Dst: dst, Tiles: records})
	}
	stamp()
	if p.segments > 0 {
		p.fixupPass.Dispatch(r, align.CeilDiv(uint64(p.segments), uint64(p.wg)), segFixupPush{N: p.n, Segments: p.segments, Tile: p.tile},
			segFixupBindings{Offsets: offsets, Tiles: records, Dst: b.Dst.Sub(0, uint64(p.segments)*size)})
	}
	stamp()
}

// check validates the plan and b for r.
func (p *SegmentedPlan) check(r *pipeline.Recorder, b *SegmentedBuffers) error {
	if p == nil {
		return invalid("nil SegmentedPlan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("the plan was made for another context")
	}
	size := sizeOf(p.req.Elem.Key)
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: uint64(p.n) * size},
		{Name: "offsets", Range: b.Offsets, Need: (uint64(p.segments) + 1) * 4},
		{Name: "destination", Range: b.Dst, Need: uint64(p.segments) * size, Write: true}}
	if p.recordsSize() > 0 {
		list = append(list, bufcheck.Range{Name: "scratch", Range: b.Scratch, Need: p.recordsSize(), Write: true})
	}
	return bufcheck.Check("reduce", p.ctx, list)
}
