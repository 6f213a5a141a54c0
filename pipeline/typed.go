package pipeline

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/glslblock"
	"github.com/vkcompact/vkcompact/vk"
)

// TypedKernel is a Kernel whose push constants are the Go struct P, whose
// specialization constants are the Go struct S and whose storage-buffer
// bindings are the Go struct B:
//   - P's fields follow the GLSL Push block's members in order;
//   - S's field i is constant_id i (field 0 the workgroup size,
//     local_size_x_id = 0);
//   - B's field i is binding i, a vk.Range, named as the GLSL buffer block
//     (or by a `glsl` tag) and tagged with its use: `use:"read"` for a
//     readonly block, `use:"write"` for a writeonly one, `use:"readwrite"`
//     for one with neither qualifier.
//
// An embedded struct's fields stand in its place in P and S, and a `glsl`
// tag names the GLSL member. Its pipelines take only an S and dispatch
// only a P and a B, so a Go caller cannot pass the words or the ranges in
// the wrong order; each operation's tests hold the three structs to the
// GLSL (spvtest.CheckKernels).
type TypedKernel[P, S, B any] struct{ *Kernel }

// NewTypedKernel describes the kernel name of SPIR-V spirv, needing full
// subgroups where fullSubgroups is set; its PushWords are counted from P
// and its Bindings read from B's use tags. It panics if B is not a struct
// of vk.Range fields with use tags (a programming error: kernels are
// package variables, so no program with one starts).
func NewTypedKernel[P, S, B any](name string, spirv []uint32, fullSubgroups bool) TypedKernel[P, S, B] {
	var push P
	return TypedKernel[P, S, B]{&Kernel{Name: name, SPIRV: spirv, Bindings: Uses[B](),
		PushWords: len(glslblock.Words(push)), FullSubgroups: fullSubgroups}}
}

// rangeType is the type of every field of a bindings struct.
var rangeType = reflect.TypeFor[vk.Range]()

// Uses returns the uses of the bindings struct B's fields, binding by
// binding (see TypedKernel). It panics where B is not such a struct.
func Uses[B any]() []Use {
	var zero B
	fields, err := glslblock.BindingFields(zero)
	if err != nil {
		panic("pipeline: " + err.Error())
	}
	t := reflect.TypeFor[B]()
	uses := make([]Use, len(fields))
	for i, f := range fields {
		if t.Field(i).Type != rangeType {
			panic(fmt.Sprintf("pipeline: bindings %v: field %s is %v, not vk.Range", t, t.Field(i).Name, t.Field(i).Type))
		}
		switch {
		case f.ReadOnly:
			uses[i] = Read
		case f.WriteOnly:
			uses[i] = Write
		default:
			uses[i] = ReadWrite
		}
	}
	return uses
}

// bindingsChecked caches, by bindings type, that Uses accepted it.
var bindingsChecked sync.Map // reflect.Type -> struct{}

// ranges views b, a struct of vk.Range fields only, as the slice of its
// ranges in field order. It checks B (Uses) once per type, so that a
// TypedPipeline made by hand with any other struct panics rather than
// reading its fields as ranges.
func ranges[B any](b *B) []vk.Range {
	if t := reflect.TypeFor[B](); !isChecked(t) {
		Uses[B]()
		bindingsChecked.Store(t, struct{}{})
	}
	n := unsafe.Sizeof(*b) / unsafe.Sizeof(vk.Range{})
	return unsafe.Slice((*vk.Range)(unsafe.Pointer(b)), n)
}

func isChecked(t reflect.Type) bool {
	_, ok := bindingsChecked.Load(t)
	return ok
}

// Get returns the kernel's pipeline for the specialization constants
// spec from c (Cache.Get).
func (k TypedKernel[P, S, B]) Get(c *Cache, spec S) (TypedPipeline[P, B], error) {
	p, err := c.Get(k.Kernel, glslblock.Words(spec)...)
	return TypedPipeline[P, B]{p}, err
}

// Interface returns the kernel's name, push words and zero values of its
// push constants, specialization constants and bindings, for the tests
// that hold them to the GLSL (spvtest.CheckKernels).
func (k TypedKernel[P, S, B]) Interface() glslblock.Interface {
	var p P
	var s S
	var b B
	return glslblock.Interface{Name: k.Name, PushWords: k.PushWords, Push: p, Spec: s, Bindings: b}
}

// TypedPipeline is a pipeline whose push constants are P and whose
// bindings are B.
type TypedPipeline[P, B any] struct{ *Pipeline }

// Dispatch records the pipeline over groups workgroups with push
// constants push and the ranges of bindings (Recorder.Dispatch).
func (p TypedPipeline[P, B]) Dispatch(r *Recorder, groups uint64, push P, bindings B) {
	r.Dispatch(p.Pipeline, groups, glslblock.Words(push), ranges(&bindings)...)
}

// DispatchIndirect records the pipeline with its workgroup counts read on
// the GPU from args (Recorder.DispatchIndirect).
func (p TypedPipeline[P, B]) DispatchIndirect(r *Recorder, args vk.Range, push P, bindings B) {
	r.DispatchIndirect(p.Pipeline, args, glslblock.Words(push), ranges(&bindings)...)
}
