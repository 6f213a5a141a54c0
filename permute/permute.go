package permute

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// MaxElements is the most positions (indices) a plan takes: positions and
// indices are 32-bit on the GPU.
const MaxElements = math.MaxUint32

// StatusSize is the size of the status word a recorded move writes
// (Buffers.Status).
const StatusSize = 4

// StatusOK is the status word of a move whose every index was in range;
// any other value is the first position whose index was not.
const StatusOK = math.MaxUint32

// Permutation describes a gather, dst[i] = src[indices[i]] for each of
// the n positions i, or with Scatter a scatter, dst[indices[i]] = src[i].
// Elements are copied as they are, whole: Elem gives only their size.
type Permutation struct {
	// Elem is the elements' layout: its Size (a multiple of 4 from 4 to
	// vkcompact.MaxStride bytes) is all a move reads of it; the key is
	// not used. The zero Elem is plain uint32 (4 bytes); the Slice
	// helpers take it from their Go type.
	Elem vkcompact.Elem
	// Scatter writes element i to slot indices[i] of Dst; otherwise
	// (a gather) slot i of Dst is element indices[i] of Src. Repeated
	// indices in a scatter leave which element ends in the slot
	// undefined (package documentation).
	Scatter bool
	Options
}

// Options tunes a move. Zero values take per-device defaults.
type Options struct {
	// WorkgroupSize is the invocations per workgroup, a multiple of the
	// largest subgroup size. Default 256.
	WorkgroupSize uint32
	// LoadsPerLane is the units each lane moves, all their loads issued
	// before any store, 1 to vkcompact.MaxLoadsPerLane: a unit is four
	// positions of 4- or 8-byte elements, else one vector of an element.
	// Default 2.
	LoadsPerLane uint32
}

// Buffers are the ranges a recorded move uses. Every offset must be a
// multiple of the device's minStorageBufferOffsetAlignment, but Count's,
// a multiple of 4.
type Buffers struct {
	// Indices is the n uint32 indices, read.
	Indices vk.Range
	// Src is read: in a gather the elements the indices select from, as
	// many as it holds (one binding: at most maxStorageBufferRange
	// bytes); in a scatter the n elements in order.
	Src vk.Range
	// Dst is written: in a gather the n elements in order; in a scatter
	// the elements the indices select, as many as it holds (one
	// binding). The slots no index selects are left as they were.
	Dst vk.Range
	// Status, when set, is StatusSize bytes, written: StatusOK, or the
	// first position whose index was at or past the indexed side's
	// element count (that position moved nothing).
	Status vk.Range
	// Count, when set, is a 4-byte range holding the position count as a
	// uint32 written on the GPU (compact.Buffers.Count explains): the
	// move then covers the first min(count, n) positions.
	Count vk.Range
}

// Plan is a move of n positions checked, tuned and sized for one context.
// It is immutable and safe for concurrent use.
type Plan struct {
	ctx  *vk.Context
	n    uint32
	perm Permutation // checked
	size uint32      // bytes per element
	tun  Tuning
	pass pipeline.TypedPipeline[movePush, moveBindings]
}

// invalid is the package's error for bad input (vk.ErrInvalid).
func invalid(format string, args ...any) error { return errs.Invalidf(format, args...) }

// NewPlan checks p for n positions on ctx, picks its tuning and creates
// its pipeline.
func NewPlan(ctx *vk.Context, n uint64, p Permutation) (*Plan, error) {
	return newPlan(ctx, n, p, 0)
}

// newPlan is NewPlan with the bytes one dispatch binds of the in-order
// side lowered to segLimit where that is not zero (tests cut small inputs
// into segments with it).
func newPlan(ctx *vk.Context, n uint64, perm Permutation, segLimit uint64) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("permute: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := tune(ctx.Info(), n, perm, segLimit)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	if p.pass, err = moveKernel.Get(pipeline.For(ctx), p.spec()); err != nil {
		return nil, err
	}
	return p, nil
}

// N returns the position count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// ScratchSize returns the bytes of scratch Record needs: none. It is here
// for the operations' shared vocabulary.
func (p *Plan) ScratchSize() uint64 { return 0 }

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	return p.tun
}

// Run records the move on the context's own queue and waits. A zero
// Status range is allocated for the call and released after it. An index
// out of range is returned as an error (vk.ErrInvalid) naming the first
// position that held one and its index; the other positions moved.
func (p *Plan) Run(b Buffers) error {
	if p == nil {
		return invalid("permute: nil Plan")
	}
	status, err := planrun.Run(p.ctx, []planrun.Temp{{Range: &b.Status, Size: StatusSize}}, func(r *pipeline.Recorder) { p.Record(r, b) },
		func() ([1]uint32, error) {
			var status [1]uint32
			return status, vk.Download(b.Status.Sub(0, StatusSize), status[:])
		})
	if err != nil {
		return err
	}
	if status[0] == StatusOK {
		return nil
	}
	pos := status[0]
	var idx [1]uint32
	if uint64(pos) >= uint64(p.n) || vk.Download(b.Indices.Sub(uint64(pos)*4, 4), idx[:]) != nil {
		return invalid("permute: the GPU reported an index out of range at position %d", pos)
	}
	return p.outOfRange(pos, idx[0], p.bound(b))
}

// outOfRange is the error for index idx at position pos, bound elements
// on the indexed side.
func (p *Plan) outOfRange(pos, idx uint32, bound uint64) error {
	side := "source"
	if p.perm.Scatter {
		side = "destination"
	}
	return invalid("permute: index %d at position %d is out of range: the %s holds %d elements", idx, pos, side, bound)
}

// bound is the element count of b's indexed side.
func (p *Plan) bound(b Buffers) uint64 {
	r := b.Src
	if p.perm.Scatter {
		r = b.Dst
	}
	return r.Size / uint64(p.size)
}

// String names the move ("gather of 16-byte elements").
func (perm Permutation) String() string {
	verb := "gather"
	if perm.Scatter {
		verb = "scatter"
	}
	return fmt.Sprintf("%s of %d-byte elements", verb, perm.Elem.Size())
}
