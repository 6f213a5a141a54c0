package vk

// The device-level half of the Go wrappers over vkc.h (see cvk.go). Each
// cgo file is a C translation unit of its own, with its own copy of vkc.h's
// static state: the loader handle and vkGetInstanceProcAddr are set and
// used in cvk.go's alone; the calls here go through the tables.

/*
#include "vkc.h"
*/
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/faults"
)

// ---- Device calls.

// deviceFuncs is the device-level function table of one VkDevice, in C
// memory. owner is the context, for the test seam (internal/faults): a
// hook set for it is asked before each Vulkan call here that returns a
// VkResult, and a nonzero answer is returned in the call's place. live
// counts the objects of each kind created (or allocated) here and not yet
// destroyed (or freed), at the calls themselves (Context.Objects).
type deviceFuncs struct {
	t     *C.vkc_device
	owner any
	live  [objKinds]atomic.Int64
}

// loadDeviceFuncs loads the table of device; push and statistics load the
// optional functions, which must then be there.
func loadDeviceFuncs(inst instanceFuncs, device unsafe.Pointer, push, statistics bool) (*deviceFuncs, error) {
	t := (*C.vkc_device)(C.calloc(1, C.sizeof_vkc_device))
	if t == nil {
		return nil, newError("calloc", resultOutOfHostMemory)
	}
	if missing := C.vkc_load_device(t, inst.t, device, cbool(push), cbool(statistics)); missing != nil {
		C.free(unsafe.Pointer(t))
		name := C.GoString(missing)
		if name == "vkCmdPushDescriptorSetKHR" {
			return nil, errorf(ErrUnsupported, "vk: vkGetDeviceProcAddr gave no %s: enable the %s device extension, or leave Handles.PushDescriptor false", name, extPushDescriptor)
		}
		return nil, fmt.Errorf("vk: vkGetDeviceProcAddr gave no %s", name)
	}
	return &deviceFuncs{t: t}, nil
}

func (d *deviceFuncs) free() { C.free(unsafe.Pointer(d.t)) }

func (d *deviceFuncs) device() unsafe.Pointer { return d.t.device }

// injected returns the fault to report instead of calling, or 0.
func (d *deviceFuncs) injected(call string) int32 { return faults.Result(d.owner, call) }

func (d *deviceFuncs) destroyDevice() { C.vkc_destroy_device(d.t) }
func (d *deviceFuncs) queue(family uint32) unsafe.Pointer {
	return C.vkc_get_queue(d.t, C.uint32_t(family))
}

func (d *deviceFuncs) waitIdle() int32 {
	if r := d.injected("vkDeviceWaitIdle"); r != 0 {
		return r
	}
	return int32(C.vkc_device_wait_idle(d.t))
}

// objectKind is a kind of non-dispatchable object the library destroys.
type objectKind int

const (
	objBuffer objectKind = iota
	objMemory
	objCommandPool
	objFence
	objShaderModule
	objSetLayout
	objPipelineLayout
	objPipeline
	objQueryPool
	objDescriptorPool
	objPipelineCache
	objCommandBuffer // freed with freeCommandBuffer, not destroy
	objDescriptorSet // freed with freeSet, or with its pool (setsGone)
	objKinds
)

// created counts an object of kind k when r reports success, and returns r.
func (d *deviceFuncs) created(k objectKind, r C.int32_t) int32 {
	if r == 0 {
		d.live[k].Add(1)
	}
	return int32(r)
}

// destroy destroys (or frees) h, an object of kind k up to
// objPipelineCache; 0 is ignored.
func (d *deviceFuncs) destroy(k objectKind, h uint64) {
	if h == 0 {
		return
	}
	fns := [...]unsafe.Pointer{d.t.destroyBuffer, d.t.freeMemory, d.t.destroyCommandPool, d.t.destroyFence, d.t.destroyShaderModule, d.t.destroySetLayout, d.t.destroyPipelineLayout, d.t.destroyPipeline, d.t.destroyQueryPool, d.t.destroyDescriptorPool, d.t.destroyPipelineCache}
	C.vkc_destroy(d.t, fns[k], C.uint64_t(h))
	d.live[k].Add(-1)
}

