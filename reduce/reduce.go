package reduce

import (
	"encoding/binary"
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Op is what a reduction computes.
type Op uint8

const (
	// Sum adds the elements: integers wrap modulo 2^32 (uint64 modulo
	// 2^64), float32 follows IEEE 754 (package doc, "Floats").
	Sum Op = iota
	// Min is the least element; for float32 the first NaN if any element
	// is NaN, and of -0.0 and +0.0, which compare equal, the first.
	Min
	// Max is the greatest element, as Min for float32.
	Max
	// ArgMin is the index of the least element, the first of several
	// equal ones (of a float32 NaN, the first NaN), with the element.
	ArgMin
	// ArgMax is ArgMin for the greatest element.
	ArgMax
)

var opNames = [...]string{"sum", "min", "max", "argmin", "argmax"}

// String names the operation: sum, min, max, argmin or argmax.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ParseOp parses an operation's name (sum, min, max, argmin, argmax).
func ParseOp(s string) (Op, error) {
	for o := Sum; o <= ArgMax; o++ {
		if s == opNames[o] {
			return o, nil
		}
	}
	return 0, invalid("unknown operation %q (want sum, min, max, argmin or argmax)", s)
}

// MaxElements is the largest element count a reduction takes: element
// indices are 32-bit on the GPU.
const MaxElements = math.MaxUint32

// NoIndex is the index a result holds where it has none: for the ops
// other than ArgMin and ArgMax, and for an empty input.
const NoIndex = math.MaxUint32

// The result block: Record writes ResultSize bytes to Buffers.Result,
// where a next pass can read them.
const (
	ResultSize = 16
	// ResultValueOffset holds the value as 8 bytes, low word first: a
	// 32-bit element in the first word (the second word zero), a uint64
	// whole. An empty input gives the identity: 0 (+0.0) for Sum, the
	// type's greatest value (+Inf) for Min and ArgMin, its least (-Inf)
	// for Max and ArgMax.
	ResultValueOffset = 0
	// ResultIndexOffset holds the index (uint32) of the element ArgMin and
	// ArgMax picked; NoIndex for an empty input and for the other ops.
	ResultIndexOffset = 8
	// ResultCountOffset holds the elements covered (uint32): n, or the
	// GPU count where it is smaller.
	ResultCountOffset = 12
)

// Reduce describes a reduction of uint32, int32, float32 or uint64
// elements to one value (and, for ArgMin and ArgMax, its index).
type Reduce struct {
	// Elem is the elements' type: vkcompact.Plain of Uint32, Int32,
	// Float32 or Uint64. The zero Elem is plain uint32 in a plan;
	// ReduceSlice takes it from the slice's Go type.
	Elem vkcompact.Elem
	Op   Op
	Options
}

// String names the reduction ("sum u32").
func (r Reduce) String() string { return fmt.Sprintf("%v %v", r.Op, r.Elem.Key.OrUint32()) }

// Options tunes a reduction. Zero values take per-device defaults.
type Options struct {
	// Path picks how the workgroups' partial results are combined:
	// PathSinglePass (and PathAuto) in one dispatch, where the last
	// workgroup to finish combines them (found with an atomic counter
	// that it resets for the next run); PathThreePhase in a second
	// dispatch of one workgroup after a barrier (two phases, reduce and
	// combine: no atomics, no scratch that must start zero). Both read
	// the input once and combine the partials in the same order, so they
	// give the same bits.
	Path vkcompact.Path
	// Spins is, on the reduction by key, how many times a tile re-reads
	// a predecessor's run count that has not been published before
	// counting that predecessor's runs itself (the look-back's decoupled
	// fallback). 0 takes the device's default (64 on a GPU, none on a CPU
	// device); a negative value never waits. The other reductions have
	// no look-back and take only 0.
	Spins int32
	// Workgroups is how many workgroups the input is cut into, each
	// reducing one contiguous chunk; at most one per step of
	// WorkgroupSize * LoadsPerLane uvec4s. Default: enough to fill the
	// device twice over, fewer for small inputs.
	Workgroups uint32
	// WorkgroupSize is the invocations per workgroup, a multiple of the
	// largest subgroup size. Default 256.
	WorkgroupSize uint32
	// LoadsPerLane is the uvec4 loads each invocation issues per step, 1
	// to vkcompact.MaxLoadsPerLane (of the segmented reduction's and the
	// reduction by key's tiles: the uvec4s of values each invocation
	// holds). Default 4 (on a GPU fewer for small inputs).
	LoadsPerLane uint32
	// GroupSize is, on the reduction by key, the invocations per
	// workgroup of the caller's next pass, for the dispatch arguments in
	// the result block (ByKeyDispatchOffset). Default 64. The other
	// reductions write no dispatch arguments and take only 0.
	GroupSize uint32
}

// Buffers are the ranges a recorded reduction uses. Every offset must be
// a multiple of the device's minStorageBufferOffsetAlignment, but Count's,
// a multiple of 4.
type Buffers struct {
	Src     vk.Range // n elements, read
	Result  vk.Range // ResultSize bytes, written
	Scratch vk.Range // Plan.ScratchSize bytes, read and written
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU (package vkcompact, "Counts from the
	// GPU"): the reduction then covers the first min(count, n) elements.
	Count vk.Range
}

// Result is a result block as read back.
type Result struct {
	// Bits is the value's bits: a 32-bit element in the low 32 bits.
	Bits uint64
	// Index is ArgMin's or ArgMax's index; NoIndex for the other ops and
	// for an empty input.
	Index uint32
	// Count is the elements covered.
	Count uint32
}

// Uint32 is the value of a reduction of uint32 elements.
func (r Result) Uint32() uint32 { return uint32(r.Bits) }

// Int32 is the value of a reduction of int32 elements.
func (r Result) Int32() int32 { return int32(uint32(r.Bits)) }

// Float32 is the value of a reduction of float32 elements.
func (r Result) Float32() float32 { return math.Float32frombits(uint32(r.Bits)) }

// Uint64 is the value of a reduction of uint64 elements.
func (r Result) Uint64() uint64 { return r.Bits }

// ReadResult reads the result block at r (ResultSize bytes, written by a
// completed Record).
func ReadResult(r vk.Range) (Result, error) {
	if r.Size < ResultSize {
		return Result{}, invalid("a result block of %d bytes: it is %d", r.Size, ResultSize)
	}
	var b [ResultSize]byte
	if err := vk.Download(r.Sub(0, ResultSize), b[:]); err != nil {
		return Result{}, err
	}
	return Result{Bits: binary.LittleEndian.Uint64(b[ResultValueOffset:]),
		Index: binary.LittleEndian.Uint32(b[ResultIndexOffset:]),
		Count: binary.LittleEndian.Uint32(b[ResultCountOffset:])}, nil
}

// Plan is a reduction of n elements checked, tuned and sized for one
// context. It is immutable and safe for concurrent use.
type Plan struct {
	ctx *vk.Context
	req Reduce
	n   uint32
	tuning
	tiles   pipeline.TypedPipeline[tilesPush, tilesBindings]
	combine pipeline.TypedPipeline[combinePush, combineBindings]
}

// NewPlan checks r for n elements on ctx, picks its tuning (a pure
// function of the device's information, n and r) and creates its
// pipelines.
func NewPlan(ctx *vk.Context, n uint64, r Reduce) (*Plan, error) {
	return newPlan(ctx, n, r, 0)
}

// newPlan is NewPlan with the bytes one binding holds lowered to
// windowLimit where that is not zero (tests cut small inputs into
// windows with it).
func newPlan(ctx *vk.Context, n uint64, r Reduce, windowLimit uint64) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := ctx.Info()
	req, t, err := tune(info, n, r, windowLimit)
	if err != nil {
		return nil, err
	}
	p := &Plan{ctx: ctx, req: req, n: uint32(n), tuning: t}
	cache := pipeline.For(ctx)
	code, maxSG := typeCode(req.Elem.Key), t.wg/max(info.MinSubgroupSize, 1)
	p.tiles, err = tilesKernel.Get(cache, tilesSpec{WorkgroupSize: t.wg, Op: uint32(req.Op), Type: code, Vecs: t.loads,
		MaxSubgroups: maxSG, LastCombines: t.path != vkcompact.PathThreePhase})
	if err != nil || t.path != vkcompact.PathThreePhase {
		return p, err
	}
	p.combine, err = combineKernel.Get(cache, combineSpec{WorkgroupSize: t.combineWG, Op: uint32(req.Op), Type: code,
		MaxSubgroups: t.combineWG / max(info.MinSubgroupSize, 1)})
	return p, err
}

// N returns the element count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// ScratchSize returns the bytes of scratch Record needs: a counter and a
// partial result per workgroup.
func (p *Plan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.scratchSize()
}

// Run records the reduction on the context's own queue, waits and reads
// the result block back. A zero Result or Scratch range is allocated for
// the call and released after it.
func (p *Plan) Run(b Buffers) (Result, error) {
	if p == nil {
		return Result{}, invalid("nil Plan")
	}
	return planrun.Run(p.ctx, temps(planrun.Temp{Range: &b.Result, Size: ResultSize}, planrun.Temp{Range: &b.Scratch, Size: p.ScratchSize()}),
		func(r *pipeline.Recorder) { p.Record(r, b) }, func() (Result, error) { return ReadResult(b.Result) })
}
