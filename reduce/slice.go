package reduce

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"reflect"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/vk"
)

// Value is the Go type of the elements a reduction takes.
type Value interface {
	~uint32 | ~int32 | ~float32 | ~uint64
}

// sliceElem resolves the element layout a helper is asked for (field
// names it in errors) against the slice's Go type T: plain values, whose
// type is T's where it is Unset.
func sliceElem[T any](e vkcompact.Elem, field string) (vkcompact.Elem, error) {
	if _, err := checkElem(e, field); err != nil {
		return e, err
	}
	t, err := gotype.Key(reflect.TypeFor[T](), e.Key, field)
	if err != nil {
		return e, fmt.Errorf("reduce: %w", err)
	}
	return vkcompact.Plain(t), nil
}

// upload makes a device-local buffer in b for data's bytes and fills it
// (planrun.Upload).
func upload[T any](ctx *vk.Context, b *planrun.Buffers, data []T) (vk.Range, error) {
	return planrun.Upload(ctx, b, data, uint64(len(data))*uint64(reflect.TypeFor[T]().Size()))
}

// ReduceSlice reduces data on the GPU and returns the value and, for
// ArgMin and ArgMax, the element's index (NoIndex otherwise, and for no
// elements, whose value is the identity: ResultValueOffset). T decides
// the element type: r.Elem must be the zero Elem or T's own plain type,
// and any other is refused (vk.ErrInvalid, naming both) before any GPU
// work.
func ReduceSlice[T Value](ctx *vk.Context, data []T, r Reduce) (T, uint32, error) {
	var zero T
	e, err := sliceElem[T](r.Elem, "Reduce.Elem")
	if err != nil {
		return zero, NoIndex, err
	}
	r.Elem = e
	p, err := NewPlan(ctx, uint64(len(data)), r)
	if err != nil {
		return zero, NoIndex, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	rng, err := upload(ctx, &bufs, data)
	if err != nil {
		return zero, NoIndex, err
	}
	res, err := p.Run(Buffers{Src: rng})
	if err != nil {
		return zero, NoIndex, err
	}
	return fromBits[T](res.Bits), res.Index, nil
}

// fromBits is the T whose bits are the low bytes of bits.
func fromBits[T Value](bits uint64) T {
	var v T
	if unsafe.Sizeof(v) == 8 {
		return *(*T)(unsafe.Pointer(&bits))
	}
	b := uint32(bits)
	return *(*T)(unsafe.Pointer(&b))
}

// checkOffsets checks segment offsets for n elements on the CPU, as the
// segmented sort's helpers do (radix.CheckOffsets): at least one entry,
// none above n, none below the one before.
func checkOffsets(offsets []uint32, n uint64) error {
	if len(offsets) == 0 {
		return invalid("no offsets: segments need segments+1 offsets (one, for no segments)")
	}
	if uint64(len(offsets)-1) > uint64(^uint32(0)-1) {
		return invalid("%d offsets: at most 2^32-1", len(offsets))
	}
	for i, o := range offsets {
		if uint64(o) > n {
			return invalid("offset %d is %d, past the %d elements", i, o, n)
		}
		if i > 0 && o < offsets[i-1] {
			return invalid("offset %d (%d) is below offset %d (%d): offsets must not decrease", i, o, i-1, offsets[i-1])
		}
	}
	return nil
}

// ReduceSegmentsSlice reduces data within the segments offsets gives and
// returns a value per segment: segment s is data[offsets[s]:offsets[s+1]],
// and len(offsets) is the segment count plus one. An empty segment gets
// the empty value (Segmented). Unlike a plan, it checks the offsets (not
// decreasing, at most len(data)) before any GPU work. T decides the
// element type, as ReduceSlice's.
func ReduceSegmentsSlice[T Value](ctx *vk.Context, data []T, offsets []uint32, s Segmented) ([]T, error) {
	e, err := sliceElem[T](s.Elem, "Segmented.Elem")
	if err != nil {
		return nil, err
	}
	s.Elem = e
	n := uint64(len(data))
	if err := checkOffsets(offsets, n); err != nil {
		return nil, err
	}
	segments := uint32(len(offsets) - 1)
	p, err := NewSegmentedPlan(ctx, n, segments, s)
	if err != nil {
		return nil, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	srcRange, err := upload(ctx, &bufs, data)
	if err != nil {
		return nil, err
	}
	offRange, err := upload(ctx, &bufs, offsets)
	if err != nil {
		return nil, err
	}
	out := make([]T, segments)
	dstRange, err := bufs.New(ctx, uint64(segments)*uint64(e.Size()))
	if err != nil {
		return nil, err
	}
	if err := p.Run(SegmentedBuffers{Src: srcRange, Offsets: offRange, Dst: dstRange}); err != nil {
		return nil, err
	}
	if segments > 0 {
		if err := vk.Download(dstRange, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Value32 is the Go type of the values a reduction by key takes.
type Value32 interface {
	~uint32 | ~int32 | ~float32
}

// ReduceByKeySlice reduces the values of each run of equal consecutive
// keys on the GPU and returns each run's first key and its values'
// reduction, in order. K and V decide the key and value types: b.Elem
// and b.Value must be unset or theirs, and any other is refused
// (vk.ErrInvalid, naming both) before any GPU work, as is a values slice
// of another length than keys.
func ReduceByKeySlice[K Value, V Value32](ctx *vk.Context, keys []K, values []V, b ByKey) ([]K, []V, error) {
	e, err := sliceElem[K](b.Elem, "ByKey.Elem")
	if err != nil {
		return nil, nil, err
	}
	vt, err := gotype.Key(reflect.TypeFor[V](), b.Value, "ByKey.Value")
	if err != nil {
		return nil, nil, fmt.Errorf("reduce: %w", err)
	}
	if len(values) != len(keys) {
		return nil, nil, invalid("%d values for %d keys", len(values), len(keys))
	}
	b.Elem, b.Value = e, vt
	n := uint64(len(keys))
	p, err := NewByKeyPlan(ctx, n, b)
	if err != nil {
		return nil, nil, err
	}
	var temp planrun.Buffers
	defer temp.Release()
	var bufs ByKeyBuffers
	if bufs.Keys, err = upload(ctx, &temp, keys); err != nil {
		return nil, nil, err
	}
	if bufs.Values, err = upload(ctx, &temp, values); err != nil {
		return nil, nil, err
	}
	if bufs.KeysOut, err = temp.New(ctx, n*uint64(e.Size())); err != nil {
		return nil, nil, err
	}
	if bufs.ValuesOut, err = temp.New(ctx, n*4); err != nil {
		return nil, nil, err
	}
	res, err := p.Run(bufs)
	if err != nil {
		return nil, nil, err
	}
	outK, outV := make([]K, res.Runs), make([]V, res.Runs)
	if res.Runs > 0 {
		if err := vk.Download(bufs.KeysOut.Sub(0, uint64(res.Runs)*uint64(e.Size())), outK); err != nil {
			return nil, nil, err
		}
		if err := vk.Download(bufs.ValuesOut.Sub(0, uint64(res.Runs)*4), outV); err != nil {
			return nil, nil, err
		}
	}
	return outK, outV, nil
}
