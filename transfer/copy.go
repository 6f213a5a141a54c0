package transfer

import (
	"fmt"

	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// copyPush is the copy's push constants.
type copyPush struct {
	N uint32 `glsl:"n"` // words to copy
}

// copyShiftedPush is the shifted copy's push constants.
type copyShiftedPush struct {
	N        uint32 `glsl:"n"`        // words to copy
	SrcShift uint32 `glsl:"srcShift"` // the source's first word in its binding
	DstShift uint32 `glsl:"dstShift"` // the destination's first word in its binding
}

// copyCountPush is the counted copy's push constants.
type copyCountPush struct {
	N            uint32 `glsl:"n"`            // words in the range
	FirstElem    uint32 `glsl:"firstElem"`    // the range's first element
	WordsPerElem uint32 `glsl:"wordsPerElem"` // words per element, for the count
	CountOn      uint32 `glsl:"countOn"`      // 1 + the count's word in its binding (common.glsl: countWord)
	SrcShift     uint32 `glsl:"srcShift"`
	DstShift     uint32 `glsl:"dstShift"`
}

// copySpec is the specialization constants of the copy and the shifted
// copy.
type copySpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	VecsPerThread uint32 `glsl:"VECS_PER_THREAD"` // CopyOptions.LoadsPerLane
}

// copyCountSpec is the counted copy's: Shifted binds ranges whose offsets
// are not multiples of minStorageBufferOffsetAlignment from their offsets
// rounded down, and copies word by word (copy_shifted.glsl).
type copyCountSpec struct {
	copySpec
	Shifted bool `glsl:"SHIFTED"`
}

// fillPush is the fill's push constants.
type fillPush struct {
	N     uint32 `glsl:"n"` // words to fill
	Value uint32 `glsl:"value"`
}

// fillSpec is the fill's specialization constants.
type fillSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
}

// The kernels' storage-buffer bindings: field i is binding i (see
// pipeline.TypedKernel).
type (
	copyBindings struct {
		SrcVec  vk.Range `use:"read"`
		DstVec  vk.Range `use:"write"`
		SrcWord vk.Range `use:"read"`
		DstWord vk.Range `use:"write"`
	}
	copyShiftedBindings struct {
		SrcWord vk.Range `use:"read"`
		DstWord vk.Range `use:"write"`
	}
	copyCountBindings struct {
		SrcVec   vk.Range `use:"read"`
		DstVec   vk.Range `use:"write"`
		SrcWord  vk.Range `use:"read"`
		DstWord  vk.Range `use:"write"`
		GpuCount vk.Range `use:"read"`
	}
	fillBindings struct {
		Words vk.Range `use:"write"`
	}
)

// The copy, the copy cut to a GPU-side element count, and the fill; none
// uses subgroup operations, so any workgroup size works.
var (
	copyKernel        = pipeline.NewTypedKernel[copyPush, copySpec, copyBindings]("copy", shaders.MustSPIRV("copy"), false)
	copyShiftedKernel = pipeline.NewTypedKernel[copyShiftedPush, copySpec, copyShiftedBindings]("copy_shifted", shaders.MustSPIRV("copy_shifted"), false)
	copyCountKernel   = pipeline.NewTypedKernel[copyCountPush, copyCountSpec, copyCountBindings]("copy_count", shaders.MustSPIRV("copy_count"), false)
	fillKernel        = pipeline.NewTypedKernel[fillPush, fillSpec, fillBindings]("fill", shaders.MustSPIRV("fill"), false)
)

// fillGroup is the fill kernel's workgroup size.
const fillGroup = 256

// MaxCopyLoadsPerLane bounds CopyOptions.LoadsPerLane: more only adds
// registers (the H100 sweep in BENCHMARKS-history.md found 1 fastest).
const MaxCopyLoadsPerLane = 16

// CopyOptions tunes the copy kernel. Zero values take the defaults, chosen
// by measurement on an NVIDIA H200 (BENCHMARKS-history.md): at 2^28 words, one
// uvec4 per invocation in workgroups of 128 or 256 ran fastest (0.501 ms),
// two to eight per invocation 1-6% slower.
type CopyOptions struct {
	WorkgroupSize uint32 // invocations per workgroup; default 256 (at least the largest subgroup)
	LoadsPerLane  uint32 // uvec4 per invocation; default 1
}

// copyOptions resolves opts for ctx and checks them.
func copyOptions(ctx *vk.Context, opts CopyOptions) (CopyOptions, error) {
	if ctx == nil {
		return opts, errs.Invalidf("vkcompact: nil context")
	}
	o := opts.withDefaults(ctx.Info())
	if o.LoadsPerLane > MaxCopyLoadsPerLane {
		return o, errs.Invalidf("vkcompact: copy with %d uvec4 per invocation (at most %d)", o.LoadsPerLane, MaxCopyLoadsPerLane)
	}
	return o, nil
}

