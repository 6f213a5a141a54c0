package radix

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"reflect"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// structPush is the push constants of struct_keys and struct_gather.
type structPush struct {
	N       uint32 `glsl:"n"`       // structs
	CountOn uint32 `glsl:"countOn"` // 1: take the count from StructBuffers.Count
}

// structKeysSpec is struct_keys' specialization constants.
type structKeysSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	StrideWords   uint32 `glsl:"STRIDE_WORDS"` // words per struct
	KeyWord       uint32 `glsl:"KEY_WORD"`     // the key's first word in the struct
	KeyWords      uint32 `glsl:"KEY_WORDS"`    // 1, or 2 for a 64-bit key
}

// structGatherSpec is struct_gather's specialization constants.
type structGatherSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	StrideWords   uint32 `glsl:"STRIDE_WORDS"`
}

// struct_keys' and struct_gather's storage-buffer bindings.
type (
	structKeysBindings struct {
		Structs       vk.Range `use:"read"`
		Keys, Indices vk.Range `use:"write"`
		GpuCount      vk.Range `use:"read"`
	}
	structGatherBindings struct {
		Src               vk.Range `use:"read"`
		Dst               vk.Range `use:"write"`
		Indices, GpuCount vk.Range `use:"read"`
	}
)

var (
	structKeysKernel   = newKernel[structPush, structKeysSpec, structKeysBindings]("struct_keys", anySubgroupSize)
	structGatherKernel = newKernel[structPush, structGatherSpec, structGatherBindings]("struct_gather", anySubgroupSize)
)

// StructSort describes a sort of structs by one key field: the keys are
// copied out of the structs on the GPU, sorted with each struct's index as
// its value, and the structs gathered into the output in that order. The
// sort is stable: structs of equal keys keep their input order.
type StructSort struct {
	// Elem is the struct's layout and its key field, as vkcompact.StructOf
	// gives it: the stride, the key's byte offset and its type, one of
	// vkcompact.Uint32, Int32, Float32 or Uint64 (Unset is Uint32 in a
	// plan; SortStructsSlice takes it from the field). A plain Elem (no
	// stride) sorts bare keys.
	Elem       vkcompact.Elem
	Descending bool // as Sort.Descending
	// BeginBit and EndBit are as Sort's: the bits [BeginBit, EndBit) of
	// the order-mapped key sort.
	BeginBit, EndBit uint32
	// Options tune the sort of the keys.
	Options
}

// StructBuffers are the ranges a recorded struct sort uses. Every offset
// but Count's must be a multiple of the device's
// minStorageBufferOffsetAlignment.
type StructBuffers struct {
	Src vk.Range // n structs, read
	// Dst receives the n structs sorted; it must not overlap Src.
	Dst     vk.Range
	Scratch vk.Range // StructPlan.ScratchSize bytes
	// Count, when set, is a 4-byte range at any offset that is a
	// multiple of 4 holding the struct count as a uint32 written on the
	// GPU, for instance a compaction's kept count
	// (compact.Buffers.Count): the sort then covers the first min(count,
	// n) structs and leaves the rest of Dst unwritten.
	Count vk.Range
}

// StructPlan is a sort of n structs by a key field, checked, tuned and
// sized for one context. It is immutable and safe for concurrent use.
//
// Its scratch holds the extracted keys, then the indices, then the key
// sort's own scratch, each at a multiple of the device's storage offset
// alignment:
//
//	| keys: n keys | indices: n uint32 | the key sort's Plan.ScratchSize |
type StructPlan struct {
	ctx                      *vk.Context
	n                        uint64
	elem                     vkcompact.Elem
	keys                     *Plan // the pairs sort of (key, index), in place
	extract                  pipeline.TypedPipeline[structPush, structKeysBindings]
	gather                   pipeline.TypedPipeline[structPush, structGatherBindings]
	wg                       uint32
	idxOff, sortOff, scratch uint64
}

