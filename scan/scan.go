package scan

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TotalSize is the size of the total a scan writes: one element.
const TotalSize = 4

// MaxElements is the largest element count a scan takes: element
// indices are 32-bit on the GPU.
const MaxElements = math.MaxUint32

// Scan describes a prefix scan of uint32, int32 or float32 elements: a
// prefix sum (Op Sum, the zero Op), or a running min or max (Op Min,
// Max). Element i of an inclusive scan combines elements 0..i, of an
// exclusive one elements 0..i-1 (element 0 the op's identity: 0 for Sum,
// see Op for Min and Max); the total combines them all.
//
// Min and max are exact, in any order of combination, and float32 ones
// follow Go's min and max (Op). Integer sums wrap modulo 2^32 (int32 in two's complement). float32 sums
// are computed in float32 in a tree order (per lane, per subgroup, per
// chunk), not left to right, so they differ from a serial float32 loop by
// rounding: the error bound is that of pairwise summation, usually
// smaller than the serial loop's. Infinities and NaNs propagate as in any
// order of IEEE additions. Zeros keep their sign as IEEE 754 and NumPy's
// cumsum give it: a sum of nothing but -0.0 is -0.0 (inclusive [-0.0, 1.0]
// is [-0.0, 1.0]), any other zero sum +0.0, and the sum of nothing (the
// first exclusive element, the total of no elements) +0.0.
type Scan struct {
	// Elem is the elements: plain keys (vkcompact.Plain) of type Uint32,
	// Int32 or Float32. The zero Elem is plain uint32 in a plan; ScanSlice
	// takes it from the elements' Go type, and refuses any other. An Elem
	// describing structs is refused.
	Elem vkcompact.Elem
	// Op is the combination: Sum (the zero Op), Min or Max.
	Op Op
	// Inclusive makes element i the sum (min, max) of elements 0..i;
	// otherwise (exclusive) of 0..i-1, with element 0 the op's identity.
	Inclusive bool
	// InPlace writes the sums over the source; Dst stays empty.
	InPlace bool
	Options
}

// Options tunes a scan. Zero values take per-device defaults.
type Options struct {
	// Path picks the three phases (reduce, scan of the chunk sums, apply:
	// the input read twice) or the single pass (a chained scan over tiles
	// with decoupled look-back and fallback: read once). The single pass
	// runs every scan but float32 sums, out of place (past one binding,
	// maxStorageBufferRange, one dispatch per window of the source and
	// destination: Tuning.WindowTiles), in workgroups of at most 512
	// invocations (larger ones are not proven on it). float32 sums keep
	// the three phases: the fallback sums a late tile again in another
	// order, so a float total would depend on timing (float32 min and max
	// do not depend on the order). PathAuto takes the single pass where
	// it applies, on GPUs. A scan by key (ByKey) has the single pass only.
	Path vkcompact.Path
	// Spins is, on the single pass, how many times a tile re-reads a
	// predecessor that has not published before summing that
	// predecessor's tile itself. 0 takes the device's default (64 on a
	// GPU, none on a CPU device); a negative value never waits.
	Spins int32
	// Processors is, on the three phases, the number of chunks the input
	// is cut into, each summed by one subgroup. Default: enough subgroups
	// to fill the device twice over.
	Processors uint32
	// WorkgroupSize is the invocations per workgroup, a multiple of the
	// largest subgroup size. Default 256.
	WorkgroupSize uint32
	// LoadsPerLane is the uvec4 loads each lane issues per step, 1 to
	// vkcompact.MaxLoadsPerLane. Default 2 on the three phases, 4 (a tile
	// of 16 elements per lane) on the single pass.
	LoadsPerLane uint32
}

// Buffers are the ranges a recorded prefix sum uses. Every offset must
// be a multiple of the device's minStorageBufferOffsetAlignment, but
// Count's, a multiple of 4 (as compact.Buffers.Count's).
type Buffers struct {
	Src     vk.Range // n elements, read (and written in place)
	Dst     vk.Range // n elements, written; empty in place
	Total   vk.Range // TotalSize bytes, written: the sum (min, max) of all n elements, as an element
	Scratch vk.Range // Plan.ScratchSize bytes; the single pass leaves its status words there zero for its next run (package vkcompact, "Scratch between runs")
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU (compact.Buffers.Count explains): the scan then
	// covers the first min(count, n) elements, Total is their sum (min,
	// max), and the destination past them is not written.
	Count vk.Range
}