// CheckCopyOptions reports options the device cannot run (a workgroup size
// beyond its limits, too many vectors per invocation), creating the
// pipeline they need.
func CheckCopyOptions(ctx *vk.Context, opts CopyOptions) error {
	o, err := copyOptions(ctx, opts)
	if err != nil {
		return err
	}
	_, err = copyKernel.Get(pipeline.For(ctx), copySpec{WorkgroupSize: o.WorkgroupSize, VecsPerThread: o.LoadsPerLane})
	return err
}

func (o CopyOptions) withDefaults(info vk.DeviceInfo) CopyOptions {
	if o.WorkgroupSize == 0 {
		o.WorkgroupSize = max(256, info.MaxSubgroupSize)
	}
	if o.LoadsPerLane == 0 {
		o.LoadsPerLane = 1
	}
	return o
}

// chunkBytes is the largest piece of a copy bound at once: the device's
// maxStorageBufferRange rounded down to 4 KiB, so that each piece's
// descriptor offset stays aligned (minStorageBufferOffsetAlignment is at
// most 256) and 16-byte vectors stay whole; a shifted copy's pieces leave
// room for the shift (less than 256 bytes) in the binding.
func chunkBytes(info vk.DeviceInfo, shifted bool) uint64 {
	if shifted {
		return (uint64(info.MaxStorageBufferRange) - 256) &^ 4095
	}
	return uint64(info.MaxStorageBufferRange) &^ 4095
}

// RecordCopy records a copy of src into dst: src.Size bytes, a multiple of
// 4, with dst.Size equal to it, both offsets multiples of 4; the ranges
// must not overlap. Where an offset is not a multiple of the device's
// minStorageBufferOffsetAlignment (a count word at byte 4 of a result
// block, say), the range is bound from its offset rounded down and the
// copy moves single words, not vectors. Copies larger than
// maxStorageBufferRange are split into several dispatches over
// sub-ranges. Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation (src an input, dst
// an output).
func RecordCopy(r *pipeline.Recorder, dst, src vk.Range, opts CopyOptions) {
	recordCopy(r, dst, src, vk.Range{}, 0, opts)
}

// RecordCopyCount is RecordCopy of the first min(count, src.Size/elemBytes)
// elements of elemBytes bytes (a multiple of 4), count being the uint32
// at the 4-byte range count (at any offset that is a multiple of 4),
// written on the GPU (compact.Buffers.Count explains): the rest of dst is
// not written. count is read in the compute-shader stage.
func RecordCopyCount(r *pipeline.Recorder, dst, src, count vk.Range, elemBytes uint32, opts CopyOptions) {
	if elemBytes == 0 || elemBytes%4 != 0 {
		r.Fail(errs.Invalidf("vkcompact: counted copy of %d-byte elements: the size must be a positive multiple of 4", elemBytes))
		return
	}
	if err := count.Check(); err != nil {
		r.Fail(fmt.Errorf("vkcompact: counted copy: count: %w", err))
		return
	}
	if count.Size < 4 {
		r.Fail(errs.Invalidf("vkcompact: counted copy: the count range has %d bytes: it must be a 4-byte range", count.Size))
		return
	}
	if count.Offset%4 != 0 {
		r.Fail(errs.Invalidf("vkcompact: counted copy: the count's offset %d is not a multiple of 4", count.Offset))
		return
	}
	if src.Size%uint64(elemBytes) != 0 {
		r.Fail(errs.Invalidf("vkcompact: counted copy of %d bytes: not a whole number of %d-byte elements", src.Size, elemBytes))
		return
	}
	recordCopy(r, dst, src, count.Sub(0, 4), elemBytes, opts)
}