// NewStructPlan checks s for n structs on ctx, tunes the sort of their
// keys and creates its pipelines. The structs must fit one binding: n
// times the stride at most the device's maxStorageBufferRange.
func NewStructPlan(ctx *vk.Context, n uint64, s StructSort) (*StructPlan, error) {
	if ctx == nil {
		return nil, invalid("radix: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.Elem.Key = s.Elem.Key.OrUint32()
	if err := s.Elem.Check(); err != nil {
		return nil, fmt.Errorf("radix: struct sort: %w", err)
	}
	if _, ok := keyCode(s.Elem.Key); !ok {
		return nil, invalid("radix: struct sort: the key field is a %s: the sort takes uint32, int32, float32 or uint64 keys", s.Elem.Key)
	}
	info := ctx.Info()
	stride := uint64(s.Elem.Size())
	if n > MaxElements || n*stride > uint64(info.MaxStorageBufferRange) {
		return nil, invalid("radix: struct sort: %d structs of %d bytes exceed one binding's %d bytes (maxStorageBufferRange)",
			n, stride, info.MaxStorageBufferRange)
	}
	keys, err := NewPlan(ctx, n, Sort{Elem: vkcompact.Plain(s.Elem.Key), Values: true, Descending: s.Descending,
		BeginBit: s.BeginBit, EndBit: s.EndBit, InPlace: true, Options: s.Options})
	if err != nil {
		return nil, fmt.Errorf("radix: struct sort: %w", err)
	}
	p := &StructPlan{ctx: ctx, n: n, elem: s.Elem, keys: keys,
		wg: min(256, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])}
	a := max(info.MinStorageBufferOffsetAlignment, 4)
	p.idxOff = align.Up(n*uint64(s.Elem.Key.Size()), a)
	p.sortOff = align.Up(p.idxOff+4*n, a)
	p.scratch = p.sortOff + keys.ScratchSize()
	cache := pipeline.For(ctx)
	strideWords := uint32(stride / 4)
	if p.extract, err = structKeysKernel.Get(cache, structKeysSpec{WorkgroupSize: p.wg, StrideWords: strideWords,
		KeyWord: s.Elem.KeyOffset / 4, KeyWords: s.Elem.Key.Size() / 4}); err != nil {
		return nil, err
	}
	if p.gather, err = structGatherKernel.Get(cache, structGatherSpec{WorkgroupSize: p.wg, StrideWords: strideWords}); err != nil {
		return nil, err
	}
	return p, nil
}

// N returns the plan's struct count.
func (p *StructPlan) N() uint64 {
	if p == nil {
		return 0
	}
	return p.n
}

// ScratchSize returns the bytes of scratch the sort needs.
func (p *StructPlan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.scratch
}

// Elem returns the struct layout the plan sorts.
func (p *StructPlan) Elem() vkcompact.Elem {
	if p == nil {
		return vkcompact.Elem{}
	}
	return p.elem
}

// Record records the sort into r: the key extraction, the sort of keys
// and indices, and the gather. As with Plan.Record, the caller orders the
// writes of Src and Count before the recording and later reads of Dst
// after it.
func (p *StructPlan) Record(r *pipeline.Recorder, b StructBuffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Tuning reports the choices of the sort of the keys with their indices
// (the struct sort's own dispatches, the extraction and the gather, have
// none).
func (p *StructPlan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	return p.keys.Tuning()
}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1: "extract" (the keys and indices), the
// sort's phases (Plan.Phases), then "gather".
func (p *StructPlan) Phases() []string {
	if p == nil {
		return nil
	}
	return append(append([]string{"extract"}, p.keys.Phases()...), "gather")
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries and must be reset (Timer.Reset) earlier in the command buffer.
func (p *StructPlan) RecordTimed(r *pipeline.Recorder, b StructBuffers, t *vk.Timer) {
	switch {
	case t == nil:
		r.Fail(invalid("radix: struct sort: RecordTimed needs a timer"))
	case p == nil:
		r.Fail(invalid("radix: nil StructPlan"))
	case t.Count() < uint32(len(p.Phases())+1):
		r.Fail(invalid("radix: struct sort: RecordTimed needs a timer of %d queries; it has %d", len(p.Phases())+1, t.Count()))
	default:
		p.record(r, b, pipeline.Stamps(r, t))
	}
}

// record checks b and records the sort, calling stamp where RecordTimed
// writes a timestamp (Phases names the intervals between).
func (p *StructPlan) record(r *pipeline.Recorder, b StructBuffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, b) }) {
		return
	}
	stamp()
	if p.n == 0 {
		for range len(p.Phases()) {
			stamp()
		}
		return
	}
	keys := b.Scratch.Sub(0, p.n*uint64(p.elem.Key.Size()))
	idx := b.Scratch.Sub(p.idxOff, 4*p.n)
	count, countOn := b.Src, uint32(0) // an unread stand-in without a count
	if b.Count.Buffer != nil {
		count, countOn = bufcheck.CountWord(p.ctx, b.Count) // any 4-byte aligned word
	}
	push := structPush{N: uint32(p.n), CountOn: countOn}
	p.extract.Dispatch(r, align.CeilDiv(p.n, uint64(p.wg)), push, structKeysBindings{Structs: b.Src, Keys: keys, Indices: idx, GpuCount: count})
	// The sort's own first stamp ends the extraction.
	p.keys.record(r, Buffers{Keys: keys, Values: idx, Scratch: b.Scratch.Sub(p.sortOff, p.keys.ScratchSize()), Count: b.Count}, stamp)
	words := p.n * uint64(p.elem.Size()/4)
	p.gather.Dispatch(r, align.CeilDiv(words, uint64(p.wg)), push, structGatherBindings{Src: b.Src, Dst: b.Dst, Indices: idx, GpuCount: count})
	stamp()
}