// Plan is a prefix scan of n elements checked, tuned and sized for one
// context: the checked request and one algorithm, the three phases or the
// single pass, with its own tuning, scratch layout and recording. It is
// immutable and safe for concurrent use.
type Plan struct {
	ctx *vk.Context
	request
	alg algorithm
}

// NewPlan checks s for n elements on ctx, picks its tuning and creates
// its pipelines.
func NewPlan(ctx *vk.Context, n uint64, s Scan) (*Plan, error) {
	return newPlan(ctx, n, s, 0)
}

// newPlan is NewPlan with the bytes one binding of the single pass holds
// lowered to windowLimit where that is not zero (tune).
func newPlan(ctx *vk.Context, n uint64, s Scan, windowLimit uint64) (*Plan, error) {
	if ctx == nil {
		return nil, errs.Invalidf("scan: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := ctx.Info()
	p, err := tune(info, n, s, windowLimit)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	return p, p.alg.pipelines(pipeline.For(ctx), info, p.request)
}

// N returns the element count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// ScratchSize returns the bytes of scratch Record needs: one sum per chunk
// and the total, or on the single pass the status words of its tiles.
func (p *Plan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.alg.scratchSize()
}

// Total is a scan's total as the GPU wrote it: read it as the plan's
// element type. A Min or Max scan's total of no elements is the op's
// identity.
type Total uint32

// Uint32 is the total of uint32 elements (a sum wrapped modulo 2^32).
func (t Total) Uint32() uint32 { return uint32(t) }

// Int32 is the total of int32 elements (a sum wrapped modulo 2^32).
func (t Total) Int32() int32 { return int32(t) }

// Float32 is the total of float32 elements.
func (t Total) Float32() float32 { return math.Float32frombits(uint32(t)) }

// Run records the scan on the context's own queue and waits. A zero
// Total or Scratch range is allocated for the call and released after it.
// It returns the total.
func (p *Plan) Run(b Buffers) (Total, error) {
	if p == nil {
		return 0, errs.Invalidf("scan: nil Plan")
	}
	return planrun.Run(p.ctx, []planrun.Temp{{Range: &b.Total, Size: TotalSize}, {Range: &b.Scratch, Size: p.ScratchSize()}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, func() (Total, error) {
			var total [1]uint32
			err := vk.Download(b.Total.Sub(0, TotalSize), total[:])
			return Total(total[0]), err
		})
}

// ScanSlice runs a prefix scan of data on the GPU and returns the sums
// (mins, maxes) and the total. T decides the element type: s.Elem must be zero or T's own
// plain keys (vkcompact.Plain), and any other is refused (vk.ErrInvalid,
// naming both) before any GPU work. InPlace is honoured on the GPU; data
// is not modified.
func ScanSlice[T uint32 | int32 | float32](ctx *vk.Context, data []T, s Scan) ([]T, T, error) {
	var zero T
	t, err := gotype.Plain(reflect.TypeFor[T](), s.Elem, "Scan.Elem")
	if err != nil {
		return nil, zero, fmt.Errorf("scan: %w", err)
	}
	s.Elem = vkcompact.Plain(t)
	n := uint64(len(data))
	p, err := NewPlan(ctx, n, s)
	if err != nil {
		return nil, zero, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	var b Buffers
	if b.Src, err = bufs.New(ctx, n*4); err != nil {
		return nil, zero, err
	}
	if err := vk.Upload(b.Src, data); err != nil {
		return nil, zero, err
	}
	if !s.InPlace {
		if b.Dst, err = bufs.New(ctx, n*4); err != nil {
			return nil, zero, err
		}
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

// String names the scan ("exclusive u32" for a sum, "inclusive min
// f32"; a zero Elem's key, unset, is written as u32, a plan's).
func (s Scan) String() string {
	kind := "exclusive"
	if s.Inclusive {
		kind = "inclusive"
	}
	if s.Op != Sum {
		kind += " " + s.Op.String()
	}
	return fmt.Sprintf("%s %v", kind, s.Elem.Key.OrUint32())
}
