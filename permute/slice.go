package permute

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"reflect"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/vk"
)

// GatherSlice gathers src by indices on the GPU: it returns dst with
// dst[i] = src[indices[i]] (NumPy's np.take(src, indices)). T is the
// element: any plain Go type (numbers, arrays and structs of them) whose
// size is a multiple of 4 from 4 to vkcompact.MaxStride bytes; p.Elem
// must be the zero Elem or of T's size, and p.Scatter unset. An index at
// or past len(src) is refused (vk.ErrInvalid, naming its position)
// before any GPU work.
func GatherSlice[T any](ctx *vk.Context, src []T, indices []uint32, p Permutation) ([]T, error) {
	if p.Scatter {
		return nil, invalid("permute: a scatter writes into a destination: use ScatterSlice")
	}
	dst := make([]T, len(indices))
	return dst, moveSlice(ctx, src, dst, indices, p)
}

// ScatterSlice scatters src by indices on the GPU: it returns a copy of
// dst with out[indices[i]] = src[i], the slots no index selects as in
// dst; dst is not modified. len(indices) must be len(src), and each
// index below len(dst) (else vk.ErrInvalid, naming the first position,
// before any GPU work). Repeated indices leave which element ends in
// their slot undefined. T and p are as for GatherSlice, p.Scatter set.
func ScatterSlice[T any](ctx *vk.Context, dst, src []T, indices []uint32, p Permutation) ([]T, error) {
	if len(indices) != len(src) {
		return nil, invalid("permute: %d indices for %d source elements: a scatter takes one index per element", len(indices), len(src))
	}
	p.Scatter = true
	out := append(make([]T, 0, len(dst)), dst...)
	return out, moveSlice(ctx, src, out, indices, p)
}

// moveSlice runs p over host slices: src and indices uploaded, dst
// uploaded for a scatter (its slots no index selects stay), the result
// downloaded into dst.
func moveSlice[T any](ctx *vk.Context, src, dst []T, indices []uint32, p Permutation) error {
	elem, err := elemOf[T](p.Elem)
	if err != nil {
		return err
	}
	p.Elem = elem
	bound, side := len(src), "source"
	if p.Scatter {
		bound, side = len(dst), "destination"
	}
	for i, x := range indices {
		if uint64(x) >= uint64(bound) {
			return invalid("permute: index %d at position %d is out of range: the %s holds %d elements", x, i, side, bound)
		}
	}
	n := uint64(len(indices))
	plan, err := NewPlan(ctx, n, p)
	if err != nil {
		return err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	size := uint64(elem.Size())
	var b Buffers
	if b.Indices, err = planrun.Upload(ctx, &bufs, indices, 4*n); err != nil {
		return err
	}
	if b.Src, err = planrun.Upload(ctx, &bufs, src, size*uint64(len(src))); err != nil {
		return err
	}
	var dstData []T // a gather's destination is all written
	if p.Scatter {
		dstData = dst
	}
	if b.Dst, err = planrun.Upload(ctx, &bufs, dstData, size*uint64(len(dst))); err != nil {
		return err
	}
	if err := plan.Run(b); err != nil {
		return err
	}
	return vk.Download(b.Dst, dst)
}

// elemOf checks e against the Go type T: the zero Elem takes T's size; any
// other Elem must be T's size. T must be plain (no pointers) and its size
// a multiple of 4 from 4 to vkcompact.MaxStride.
func elemOf[T any](e vkcompact.Elem) (vkcompact.Elem, error) {
	t := reflect.TypeFor[T]()
	size := uint64(unsafe.Sizeof(*new(T)))
	if size%4 != 0 || size < 4 || size > vkcompact.MaxStride {
		return e, invalid("permute: %v is %d bytes: an element must be a multiple of 4 from 4 to %d bytes", t, size, vkcompact.MaxStride)
	}
	if !plain(t) {
		return e, invalid("permute: %v holds pointers or other Go references, which cannot be copied to the GPU", t)
	}
	if e == (vkcompact.Elem{}) {
		return vkcompact.Struct(uint32(size), 0, vkcompact.Uint32), nil
	}
	if err := e.Check(); err != nil {
		return e, fmt.Errorf("permute: Elem %v: %w", e, err)
	}
	if uint64(e.Size()) != size {
		return e, invalid("permute: Elem %v does not match the elements' Go type %v: %d bytes for a %d-byte %v", e, t, e.Size(), size, t)
	}
	return e, nil
}

// plain reports whether values of t are numbers, or arrays and structs of
// them (no pointers, slices, strings, maps, channels, functions or
// interfaces).
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}
