package vk

import (
	"unsafe"

	vkb "github.com/goki/vulkan"
)

// Recording methods append one Vulkan command each. They do not return
// errors: their arguments are checked by the layer above (pipeline/), and
// Vulkan's vkCmd* calls report nothing.

// CopyBuffer records vkCmdCopyBuffer from src to dst (src.Size bytes).
func (cb CommandBuffer) CopyBuffer(src, dst Range) {
	cmdCopyBuffer(&cb.ctx.fns, cb.h, src.Buffer.buf, dst.Buffer.buf, src.Offset, dst.Offset, src.Size)
}

// FillBuffer records vkCmdFillBuffer: r (offset and size multiples of 4)
// filled with the 32-bit word v.
func (cb CommandBuffer) FillBuffer(r Range, v uint32) {
	vkb.CmdFillBuffer(cb.h, r.Buffer.buf, vkb.DeviceSize(r.Offset), vkb.DeviceSize(r.Size), v)
}

// MemoryBarrier records a global memory barrier.
func (cb CommandBuffer) MemoryBarrier(src, dst PipelineStage, srcAccess, dstAccess Access) {
	pipelineBarrier(&cb.ctx.fns, cb.h, src, dst, srcAccess, dstAccess, 0, 0, nil, nil, nil)
}

// BufferBarrier records one pipeline barrier with a buffer memory barrier
// for each range, all with the same stages and access masks. More than 64
// ranges are split over several barriers.
func (cb CommandBuffer) BufferBarrier(src, dst PipelineStage, srcAccess, dstAccess Access, ranges ...Range) {
	for len(ranges) > 0 {
		n := min(len(ranges), maxBarriers)
		var bufs, offs, sizes [maxBarriers]uint64
		for i, r := range ranges[:n] {
			bufs[i], offs[i], sizes[i] = handle(unsafe.Pointer(r.Buffer.buf)), r.Offset, r.Size
		}
		pipelineBarrier(&cb.ctx.fns, cb.h, src, dst, 0, 0, srcAccess, dstAccess, bufs[:n], offs[:n], sizes[:n])
		ranges = ranges[n:]
	}
}

// Bind binds p to the compute bind point.
func (cb CommandBuffer) Bind(p *ComputePipeline) {
	vkb.CmdBindPipeline(cb.h, vkb.PipelineBindPointCompute, p.pipeline)
}

// PushStorageBuffers pushes p's descriptor set: binding i is ranges[i].
// len(ranges) must equal p's binding count (at most 32).
func (cb CommandBuffer) PushStorageBuffers(p *ComputePipeline, ranges ...Range) {
	var bufs, offs, sizes [maxBindings]uint64
	for i, r := range ranges {
		bufs[i], offs[i], sizes[i] = handle(unsafe.Pointer(r.Buffer.buf)), r.Offset, r.Size
	}
	n := len(ranges)
	pushStorageBuffers(&cb.ctx.fns, cb.h, p.layout, bufs[:n], offs[:n], sizes[:n])
}

// PushConstants records p's push constants (len(data) bytes, a multiple of
// 4, at most p's push-constant size).
func (cb CommandBuffer) PushConstants(p *ComputePipeline, data []uint32) {
	if len(data) == 0 {
		return
	}
	vkb.CmdPushConstants(cb.h, p.layout, vkb.ShaderStageFlags(vkb.ShaderStageComputeBit), 0, uint32(4*len(data)), unsafe.Pointer(&data[0]))
}

// Dispatch records vkCmdDispatch.
func (cb CommandBuffer) Dispatch(x, y, z uint32) { vkb.CmdDispatch(cb.h, x, y, z) }

// DispatchIndirect records vkCmdDispatchIndirect reading a
// VkDispatchIndirectCommand at r.Offset.
func (cb CommandBuffer) DispatchIndirect(r Range) {
	vkb.CmdDispatchIndirect(cb.h, r.Buffer.buf, vkb.DeviceSize(r.Offset))
}
