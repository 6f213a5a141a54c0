package vk

import "fmt"

// Recording methods append Vulkan commands to the command buffer. Their
// arguments are checked by the layer above (pipeline/), and Vulkan's vkCmd*
// calls report nothing; only a dispatch can fail (a new descriptor set
// that cannot be allocated, or a command buffer already submitted), and it
// returns the error. After a Submit callback has returned, the other
// methods record nothing.

// errSubmitted refuses recording into a command buffer whose Submit
// callback has returned.
var errSubmitted = invalidf("the command buffer was submitted when its Submit callback returned: record inside the callback")

// bindingArrays are a dispatch's storage-buffer bindings as the C layer
// takes them.
type bindingArrays struct {
	n                        int
	buffers, offsets, ranges [maxBindings]uint64
}

func (a *bindingArrays) set(ranges []Range) {
	a.n = len(ranges)
	for i, r := range ranges {
		a.buffers[i], a.offsets[i], a.ranges[i] = r.Buffer.buf, r.Offset, r.Size
	}
}

// CopyBuffer records vkCmdCopyBuffer from src to dst (src.Size bytes).
func (cb CommandBuffer) CopyBuffer(src, dst Range) {
	if !cb.Recording() {
		return // submitted: see Recording
	}
	dst.Sub(0, src.Size).NoteWritten()
	cb.ctx.fns.copyBuffer(cb.h, src.Buffer.buf, dst.Buffer.buf, src.Offset, dst.Offset, src.Size)
}

// FillBuffer records vkCmdFillBuffer: r (offset and size multiples of 4)
// filled with the 32-bit word v.
func (cb CommandBuffer) FillBuffer(r Range, v uint32) {
	if !cb.Recording() {
		return // submitted: see Recording
	}
	if v == 0 {
		cb.LeaveZero(r)
	} else {
		r.NoteWritten()
	}
	cb.ctx.fns.fillBuffer(cb.h, r.Buffer.buf, r.Offset, r.Size, v)
}

// MemoryBarrier records a global memory barrier.
func (cb CommandBuffer) MemoryBarrier(src, dst PipelineStage, srcAccess, dstAccess Access) {
	if !cb.Recording() {
		return // submitted: see Recording
	}
	cb.ctx.fns.barrier(cb.h, src, dst, srcAccess, dstAccess, 0, 0, nil, nil, nil)
}

// BufferBarrier records one pipeline barrier with a buffer memory barrier
// for each range, all with the same stages and access masks. More than 64
// ranges are split over several barriers.
func (cb CommandBuffer) BufferBarrier(src, dst PipelineStage, srcAccess, dstAccess Access, ranges ...Range) {
	if !cb.Recording() {
		return // submitted: see Recording
	}
	for len(ranges) > 0 {
		n := min(len(ranges), maxBarriers)
		var bufs, offs, sizes [maxBarriers]uint64
		for i, r := range ranges[:n] {
			bufs[i], offs[i], sizes[i] = r.Buffer.buf, r.Offset, r.Size
		}
		cb.ctx.fns.barrier(cb.h, src, dst, 0, 0, srcAccess, dstAccess, bufs[:n], offs[:n], sizes[:n])
		ranges = ranges[n:]
	}
}

// Dispatch records p over x*y*z workgroups, binding i of p being
// bindings[i] and push its push constants: binding the pipeline, its
// buffers (pushed with VK_KHR_push_descriptor, or a cached descriptor set)
// and its push constants, then vkCmdDispatch, all in one call into C.
// len(bindings) must equal p's binding count (at most 32), and push fit
// p's push-constant size. It fails, recording nothing, only where a new
// descriptor set cannot be allocated.
func (cb CommandBuffer) Dispatch(p *ComputePipeline, push []uint32, bindings []Range, x, y, z uint32) error {
	return cb.dispatch(p, push, bindings, x, y, z, Range{})
}

// DispatchIndirect is Dispatch with the workgroup counts read on the GPU
// from the VkDispatchIndirectCommand at args.Offset.
func (cb CommandBuffer) DispatchIndirect(p *ComputePipeline, push []uint32, bindings []Range, args Range) error {
	return cb.dispatch(p, push, bindings, 0, 0, 0, args)
}

func (cb CommandBuffer) dispatch(p *ComputePipeline, push []uint32, bindings []Range, x, y, z uint32, args Range) error {
	if !cb.Recording() {
		return errSubmitted
	}
	var a bindingArrays
	a.set(bindings)
	var set uint64
	c := cb.ctx
	if !c.push && a.n > 0 {
		var err error
		if set, err = c.sets.get(c.fns, p, bindings, &a); err != nil {
			return c.noteResult(fmt.Errorf("descriptor set for %d bindings: %w", a.n, err))
		}
	}
	var indirect uint64
	if args.Buffer != nil {
		indirect = args.Buffer.buf
	}
	c.fns.dispatch(cb.h, p.pipeline, p.layout, set, &a, push, x, y, z, indirect, args.Offset)
	for _, b := range bindings {
		b.NoteWritten() // which bindings the shader writes is not known here
	}
	return nil
}
