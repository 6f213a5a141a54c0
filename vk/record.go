package vk

import "fmt"

// Recording methods append Vulkan commands to the command buffer. Their
// ranges are checked here (a nil or released buffer, a range past its
// buffer, a buffer of another context): a bad one is refused, recording
// nothing, and the command buffer keeps the first refusal (Err), after
// which it records nothing more. Vulkan's vkCmd* calls report nothing; a
// dispatch can also fail to get a new descriptor set, and returns that
// error. After a Submit callback has returned, nothing is recorded.

// errSubmitted refuses recording into a command buffer whose Submit
// callback has returned.
var errSubmitted = invalidf("the command buffer was submitted when its Submit callback returned: record inside the callback")

// checkRange refuses r unless it is a live range of cb's context; what
// names the argument.
func (cb CommandBuffer) checkRange(what string, r Range) bool {
	err := r.Check()
	if err == nil && r.Buffer.ctx != cb.ctx {
		err = invalidf("a buffer of another context")
	}
	if err != nil {
		cb.fail(fmt.Errorf("%s: %w", what, err))
		return false
	}
	return true
}

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
	if !cb.usable() || !cb.checkRange("CopyBuffer: source", src) || !cb.checkRange("CopyBuffer: destination", dst.Sub(0, src.Size)) {
		return
	}
	if src.Size == 0 {
		return
	}
	dst.Sub(0, src.Size).NoteWritten()
	cb.ctx.fns.copyBuffer(cb.h, src.Buffer.buf, dst.Buffer.buf, src.Offset, dst.Offset, src.Size)
}

// FillBuffer records vkCmdFillBuffer: r (offset and size multiples of 4)
// filled with the 32-bit word v.
func (cb CommandBuffer) FillBuffer(r Range, v uint32) {
	if !cb.usable() || !cb.checkRange("FillBuffer", r) {
		return
	}
	if r.Offset%4 != 0 || r.Size%4 != 0 {
		cb.fail(invalidf("FillBuffer: range [%d, %d+%d): offset and size must be multiples of 4", r.Offset, r.Offset, r.Size))
		return
	}
	if r.Size == 0 {
		return
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
	if !cb.usable() {
		return
	}
	cb.ctx.fns.barrier(cb.h, src, dst, srcAccess, dstAccess, 0, 0, nil, nil, nil)
}

// BufferBarrier records one pipeline barrier with a buffer memory barrier
// for each range, all with the same stages and access masks. More than 64
// ranges are split over several barriers. A range whose buffer is nil or
// of another context, or that exceeds its buffer, is refused (the
// dispatches that wrote the ranges have checked that they are live).
func (cb CommandBuffer) BufferBarrier(src, dst PipelineStage, srcAccess, dstAccess Access, ranges ...Range) {
	if !cb.usable() {
		return
	}
	for i, r := range ranges {
		if b := r.Buffer; b == nil || b.ctx != cb.ctx || r.Offset > b.size || r.Size > b.size-r.Offset {
			cb.fail(invalidf("BufferBarrier: range %d (%+v): a nil buffer, one of another context, or past its buffer", i, r))
			return
		}
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
	if args.Buffer == nil && cb.usable() {
		err := invalidf("DispatchIndirect: indirect arguments in a nil buffer")
		cb.fail(err)
		return err
	}
	return cb.dispatch(p, push, bindings, 0, 0, 0, args)
}

func (cb CommandBuffer) dispatch(p *ComputePipeline, push []uint32, bindings []Range, x, y, z uint32, args Range) error {
	if !cb.usable() {
		return cb.Err()
	}
	if err := cb.checkDispatch(p, push, bindings, args); err != nil {
		cb.fail(err)
		return err
	}
	var a bindingArrays
	a.set(bindings)
	var set uint64
	c := cb.ctx
	if !c.push && a.n > 0 {
		var err error
		if set, err = c.sets.get(c.fns, p.setSpec, bindings, &a, cb.sets); err != nil {
			err = c.noteResult(fmt.Errorf("descriptor set for %d bindings: %w", a.n, err))
			cb.fail(err)
			return err
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

// checkDispatch refuses what would crash the C layer or the driver: a
// nil pipeline or one of another context, binding and push-constant
// counts that differ from the pipeline's, bindings whose buffers are nil
// or of another context or that exceed their buffer. (The layer above,
// pipeline/, checks the rest: liveness, alignment, limits.)
func (cb CommandBuffer) checkDispatch(p *ComputePipeline, push []uint32, bindings []Range, args Range) error {
	switch {
	case p == nil || p.ctx != cb.ctx:
		return invalidf("Dispatch: a nil pipeline, or one of another context")
	case len(bindings) != p.Bindings:
		return invalidf("Dispatch: %d bindings given, the pipeline has %d", len(bindings), p.Bindings)
	case uint32(4*len(push)) > p.PushSize:
		return invalidf("Dispatch: %d push-constant words, the pipeline takes %d bytes", len(push), p.PushSize)
	}
	for i, r := range bindings {
		if b := r.Buffer; b == nil || b.ctx != cb.ctx || r.Offset > b.size || r.Size > b.size-r.Offset {
			return invalidf("Dispatch: binding %d (%+v): a nil buffer, one of another context, or past its buffer", i, r)
		}
	}
	if b := args.Buffer; b != nil && (b.ctx != cb.ctx || args.Offset > b.size || 12 > b.size-args.Offset) {
		return invalidf("Dispatch: indirect arguments at %d: one of another context, or past the buffer", args.Offset)
	}
	return nil
}
