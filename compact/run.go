package compact

import (
	"fmt"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// ReadResult reads the result block at r (ResultSize bytes, written by a
// recorded selection whose submission has completed).
func ReadResult(r vk.Range) (Result, error) {
	if r.Buffer != nil && r.Size < 12 {
		return Result{}, errs.Invalidf("compact: a result range of %d bytes: the kept, rejected and total counts need 12", r.Size)
	}
	var w [3]uint32
	if err := vk.Download(r.Sub(ResultKeptOffset, 12), w[:]); err != nil {
		return Result{}, err
	}
	return Result{Kept: w[0], Rejected: w[1], Total: w[2]}, nil
}

// Run records the selection on the context's own queue, waits, and reads
// the result block back. A zero Result or Scratch range is allocated for
// the call and released after it.
func (p *Plan) Run(b Buffers) (Result, error) {
	if p == nil {
		return Result{}, errs.Invalidf("compact: nil Plan")
	}
	return planrun.Run(p.ctx, []planrun.Temp{{Range: &b.Result, Size: ResultSize}, {Range: &b.Scratch, Size: p.ScratchSize()}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, func() (Result, error) { return ReadResult(b.Result) })
}

// Select plans and runs a selection of n elements (see NewPlan, Plan.Run).
func Select(ctx *vk.Context, n uint64, sel Selection, b Buffers) (Result, error) {
	p, err := NewPlan(ctx, n, sel)
	if err != nil {
		return Result{}, err
	}
	return p.Run(b)
}

// Slice runs sel over data on the GPU and returns the output: the kept
// elements, or with sel.Split all of them, kept first. T is the element.
// For a key type (uint32, int32, float32, uint64, int64, float64) a zero
// sel.Elem means T's keys. For any other T (a struct), sel.Elem says
// where its key is (StructOf, or Struct with T's size or a zero Stride;
// an unset Key takes the type of T's field at KeyOffset). Any sel.Elem
// given must fit T, Plain(vkcompact.Uint32) included: the stride T's
// size, and at KeyOffset the start of a value of T (T itself, a field, an
// array element, nested) of exactly the Elem's key type. A conflict is
// refused (vk.ErrInvalid, naming both) before any GPU work: a []float32
// is never compared as uint32 keys. InPlace is honoured on the GPU; data
// is not modified.
func Slice[T any](ctx *vk.Context, data []T, sel Selection) ([]T, Result, error) {
	if sel.Keep.Op == Flagged {
		return nil, Result{}, errs.Invalidf("compact: a flagged selection takes its flags: use SliceFlagged")
	}
	return slice[T, uint32](ctx, data, nil, sel)
}

// SliceFlagged is Slice keeping the elements whose flag is nonzero; flags
// has one entry per element. sel.Keep is set to KeepFlagged.
func SliceFlagged[T any, F uint8 | uint32](ctx *vk.Context, data []T, flags []F, sel Selection) ([]T, Result, error) {
	if len(flags) != len(data) {
		return nil, Result{}, errs.Invalidf("compact: %d flags for %d elements", len(flags), len(data))
	}
	var f F
	sel.Keep = KeepFlagged(uint32(unsafe.Sizeof(f)))
	return slice(ctx, data, flags, sel)
}

func slice[T any, F uint8 | uint32](ctx *vk.Context, data []T, flags []F, sel Selection) ([]T, Result, error) {
	if sel.Output != OutputElements {
		return nil, Result{}, errs.Invalidf("compact: a selection of indices returns uint32s: use SliceIndices")
	}
	var zero T
	size := uint32(unsafe.Sizeof(zero))
	elem, err := elemFor[T](sel.Elem)
	if err != nil {
		return nil, Result{}, err
	}
	sel.Elem = elem
	n := uint64(len(data))
	p, err := NewPlan(ctx, n, sel)
	if err != nil {
		return nil, Result{}, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	newBuf := func(size uint64) (vk.Range, error) { return bufs.New(ctx, size) }
	bytes := n * uint64(size)
	var b Buffers
	if b.Src, err = newBuf(bytes); err != nil {
		return nil, Result{}, err
	}
	if err := vk.Upload(b.Src, data); err != nil {
		return nil, Result{}, err
	}
	b.Dst = b.Src
	if !sel.InPlace {
		if b.Dst, err = newBuf(bytes); err != nil {
			return nil, Result{}, err
		}
	}
	if flags != nil {
		if b.Flags, err = newBuf(uint64(len(flags)) * uint64(unsafe.Sizeof(flags[0]))); err != nil {
			return nil, Result{}, err
		}
		if err := vk.Upload(b.Flags, flags); err != nil {
			return nil, Result{}, err
		}
	}
	res, err := p.Run(b)
	if err != nil {
		return nil, Result{}, err
	}
	if res.Total != uint32(n) || uint64(res.Kept) > n {
		return nil, res, fmt.Errorf("compact: the GPU reported %d kept of %d for %d elements", res.Kept, res.Total, n)
	}
	outLen := uint64(res.Kept)
	if sel.Split {
		outLen = n
	}
	out := make([]T, outLen)
	if err := vk.Download(b.Dst.Sub(0, outLen*uint64(size)), out); err != nil {
		return nil, res, err
	}
	return out, res, nil
}