func (p *StructPlan) check(r *pipeline.Recorder, b StructBuffers) error {
	if p == nil {
		return invalid("radix: nil StructPlan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("radix: struct sort: the plan was made for another context")
	}
	bytes := p.n * uint64(p.elem.Size())
	if b.Src.Buffer != nil && b.Src.Buffer == b.Dst.Buffer && b.Src.Offset < b.Dst.Offset+bytes && b.Dst.Offset < b.Src.Offset+bytes {
		return invalid("radix: struct sort: the destination overlaps the source: the gather cannot work in place")
	}
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: bytes},
		{Name: "destination", Range: b.Dst, Need: bytes, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.scratch, Write: true}}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("radix: struct sort", p.ctx, list)
}

// Run records the sort on the context's own queue and waits. A zero
// Scratch range is allocated for the call and released after it.
func (p *StructPlan) Run(b StructBuffers) error {
	if p == nil {
		return invalid("radix: nil StructPlan")
	}
	_, err := planrun.Run[struct{}](p.ctx, []planrun.Temp{{Range: &b.Scratch, Size: p.scratch}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, nil)
	return err
}

// SortStructsSlice sorts items on the GPU by their field named field and
// returns them sorted; items is not modified. T's layout gives s.Elem
// (vkcompact.StructOf): leave it zero, or it must describe the same
// field (an unset Key or a zero Stride taken from T); a conflict is
// refused (vk.ErrInvalid, naming both) before any GPU work.
func SortStructsSlice[T any](ctx *vk.Context, items []T, field string, s StructSort) ([]T, error) {
	e, err := structElem[T](field, s.Elem)
	if err != nil {
		return nil, fmt.Errorf("radix: SortStructsSlice: %w", err)
	}
	s.Elem = e
	n := uint64(len(items))
	p, err := NewStructPlan(ctx, n, s)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return []T{}, nil
	}
	src, err := vk.NewBufferOf[T](ctx, len(items), vk.DeviceLocal)
	if err != nil {
		return nil, fmt.Errorf("radix: SortStructsSlice: %w", err)
	}
	defer src.Release()
	if err := vk.Upload(src.All(), items); err != nil {
		return nil, fmt.Errorf("radix: SortStructsSlice: %w", err)
	}
	dst, err := vk.NewBufferOf[T](ctx, len(items), vk.DeviceLocal)
	if err != nil {
		return nil, fmt.Errorf("radix: SortStructsSlice: %w", err)
	}
	defer dst.Release()
	if err := p.Run(StructBuffers{Src: src.All(), Dst: dst.All()}); err != nil {
		return nil, err
	}
	out := make([]T, n)
	if err := vk.Download(dst.All(), out); err != nil {
		return nil, fmt.Errorf("radix: SortStructsSlice: %w", err)
	}
	return out, nil
}

// structElem returns the layout of T's field named field, checking the
// caller's elem against it: a zero elem takes it, any other must fit T
// (gotype.Elem) and name the same field.
func structElem[T any](field string, elem vkcompact.Elem) (vkcompact.Elem, error) {
	e, err := vkcompact.StructOf[T](field)
	if err != nil || elem == (vkcompact.Elem{}) {
		return e, err
	}
	t := reflect.TypeFor[T]()
	given, err := gotype.Elem(t, elem, "StructSort.Elem")
	if err != nil {
		return e, err
	}
	if given != e {
		return e, invalid("StructSort.Elem %v does not match %v's field %s, %v", elem, t, field, e)
	}
	return e, nil
}
