package pipeline

import (
	"github.com/vkcompact/vkcompact/internal/glslblock"
	"github.com/vkcompact/vkcompact/vk"
)

// TypedKernel is a Kernel whose push constants are the Go struct P and
// whose specialization constants are the Go struct S: P's fields follow
// the GLSL Push block's members in order, and S's field i is constant_id
// i (field 0 the workgroup size, local_size_x_id = 0); an embedded
// struct's fields stand in its place, and a `glsl` tag names the GLSL
// member. Its pipelines take only an S and dispatch only a P, so a Go
// caller cannot pass the words in the wrong order; each operation's tests
// hold its structs to the GLSL (glslblock.CheckKernel).
type TypedKernel[P, S any] struct{ *Kernel }

// NewTypedKernel describes the kernel name of SPIR-V spirv, its bindings
// used as bindings, needing full subgroups where fullSubgroups is set; its
// PushWords are counted from P.
func NewTypedKernel[P, S any](name string, spirv []uint32, fullSubgroups bool, bindings ...Use) TypedKernel[P, S] {
	var push P
	return TypedKernel[P, S]{&Kernel{Name: name, SPIRV: spirv, Bindings: bindings,
		PushWords: len(glslblock.Words(push)), FullSubgroups: fullSubgroups}}
}

// Get returns the kernel's pipeline for the specialization constants
// spec from c (Cache.Get).
func (k TypedKernel[P, S]) Get(c *Cache, spec S) (TypedPipeline[P], error) {
	p, err := c.Get(k.Kernel, glslblock.Words(spec)...)
	return TypedPipeline[P]{p}, err
}

// Interface returns the kernel's name, push words and zero values of its
// push and specialization constants, for the tests that hold them to the
// GLSL (spvtest.CheckKernels).
func (k TypedKernel[P, S]) Interface() glslblock.Interface {
	var p P
	var s S
	return glslblock.Interface{Name: k.Name, PushWords: k.PushWords, Push: p, Spec: s}
}

// TypedPipeline is a pipeline whose push constants are P.
type TypedPipeline[P any] struct{ *Pipeline }

// Dispatch records the pipeline over groups workgroups with push
// constants push (Recorder.Dispatch).
func (p TypedPipeline[P]) Dispatch(r *Recorder, groups uint64, push P, bindings ...vk.Range) {
	r.Dispatch(p.Pipeline, groups, glslblock.Words(push), bindings...)
}

// DispatchIndirect records the pipeline with its workgroup counts read on
// the GPU from args (Recorder.DispatchIndirect).
func (p TypedPipeline[P]) DispatchIndirect(r *Recorder, args vk.Range, push P, bindings ...vk.Range) {
	r.DispatchIndirect(p.Pipeline, args, glslblock.Words(push), bindings...)
}
