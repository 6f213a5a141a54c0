package compact

import (
	"fmt"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/vk"
)

// The slice helpers: a selection of a Go slice's elements planned, run
// on the GPU and read back in one call (and Partition3Slice, with the
// three-way partition).

// SelectSlice runs sel over data on the GPU and returns the output: the
// kept elements, or with sel.Split all of them, kept first. T is the
// element. For a key type (uint32, int32, float32, uint64, int64,
// float64) a zero sel.Elem means T's keys. For any other T (a struct),
// sel.Elem says where its key is (StructOf, or Struct with T's size or a
// zero Stride; an unset Key takes the type of T's field at KeyOffset).
// Any sel.Elem given must fit T, Plain(vkcompact.Uint32) included: the
// stride T's size, and at KeyOffset the start of a value of T (T itself,
// a field, an array element, nested) of exactly the Elem's key type. A
// conflict is refused (vk.ErrInvalid, naming both) before any GPU work: a
// []float32 is never compared as uint32 keys. InPlace is honoured on the
// GPU; data is not modified.
func SelectSlice[T any](ctx *vk.Context, data []T, sel Selection) ([]T, Result, error) {
	if sel.Keep.Op == Flagged {
		return nil, Result{}, errs.Invalidf("compact: a flagged selection takes its flags: use SelectFlaggedSlice")
	}
	if sel.Output != OutputElements {
		return nil, Result{}, errs.Invalidf("compact: a selection of indices returns uint32s: use SelectIndicesSlice")
	}
	return selectSlice[T, T, uint32](ctx, data, nil, sel)
}

// SelectFlaggedSlice is SelectSlice keeping the elements whose flag is
// nonzero; flags has one entry per element. sel.Keep is set to
// KeepFlagged.
func SelectFlaggedSlice[T any, F uint8 | uint32](ctx *vk.Context, data []T, flags []F, sel Selection) ([]T, Result, error) {
	if len(flags) != len(data) {
		return nil, Result{}, errs.Invalidf("compact: %d flags for %d elements", len(flags), len(data))
	}
	if sel.Output != OutputElements {
		return nil, Result{}, errs.Invalidf("compact: a selection of indices returns uint32s: use SelectIndicesSlice")
	}
	var f F
	sel.Keep = KeepFlagged(uint32(unsafe.Sizeof(f)))
	return selectSlice[T, T](ctx, data, flags, sel)
}

// SelectIndicesSlice runs sel over data on the GPU with sel.Output
// OutputIndices and returns the kept elements' indices. T and sel.Elem
// are as SelectSlice takes them; a flagged selection is refused (flags
// are not taken here).
func SelectIndicesSlice[T any](ctx *vk.Context, data []T, sel Selection) ([]uint32, Result, error) {
	if sel.Keep.Op == Flagged {
		return nil, Result{}, errs.Invalidf("compact: SelectIndicesSlice takes no flags")
	}
	sel.Output = OutputIndices
	return selectSlice[T, uint32, uint32](ctx, data, nil, sel)
}

// UniqueSlice is SelectSlice keeping the first element of each run of
// equal elements, as CUB's DeviceSelect::Unique does: sel.Keep.Equal says
// when neighbours are equal (its zero, EqualKeys, makes it KeepUnique),
// and sel.Keep.Op is FirstOfRun where it is not left zero; a Keep asking
// for another test is refused. T and sel.Elem are as SelectSlice takes
// them.
func UniqueSlice[T any](ctx *vk.Context, data []T, sel Selection) ([]T, Result, error) {
	if k := sel.Keep; k.Op != NonZero && k.Op != FirstOfRun || k.Value != (Value{}) || k.FlagBytes != 0 {
		return nil, Result{}, errs.Invalidf("compact: UniqueSlice keeps the first of each run; Keep %v asks for another test (leave Keep zero, or set only Keep.Equal)", k)
	}
	if sel.Output != OutputElements {
		return nil, Result{}, errs.Invalidf("compact: a selection of indices returns uint32s: use SelectIndicesSlice with KeepUnique")
	}
	sel.Keep = KeepFirstOfRun(sel.Keep.Equal)
	return selectSlice[T, T, uint32](ctx, data, nil, sel)
}

// selectSlice plans sel, its Elem resolved for T, over data and flags
// (none where nil), runs it and returns the output read as O (T's
// elements, or uint32 indices): the first Kept values of Dst, or with
// sel.Split all n.
func selectSlice[T, O any, F uint8 | uint32](ctx *vk.Context, data []T, flags []F, sel Selection) ([]O, Result, error) {
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
	var b Buffers
	if b.Src, err = bufs.New(ctx, n*uint64(elem.Size())); err != nil {
		return nil, Result{}, err
	}
	if err := vk.Upload(b.Src, data); err != nil {
		return nil, Result{}, err
	}
	var o O
	outSize := uint64(unsafe.Sizeof(o))
	b.Dst = b.Src
	if !sel.InPlace {
		if b.Dst, err = bufs.New(ctx, n*outSize); err != nil {
			return nil, Result{}, err
		}
	}
	if flags != nil {
		if b.Flags, err = bufs.New(ctx, uint64(len(flags))*uint64(unsafe.Sizeof(flags[0]))); err != nil {
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
	out := make([]O, outLen)
	if err := vk.Download(b.Dst.Sub(0, outLen*outSize), out); err != nil {
		return nil, res, err
	}
	return out, res, nil
}