// recordCopy records a copy, counted when elemBytes is not 0.
func recordCopy(r *pipeline.Recorder, dst, src, count vk.Range, elemBytes uint32, opts CopyOptions) {
	if r.Err() != nil {
		return
	}
	if err := checkCopy(dst, src); err != nil {
		r.Fail(err)
		return
	}
	if src.Size == 0 {
		return
	}
	ctx := r.CommandBuffer().Context()
	o, err := copyOptions(ctx, opts)
	if err != nil {
		r.Fail(err)
		return
	}
	align := max(ctx.Info().MinStorageBufferOffsetAlignment, 4)
	shifted := src.Offset%align != 0 || dst.Offset%align != 0
	spec := copySpec{WorkgroupSize: o.WorkgroupSize, VecsPerThread: o.LoadsPerLane}
	var plain pipeline.TypedPipeline[copyPush, copyBindings]
	var wordwise pipeline.TypedPipeline[copyShiftedPush, copyShiftedBindings]
	var counted pipeline.TypedPipeline[copyCountPush, copyCountBindings]
	switch {
	case elemBytes != 0:
		counted, err = copyCountKernel.Get(pipeline.For(ctx), copyCountSpec{copySpec: spec, Shifted: shifted})
	case shifted:
		wordwise, err = copyShiftedKernel.Get(pipeline.For(ctx), spec)
	default:
		plain, err = copyKernel.Get(pipeline.For(ctx), spec)
	}
	if err != nil {
		r.Fail(err)
		return
	}
	chunk := chunkBytes(ctx.Info(), shifted)
	var countBind vk.Range
	var countOn uint32
	if elemBytes != 0 {
		var word uint32
		countBind, word = pipeline.Unaligned(ctx, count)
		countOn = word + 1                                                      // common.glsl: countWord
		chunk = chunk / (uint64(elemBytes) * 1024) * (uint64(elemBytes) * 1024) // whole elements, 4 KiB aligned
	}
	for off := uint64(0); off < src.Size; off += chunk {
		n := min(chunk, src.Size-off)
		words := n / 4
		tile := uint64(o.WorkgroupSize) * uint64(o.LoadsPerLane) * 4
		groups := max((words+tile-1)/tile, 1) // the tail alone needs workgroup 0
		s, srcShift := pipeline.Unaligned(ctx, src.Sub(off, n))
		d, dstShift := pipeline.Unaligned(ctx, dst.Sub(off, n))
		switch {
		case elemBytes == 0 && shifted:
			wordwise.Dispatch(r, groups, copyShiftedPush{N: uint32(words), SrcShift: srcShift, DstShift: dstShift}, copyShiftedBindings{SrcWord: s, DstWord: d})
		case elemBytes == 0:
			plain.Dispatch(r, groups, copyPush{N: uint32(words)}, copyBindings{SrcVec: s, DstVec: d, SrcWord: s, DstWord: d})
		default:
			counted.Dispatch(r, groups, copyCountPush{N: uint32(words), FirstElem: uint32(off / uint64(elemBytes)), WordsPerElem: elemBytes / 4,
				CountOn: countOn, SrcShift: srcShift, DstShift: dstShift},
				copyCountBindings{SrcVec: s, DstVec: d, SrcWord: s, DstWord: d, GpuCount: countBind})
		}
	}
}

// Copy copies src into dst on ctx's queue and waits. See RecordCopy.
func Copy(ctx *vk.Context, dst, src vk.Range, opts CopyOptions) error {
	return pipeline.Run(ctx, func(r *pipeline.Recorder) { RecordCopy(r, dst, src, opts) })
}

func checkCopy(dst, src vk.Range) error {
	if err := src.Check(); err != nil {
		return fmt.Errorf("vkcompact: copy source: %w", err)
	}
	if err := dst.Check(); err != nil {
		return fmt.Errorf("vkcompact: copy destination: %w", err)
	}
	if src.Size%4 != 0 {
		return errs.Invalidf("vkcompact: copy of %d bytes: not a whole number of 32-bit words", src.Size)
	}
	if src.Offset%4 != 0 || dst.Offset%4 != 0 {
		return errs.Invalidf("vkcompact: copy from offset %d to offset %d: both must be multiples of 4", src.Offset, dst.Offset)
	}
	if dst.Size != src.Size {
		return errs.Invalidf("vkcompact: copy of %d bytes into a %d-byte destination", src.Size, dst.Size)
	}
	if src.Buffer == dst.Buffer && src.Offset < dst.Offset+dst.Size && dst.Offset < src.Offset+src.Size {
		return errs.Invalidf("vkcompact: copy source [%d, %d) and destination [%d, %d) overlap",
			src.Offset, src.Offset+src.Size, dst.Offset, dst.Offset+dst.Size)
	}
	return nil
}

// RecordFill records every 32-bit word of dst set to value: dst.Size a
// multiple of 4, its offset a multiple of the device's
// minStorageBufferOffsetAlignment. Fills larger than
// maxStorageBufferRange are split as copies are. The single passes zero their
// tile status with it. Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation (dst an output).
func RecordFill(r *pipeline.Recorder, dst vk.Range, value uint32) {
	if r.Err() != nil {
		return
	}
	if err := dst.Check(); err != nil {
		r.Fail(fmt.Errorf("vkcompact: fill: %w", err))
		return
	}
	if dst.Size%4 != 0 {
		r.Fail(errs.Invalidf("vkcompact: fill of %d bytes: not a whole number of 32-bit words", dst.Size))
		return
	}
	ctx := r.CommandBuffer().Context()
	p, err := fillKernel.Get(pipeline.For(ctx), fillSpec{WorkgroupSize: fillGroup})
	if err != nil {
		r.Fail(err)
		return
	}
	chunk := chunkBytes(ctx.Info(), false)
	for off := uint64(0); off < dst.Size; off += chunk {
		size := min(chunk, dst.Size-off)
		words := size / 4
		p.Dispatch(r, align.CeilDiv(words, fillGroup), fillPush{N: uint32(words), Value: value}, fillBindings{Words: dst.Sub(off, size)})
	}
}
