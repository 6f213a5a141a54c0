package radix

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
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
	p, err := NewPlan(ctx, uint64(len(keys)), s)
	if err != nil {
		return nil, nil, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	io, err := uploadSlices(ctx, &bufs, keys, values, s.InPlace)
	if err != nil {
		return nil, nil, err
	}
	b := Buffers{Keys: io.keys, Values: io.vals}
	if !s.InPlace {
		b.KeysOut, b.ValuesOut = io.keysOut, io.valsOut
	}
	if err := p.Run(b); err != nil {
		return nil, nil, err
	}
	return downloadSlices[K](io, len(keys), values != nil)
}

// sliceRanges are the device ranges of a slice helper's sort: the keys
// and values uploaded, and the outputs (the inputs again in place).
type sliceRanges struct{ keys, vals, keysOut, valsOut vk.Range }

// uploadSlices makes buffers in bufs for keys (and values, where not nil)
// and their outputs (none in place: the outputs are the inputs), and
// uploads keys and values.
func uploadSlices[K Key](ctx *vk.Context, bufs *planrun.Buffers, keys []K, values []uint32, inPlace bool) (sliceRanges, error) {
	var io sliceRanges
	upload := func(dst *vk.Range, n uint64, put func(vk.Range) error) error {
		r, err := bufs.New(ctx, n)
		if err == nil && put != nil {
			err = put(r)
		}
		*dst = r
		return err
	}
	kb := uint64(len(keys)) * uint64(unsafe.Sizeof(*new(K)))
	if err := upload(&io.keys, kb, func(r vk.Range) error { return vk.Upload(r, keys) }); err != nil {
		return io, err
	}
	if values != nil {
		if err := upload(&io.vals, 4*uint64(len(values)), func(r vk.Range) error { return vk.Upload(r, values) }); err != nil {
			return io, err
		}
	}
	io.keysOut, io.valsOut = io.keys, io.vals
	if inPlace {
		return io, nil
	}
	if err := upload(&io.keysOut, kb, nil); err != nil {
		return io, err
	}
	if values != nil {
		return io, upload(&io.valsOut, 4*uint64(len(values)), nil)
	}
	return io, nil
}

// downloadSlices reads n sorted keys back from io, and their values
// where pairs.
func downloadSlices[K Key](io sliceRanges, n int, pairs bool) ([]K, []uint32, error) {
	sorted := make([]K, n)
	if err := vk.Download(io.keysOut, sorted); err != nil {
		return nil, nil, err
	}
	if !pairs {
		return sorted, nil, nil
	}
	vals := make([]uint32, n)
	if err := vk.Download(io.valsOut, vals); err != nil {
		return nil, nil, err
	}
	return sorted, vals, nil
}