func (d *deviceFuncs) createBuffer(size uint64, usage uint32) (uint64, int32) {
	if r := d.injected("vkCreateBuffer"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_buffer(d.t, C.uint64_t(size), C.uint32_t(usage), &h)
	return uint64(h), d.created(objBuffer, r)
}

// memoryRequirements of a buffer: size, alignment, allowed type bits.
func (d *deviceFuncs) memoryRequirements(buffer uint64) (size uint64, typeBits uint32) {
	var req C.vkc_memory_requirements
	C.vkc_buffer_requirements(d.t, C.uint64_t(buffer), &req)
	return uint64(req.size), uint32(req.memoryTypeBits)
}

func (d *deviceFuncs) allocateMemory(size uint64, typeIndex uint32, buffer uint64) (uint64, int32) {
	if r := d.injected("vkAllocateMemory"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_allocate_memory(d.t, C.uint64_t(size), C.uint32_t(typeIndex), C.uint64_t(buffer), &h)
	return uint64(h), d.created(objMemory, r)
}

func (d *deviceFuncs) bindBufferMemory(buffer, memory uint64) int32 {
	if r := d.injected("vkBindBufferMemory"); r != 0 {
		return r
	}
	return int32(C.vkc_bind_buffer_memory(d.t, C.uint64_t(buffer), C.uint64_t(memory)))
}

func (d *deviceFuncs) mapMemory(memory uint64) (unsafe.Pointer, int32) {
	if r := d.injected("vkMapMemory"); r != 0 {
		return nil, r
	}
	var p unsafe.Pointer
	r := C.vkc_map_memory(d.t, C.uint64_t(memory), &p)
	return p, int32(r)
}

// wholeMemoryRange flushes (flush true) or invalidates all of memory.
func (d *deviceFuncs) wholeMemoryRange(memory uint64, flush bool) int32 {
	call := "vkInvalidateMappedMemoryRanges"
	if flush {
		call = "vkFlushMappedMemoryRanges"
	}
	if r := d.injected(call); r != 0 {
		return r
	}
	return int32(C.vkc_whole_memory_range(d.t, C.uint64_t(memory), cbool(flush)))
}

func (d *deviceFuncs) createCommandPool(family uint32) (uint64, int32) {
	if r := d.injected("vkCreateCommandPool"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_command_pool(d.t, C.uint32_t(family), &h)
	return uint64(h), d.created(objCommandPool, r)
}

// allocateCommandBuffer allocates a primary command buffer from pool.
func (d *deviceFuncs) allocateCommandBuffer(pool uint64) (unsafe.Pointer, int32) {
	if r := d.injected("vkAllocateCommandBuffers"); r != 0 {
		return nil, r
	}
	var cmd unsafe.Pointer
	r := C.vkc_allocate_command_buffer(d.t, C.uint64_t(pool), &cmd)
	return cmd, d.created(objCommandBuffer, r)
}

// freeCommandBuffer frees cmd, allocated from pool; nil is ignored.
func (d *deviceFuncs) freeCommandBuffer(pool uint64, cmd unsafe.Pointer) {
	if cmd == nil {
		return
	}
	C.vkc_free_command_buffer(d.t, C.uint64_t(pool), cmd)
	d.live[objCommandBuffer].Add(-1)
}

func (d *deviceFuncs) createFence() (uint64, int32) {
	if r := d.injected("vkCreateFence"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_fence(d.t, &h)
	return uint64(h), d.created(objFence, r)
}

func (d *deviceFuncs) begin(cmd unsafe.Pointer) int32 {
	if r := d.injected("vkBeginCommandBuffer"); r != 0 {
		return r
	}
	return int32(C.vkc_begin(d.t, cmd))
}

func (d *deviceFuncs) end(cmd unsafe.Pointer) int32 {
	if r := d.injected("vkEndCommandBuffer"); r != 0 {
		return r
	}
	return int32(C.vkc_end(d.t, cmd))
}

func (d *deviceFuncs) queueSubmit(queue, cmd unsafe.Pointer, fence uint64) int32 {
	if r := d.injected("vkQueueSubmit"); r != 0 {
		return r
	}
	return int32(C.vkc_queue_submit(d.t, queue, cmd, C.uint64_t(fence)))
}

func (d *deviceFuncs) waitFence(fence uint64, timeout uint64) int32 {
	if r := d.injected("vkWaitForFences"); r != 0 {
		return r
	}
	return int32(C.vkc_wait_fence(d.t, C.uint64_t(fence), C.uint64_t(timeout)))
}

func (d *deviceFuncs) fenceStatus(fence uint64) int32 {
	if r := d.injected("vkGetFenceStatus"); r != 0 {
		return r
	}
	return int32(C.vkc_fence_status(d.t, C.uint64_t(fence)))
}

func (d *deviceFuncs) resetFence(fence uint64) int32 {
	if r := d.injected("vkResetFences"); r != 0 {
		return r
	}
	return int32(C.vkc_reset_fence(d.t, C.uint64_t(fence)))
}

func (d *deviceFuncs) resetPool(pool uint64) int32 {
	if r := d.injected("vkResetCommandPool"); r != 0 {
		return r
	}
	return int32(C.vkc_reset_pool(d.t, C.uint64_t(pool)))
}

func (d *deviceFuncs) createShaderModule(code []uint32) (uint64, int32) {
	if r := d.injected("vkCreateShaderModule"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_shader_module(d.t, (*C.uint32_t)(unsafe.Pointer(&code[0])), C.size_t(4*len(code)), &h)
	return uint64(h), d.created(objShaderModule, r)
}

func (d *deviceFuncs) createSetLayout(bindings int, push bool) (uint64, int32) {
	if r := d.injected("vkCreateDescriptorSetLayout"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_set_layout(d.t, C.uint32_t(bindings), cbool(push), &h)
	return uint64(h), d.created(objSetLayout, r)
}

func (d *deviceFuncs) createPipelineLayout(set uint64, pushSize uint32) (uint64, int32) {
	if r := d.injected("vkCreatePipelineLayout"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_pipeline_layout(d.t, C.uint64_t(set), C.uint32_t(pushSize), &h)
	return uint64(h), d.created(objPipelineLayout, r)
}

func (d *deviceFuncs) createComputePipeline(cache uint64, createFlags, stageFlags uint32, module, layout uint64, constants []uint32) (uint64, int32) {
	if r := d.injected("vkCreateComputePipelines"); r != 0 {
		return 0, r
	}
	var pc *C.uint32_t
	if len(constants) > 0 {
		pc = (*C.uint32_t)(unsafe.Pointer(&constants[0]))
	}
	var h C.uint64_t
	r := C.vkc_create_compute_pipeline(d.t, C.uint64_t(cache), C.uint32_t(createFlags), C.uint32_t(stageFlags), C.uint64_t(module),
		C.uint64_t(layout), C.uint32_t(len(constants)), pc, &h)
	return uint64(h), d.created(objPipeline, r)
}

// createPipelineCache creates a pipeline cache with data as its initial
// data (none when empty).
func (d *deviceFuncs) createPipelineCache(data []byte) (uint64, int32) {
	if r := d.injected("vkCreatePipelineCache"); r != 0 {
		return 0, r
	}
	var p unsafe.Pointer
	if len(data) > 0 {
		p = C.CBytes(data)
		defer C.free(p)
	}
	var h C.uint64_t
	r := C.vkc_create_pipeline_cache(d.t, C.size_t(len(data)), p, &h)
	return uint64(h), d.created(objPipelineCache, r)
}

// pipelineCacheData reads the cache's data (vkGetPipelineCacheData: the
// size, then the data). A cache that grew between the two calls gives
// VK_INCOMPLETE, returned as is.
func (d *deviceFuncs) pipelineCacheData(cache uint64) ([]byte, int32) {
	if r := d.injected("vkGetPipelineCacheData"); r != 0 {
		return nil, r
	}
	var n C.size_t
	if r := C.vkc_pipeline_cache_data(d.t, C.uint64_t(cache), &n, nil); r != 0 || n == 0 {
		return nil, int32(r)
	}
	buf := C.malloc(n)
	if buf == nil {
		return nil, resultOutOfHostMemory
	}
	defer C.free(buf)
	r := C.vkc_pipeline_cache_data(d.t, C.uint64_t(cache), &n, buf)
	if r != 0 {
		return nil, int32(r)
	}
	return C.GoBytes(buf, C.int(n)), 0
}

func (d *deviceFuncs) createQueryPool(count uint32) (uint64, int32) {
	if r := d.injected("vkCreateQueryPool"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_query_pool(d.t, C.uint32_t(count), &h)
	return uint64(h), d.created(objQueryPool, r)
}

// queryResults reads count (value, availability) pairs into out (2*count
// words) without waiting.
func (d *deviceFuncs) queryResults(pool uint64, first, count uint32, out []uint64) int32 {
	if r := d.injected("vkGetQueryPoolResults"); r != 0 {
		return r
	}
	return int32(C.vkc_query_results(d.t, C.uint64_t(pool), C.uint32_t(first), C.uint32_t(count), (*C.uint64_t)(unsafe.Pointer(&out[0]))))
}

func (d *deviceFuncs) createDescriptorPool(maxSets, descriptors uint32) (uint64, int32) {
	if r := d.injected("vkCreateDescriptorPool"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_create_descriptor_pool(d.t, C.uint32_t(maxSets), C.uint32_t(descriptors), &h)
	return uint64(h), d.created(objDescriptorPool, r)
}

// allocateSet allocates a set of layout from pool.
func (d *deviceFuncs) allocateSet(pool, layout uint64) (uint64, int32) {
	if r := d.injected("vkAllocateDescriptorSets"); r != 0 {
		return 0, r
	}
	var h C.uint64_t
	r := C.vkc_allocate_set(d.t, C.uint64_t(pool), C.uint64_t(layout), &h)
	return uint64(h), d.created(objDescriptorSet, r)
}

// writeSet writes a's storage-buffer descriptors into set (binding i
// taking a's buffer, offset and range i).
func (d *deviceFuncs) writeSet(set uint64, a *bindingArrays) {
	C.vkc_write_storage_set(d.t, C.uint64_t(set), C.uint32_t(a.n),
		(*C.uint64_t)(unsafe.Pointer(&a.buffers[0])), (*C.uint64_t)(unsafe.Pointer(&a.offsets[0])), (*C.uint64_t)(unsafe.Pointer(&a.ranges[0])))
}

func (d *deviceFuncs) freeSet(pool, set uint64) {
	C.vkc_free_set(d.t, C.uint64_t(pool), C.uint64_t(set))
	d.live[objDescriptorSet].Add(-1)
}

// setsGone counts n sets freed by the destruction of their pool.
func (d *deviceFuncs) setsGone(n int) { d.live[objDescriptorSet].Add(-int64(n)) }

// dispatch records a bound, pushed (or set-bound) dispatch in one C call
// (see vkc_dispatch); indirect 0 dispatches x*y*z workgroups.
func (d *deviceFuncs) dispatch(cmd unsafe.Pointer, pipeline, layout, set uint64, bindings *bindingArrays, push []uint32,
	x, y, z uint32, indirect, indirectOffset uint64) {
	var pp *C.uint32_t
	if len(push) > 0 {
		pp = (*C.uint32_t)(unsafe.Pointer(&push[0]))
	}
	C.vkc_dispatch(d.t, cmd, C.uint64_t(pipeline), C.uint64_t(layout), C.uint64_t(set), C.uint32_t(bindings.n),
		(*C.uint64_t)(unsafe.Pointer(&bindings.buffers[0])), (*C.uint64_t)(unsafe.Pointer(&bindings.offsets[0])),
		(*C.uint64_t)(unsafe.Pointer(&bindings.ranges[0])), C.uint32_t(len(push)), pp,
		C.uint32_t(x), C.uint32_t(y), C.uint32_t(z), C.uint64_t(indirect), C.uint64_t(indirectOffset))
}

func (d *deviceFuncs) barrier(cmd unsafe.Pointer, srcStage, dstStage PipelineStage, globalSrc, globalDst, srcAccess, dstAccess Access, buffers, offsets, sizes []uint64) {
	var pb, po, ps *C.uint64_t
	if len(buffers) > 0 {
		pb = (*C.uint64_t)(unsafe.Pointer(&buffers[0]))
		po = (*C.uint64_t)(unsafe.Pointer(&offsets[0]))
		ps = (*C.uint64_t)(unsafe.Pointer(&sizes[0]))
	}
	C.vkc_barrier(d.t, cmd, C.uint32_t(srcStage), C.uint32_t(dstStage), C.uint32_t(globalSrc), C.uint32_t(globalDst),
		C.uint32_t(srcAccess), C.uint32_t(dstAccess), C.uint32_t(len(buffers)), pb, po, ps)
}

func (d *deviceFuncs) copyBuffer(cmd unsafe.Pointer, src, dst, srcOffset, dstOffset, size uint64) {
	C.vkc_copy_buffer(d.t, cmd, C.uint64_t(src), C.uint64_t(dst), C.uint64_t(srcOffset), C.uint64_t(dstOffset), C.uint64_t(size))
}

func (d *deviceFuncs) fillBuffer(cmd unsafe.Pointer, buffer, offset, size uint64, value uint32) {
	C.vkc_fill_buffer(d.t, cmd, C.uint64_t(buffer), C.uint64_t(offset), C.uint64_t(size), C.uint32_t(value))
}

func (d *deviceFuncs) resetQueries(cmd unsafe.Pointer, pool uint64, first, count uint32) {
	C.vkc_reset_queries(d.t, cmd, C.uint64_t(pool), C.uint32_t(first), C.uint32_t(count))
}

func (d *deviceFuncs) writeTimestamp(cmd unsafe.Pointer, stage PipelineStage, pool uint64, query uint32) {
	C.vkc_write_timestamp(d.t, cmd, C.uint32_t(stage), C.uint64_t(pool), C.uint32_t(query))
}

// rawStatistic is one statistic as the C layer returns it.
type rawStatistic struct {
	executable, description, name, statDescription string
	subgroupSize                                   uint32
	format                                         int32
	value                                          uint64
}

func (d *deviceFuncs) pipelineStatistics(pipeline uint64) ([]rawStatistic, int32) {
	if r := d.injected("vkGetPipelineExecutableStatisticsKHR"); r != 0 {
		return nil, r
	}
	var n C.uint32_t
	var props [C.VKC_MAX_EXECUTABLES]C.vkc_executable_properties
	var counts [C.VKC_MAX_EXECUTABLES]C.uint32_t
	stats := (*[C.VKC_MAX_EXECUTABLES * C.VKC_MAX_STATISTICS]C.vkc_executable_statistic)(C.calloc(C.VKC_MAX_EXECUTABLES*C.VKC_MAX_STATISTICS, C.size_t(unsafe.Sizeof(C.vkc_executable_statistic{}))))
	defer C.free(unsafe.Pointer(stats))
	r := C.vkc_pipeline_statistics(d.t, C.uint64_t(pipeline), &n, &props[0], &counts[0], &stats[0])
	if r < 0 {
		return nil, int32(r)
	}
	var out []rawStatistic
	for e := 0; e < int(n) && e < C.VKC_MAX_EXECUTABLES; e++ {
		p := &props[e]
		for i := 0; i < int(counts[e]) && i < C.VKC_MAX_STATISTICS; i++ {
			s := &stats[e*C.VKC_MAX_STATISTICS+i]
			out = append(out, rawStatistic{
				executable:      goString(p.name[:]),
				description:     goString(p.description[:]),
				subgroupSize:    uint32(p.subgroupSize),
				name:            goString(s.name[:]),
				statDescription: goString(s.description[:]),
				format:          int32(s.format),
				value:           uint64(s.value),
			})
		}
	}
	return out, int32(r)
}
