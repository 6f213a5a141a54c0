package radix

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/vk"
)

// Key is a key type the sort takes.
type Key interface {
	uint32 | int32 | float32 | uint64
}

// KeyType returns the vkcompact.Type of K.
func KeyType[K Key]() vkcompact.Type {
	var k K
	switch any(k).(type) {
	case uint32:
		return vkcompact.Uint32
	case int32:
		return vkcompact.Int32
	case float32:
		return vkcompact.Float32
	}
	return vkcompact.Uint64
}

// SortSlice sorts keys on the GPU and returns them sorted. K decides the
// key type: s.Elem.Key must be Unset (the zero Type) or K's own, and any other
// is refused (vk.ErrInvalid, naming both) before any GPU work: a []uint32
// is never sorted as float32 keys. s.Values must be false (see
// SortPairsSlice). keys is not modified.
func SortSlice[K Key](ctx *vk.Context, keys []K, s Sort) ([]K, error) {
	if s.Values {
		return nil, invalid("radix: a sort of pairs takes its values: use SortPairsSlice")
	}
	out, _, err := sortSlice(ctx, keys, nil, s)
	return out, err
}

// SortPairsSlice sorts keys with a uint32 value each on the GPU and returns
// both, reordered. K decides the key type, as in SortSlice: s.Elem.Key must be
// Unset or K's own. s.Values is set. keys and values are not modified.
func SortPairsSlice[K Key](ctx *vk.Context, keys []K, values []uint32, s Sort) ([]K, []uint32, error) {
	if len(values) != len(keys) {
		return nil, nil, invalid("radix: %d values for %d keys", len(values), len(keys))
	}
	s.Values = true
	return sortSlice(ctx, keys, values, s)
}

// ArgsortSlice returns the order that sorts keys, stably: the indices i
// of keys in sorted order, so that keys[order[0]], keys[order[1]], ... is
// sorted and equal keys keep their input order (NumPy's
// argsort(kind="stable")). With the order a gather reorders any number of
// attribute arrays as the keys (package permute). K decides the key type,
// as in SortSlice; s.Values must be false (the values are the indices).
// keys is not modified.
func ArgsortSlice[K Key](ctx *vk.Context, keys []K, s Sort) ([]uint32, error) {
	if s.Values {
		return nil, invalid("radix: an argsort's values are the keys' indices: leave Sort.Values false")
	}
	if uint64(len(keys)) > MaxElements {
		return nil, invalid("radix: %d keys: at most %d", len(keys), uint64(MaxElements))
	}
	indices := make([]uint32, len(keys))
	for i := range indices {
		indices[i] = uint32(i)
	}
	s.Values = true
	_, order, err := sortSlice(ctx, keys, indices, s)
	return order, err
}

func sortSlice[K Key](ctx *vk.Context, keys []K, values []uint32, s Sort) ([]K, []uint32, error) {
	key, err := gotype.Key(reflect.TypeFor[K](), s.Elem.Key, "Sort.Elem.Key")
	if err != nil {
		return nil, nil, fmt.Errorf("radix: %w", err)
	}
	s.Elem.Key = key
	n := uint64(len(keys))
	p, err := NewPlan(ctx, n, s)
	if err != nil {
		return nil, nil, err
	}
	var bufs []*vk.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	newRange := func(size uint64) (vk.Range, error) {
		b, err := ctx.NewBuffer(max(size, 16), vk.DeviceLocal)
		if err != nil {
			return vk.Range{}, err
		}
		bufs = append(bufs, b)
		return b.Range(0, size), nil
	}
	var k K
	kb := n * uint64(unsafe.Sizeof(k))
	var b Buffers
	if b.Keys, err = newRange(kb); err != nil {
		return nil, nil, err
	}
	if err := vk.Upload(b.Keys, keys); err != nil {
		return nil, nil, err
	}
	if s.Values {
		if b.Values, err = newRange(4 * n); err != nil {
			return nil, nil, err
		}
		if err := vk.Upload(b.Values, values); err != nil {
			return nil, nil, err
		}
	}
	outKeys, outVals := b.Keys, b.Values
	if !s.InPlace {
		if b.KeysOut, err = newRange(kb); err != nil {
			return nil, nil, err
		}
		outKeys = b.KeysOut
		if s.Values {
			if b.ValuesOut, err = newRange(4 * n); err != nil {
				return nil, nil, err
			}
			outVals = b.ValuesOut
		}
	}
	if err := p.Run(b); err != nil {
		return nil, nil, err
	}
	sorted := make([]K, n)
	if err := vk.Download(outKeys, sorted); err != nil {
		return nil, nil, err
	}
	var vals []uint32
	if s.Values {
		vals = make([]uint32, n)
		if err := vk.Download(outVals, vals); err != nil {
			return nil, nil, err
		}
	}
	return sorted, vals, nil
}
