package goki

import (
	"testing"
	"unsafe"

	vkb "github.com/goki/vulkan"

	"github.com/vkcompact/vkcompact/internal/testkit/enginetest"
)

// This file holds the engine's own Vulkan objects: buffers with their
// memory, the compute pipelines of update.comp and consume.comp with their
// layouts, descriptor sets, and command recording helpers, all made with
// the raw binding.

// buffer is one of the engine's buffers, with memory of its own.
type buffer struct {
	handle vkb.Buffer
	memory vkb.DeviceMemory
	size   uint64
	mapped unsafe.Pointer // the whole memory, for host-visible buffers
}

// Usages of the engine's buffers.
const (
	storageUsage = vkb.BufferUsageFlags(vkb.BufferUsageStorageBufferBit | vkb.BufferUsageTransferSrcBit | vkb.BufferUsageTransferDstBit)
	// indirectUsage adds vkCmdDispatchIndirect arguments.
	indirectUsage = storageUsage | vkb.BufferUsageFlags(vkb.BufferUsageIndirectBufferBit)
)

// Memory the engine asks for.
const (
	hostMemory   = vkb.MemoryPropertyFlags(vkb.MemoryPropertyHostVisibleBit | vkb.MemoryPropertyHostCoherentBit)
	deviceMemory = vkb.MemoryPropertyFlags(vkb.MemoryPropertyDeviceLocalBit)
)

// newBuffer creates a buffer of size bytes with memory having the
// properties want, mapped when it is host-visible. The engine destroys it
// at its teardown.
func (e *engine) newBuffer(t testing.TB, size uint64, usage vkb.BufferUsageFlags, want vkb.MemoryPropertyFlags) *buffer {
	t.Helper()
	info := &vkb.BufferCreateInfo{
		SType:       vkb.StructureTypeBufferCreateInfo,
		Size:        vkb.DeviceSize(size),
		Usage:       usage,
		SharingMode: vkb.SharingModeExclusive,
	}
	var h vkb.Buffer
	r := vkb.CreateBuffer(e.device, info, nil, &h)
	info.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreateBuffer of %d bytes: %d", size, r)
	}
	b := &buffer{handle: h, size: size}
	device := e.device
	e.own(func() {
		vkb.DestroyBuffer(device, b.handle, nil)
		if b.memory != nil {
			vkb.FreeMemory(device, b.memory, nil) // unmaps
		}
	})

	var req vkb.MemoryRequirements
	vkb.GetBufferMemoryRequirements(e.device, h, &req)
	req.Deref()
	req.Free()
	memoryType := -1
	for i, flags := range e.memory {
		if req.MemoryTypeBits&(1<<i) != 0 && flags&want == want {
			memoryType = i
			break
		}
	}
	if memoryType < 0 {
		t.Fatalf("no memory type with properties %#x for a buffer (allowed types %#b)", want, req.MemoryTypeBits)
	}
	alloc := &vkb.MemoryAllocateInfo{
		SType:           vkb.StructureTypeMemoryAllocateInfo,
		AllocationSize:  req.Size,
		MemoryTypeIndex: uint32(memoryType),
	}
	var mem vkb.DeviceMemory
	r = vkb.AllocateMemory(e.device, alloc, nil, &mem)
	alloc.Free()
	if r != vkb.Success {
		t.Fatalf("vkAllocateMemory of %d bytes: %d", req.Size, r)
	}
	b.memory = mem
	if r := vkb.BindBufferMemory(e.device, h, mem, 0); r != vkb.Success {
		t.Fatalf("vkBindBufferMemory: %d", r)
	}
	if want&vkb.MemoryPropertyFlags(vkb.MemoryPropertyHostVisibleBit) != 0 {
		var p unsafe.Pointer
		if r := vkb.MapMemory(e.device, mem, 0, vkb.DeviceSize(vkb.WholeSize), 0, &p); r != vkb.Success {
			t.Fatalf("vkMapMemory: %d", r)
		}
		b.mapped = p
	}
	return b
}

// words returns the mapped memory of a host-visible buffer as uint32s.
func (b *buffer) words() []uint32 {
	return unsafe.Slice((*uint32)(b.mapped), b.size/4)
}

// particles returns the mapped memory of a host-visible buffer as n
// particles.
func (b *buffer) particles(n int) []particle {
	return unsafe.Slice((*particle)(b.mapped), n)
}

// kernels are the engine's two compute pipelines. Both use one descriptor
// set layout of three storage buffers and 16 bytes of push constants.
type kernels struct {
	setLayout vkb.DescriptorSetLayout
	layout    vkb.PipelineLayout
	update    vkb.Pipeline
	consume   vkb.Pipeline
}

// updatePush are update.comp's push constants, padded to 16 bytes.
type updatePush struct {
	N, Live uint32
	DT      float32
	_       uint32
}

// newKernels creates the layouts and pipelines.
func (e *engine) newKernels(t testing.TB) *kernels {
	t.Helper()
	k := &kernels{}
	device := e.device
	var bindings []vkb.DescriptorSetLayoutBinding
	for i := range 3 {
		bindings = append(bindings, vkb.DescriptorSetLayoutBinding{
			Binding:         uint32(i),
			DescriptorType:  vkb.DescriptorTypeStorageBuffer,
			DescriptorCount: 1,
			StageFlags:      vkb.ShaderStageFlags(vkb.ShaderStageComputeBit),
		})
	}
	setInfo := &vkb.DescriptorSetLayoutCreateInfo{
		SType:        vkb.StructureTypeDescriptorSetLayoutCreateInfo,
		BindingCount: uint32(len(bindings)),
		PBindings:    bindings,
	}
	var r vkb.Result
	withoutGC(func() { r = vkb.CreateDescriptorSetLayout(device, setInfo, nil, &k.setLayout) })
	setInfo.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreateDescriptorSetLayout: %d", r)
	}
	e.own(func() { vkb.DestroyDescriptorSetLayout(device, k.setLayout, nil) })

	layoutInfo := &vkb.PipelineLayoutCreateInfo{
		SType:                  vkb.StructureTypePipelineLayoutCreateInfo,
		SetLayoutCount:         1,
		PSetLayouts:            []vkb.DescriptorSetLayout{k.setLayout},
		PushConstantRangeCount: 1,
		PPushConstantRanges: []vkb.PushConstantRange{{
			StageFlags: vkb.ShaderStageFlags(vkb.ShaderStageComputeBit),
			Size:       uint32(unsafe.Sizeof(updatePush{})),
		}},
	}
	withoutGC(func() { r = vkb.CreatePipelineLayout(device, layoutInfo, nil, &k.layout) })
	layoutInfo.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreatePipelineLayout: %d", r)
	}
	e.own(func() { vkb.DestroyPipelineLayout(device, k.layout, nil) })

	k.update = e.newPipeline(t, "update.spv", enginetest.UpdateSPIRV, k.layout)
	k.consume = e.newPipeline(t, "consume.spv", enginetest.ConsumeSPIRV, k.layout)
	return k
}

// setSize sets a size field whose type the bindings differ on (goki/vulkan
// uint64, vulkan-go/vulkan uint).
func setSize[T uint | uint64](field *T, n int) { *field = T(n) }

// newPipeline creates a compute pipeline from a SPIR-V module.
func (e *engine) newPipeline(t testing.TB, name string, spv []byte, layout vkb.PipelineLayout) vkb.Pipeline {
	t.Helper()
	device := e.device
	code, err := enginetest.SPIRVWords(name, spv)
	if err != nil {
		t.Fatal(err)
	}
	moduleInfo := &vkb.ShaderModuleCreateInfo{
		SType: vkb.StructureTypeShaderModuleCreateInfo,
		PCode: code,
	}
	setSize(&moduleInfo.CodeSize, len(spv))
	var module vkb.ShaderModule
	r := vkb.CreateShaderModule(device, moduleInfo, nil, &module)
	moduleInfo.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreateShaderModule %s: %d", name, r)
	}
	defer vkb.DestroyShaderModule(device, module, nil)
	infos := []vkb.ComputePipelineCreateInfo{{
		SType: vkb.StructureTypeComputePipelineCreateInfo,
		Stage: vkb.PipelineShaderStageCreateInfo{
			SType:  vkb.StructureTypePipelineShaderStageCreateInfo,
			Stage:  vkb.ShaderStageComputeBit,
			Module: module,
			PName:  cstr("main"),
		},
		Layout:            layout,
		BasePipelineIndex: -1,
	}}
	pipelines := make([]vkb.Pipeline, 1)
	withoutGC(func() {
		r = vkb.CreateComputePipelines(device, vkb.NullPipelineCache, 1, infos, nil, pipelines)
	})
	if r != vkb.Success {
		t.Fatalf("vkCreateComputePipelines %s: %d", name, r)
	}
	p := pipelines[0]
	e.own(func() { vkb.DestroyPipeline(device, p, nil) })
	return p
}

// binding is one storage-buffer descriptor: a range of an engine buffer.
type binding struct {
	buf          *buffer
	offset, size uint64
}

// newDescriptorSets allocates one descriptor set of k's layout per entry
// of sets, from a pool of its own, and points binding i of set s at
// sets[s][i].
func (e *engine) newDescriptorSets(t testing.TB, k *kernels, sets ...[3]binding) []vkb.DescriptorSet {
	t.Helper()
	device := e.device
	n := uint32(len(sets))
	poolInfo := &vkb.DescriptorPoolCreateInfo{
		SType:         vkb.StructureTypeDescriptorPoolCreateInfo,
		MaxSets:       n,
		PoolSizeCount: 1,
		PPoolSizes:    []vkb.DescriptorPoolSize{{Type: vkb.DescriptorTypeStorageBuffer, DescriptorCount: 3 * n}},
	}
	var pool vkb.DescriptorPool
	var r vkb.Result
	withoutGC(func() { r = vkb.CreateDescriptorPool(device, poolInfo, nil, &pool) })
	poolInfo.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreateDescriptorPool: %d", r)
	}
	e.own(func() { vkb.DestroyDescriptorPool(device, pool, nil) })

	handles := make([]vkb.DescriptorSet, n)
	for i := range handles {
		alloc := &vkb.DescriptorSetAllocateInfo{
			SType:              vkb.StructureTypeDescriptorSetAllocateInfo,
			DescriptorPool:     pool,
			DescriptorSetCount: 1,
			PSetLayouts:        []vkb.DescriptorSetLayout{k.setLayout},
		}
		withoutGC(func() { r = vkb.AllocateDescriptorSets(device, alloc, &handles[i]) })
		alloc.Free()
		if r != vkb.Success {
			t.Fatalf("vkAllocateDescriptorSets: %d", r)
		}
	}
	var writes []vkb.WriteDescriptorSet
	for s, set := range sets {
		for i, b := range set {
			writes = append(writes, vkb.WriteDescriptorSet{
				SType:           vkb.StructureTypeWriteDescriptorSet,
				DstSet:          handles[s],
				DstBinding:      uint32(i),
				DescriptorCount: 1,
				DescriptorType:  vkb.DescriptorTypeStorageBuffer,
				PBufferInfo: []vkb.DescriptorBufferInfo{{
					Buffer: b.buf.handle,
					Offset: vkb.DeviceSize(b.offset),
					Range:  vkb.DeviceSize(b.size),
				}},
			})
		}
	}
	withoutGC(func() { vkb.UpdateDescriptorSets(device, uint32(len(writes)), writes, 0, nil) })
	return handles
}

// commands are a command pool with one primary command buffer, and a
// fence, of the engine's own.
type commands struct {
	pool  vkb.CommandPool
	cmd   vkb.CommandBuffer
	fence vkb.Fence
}

// newCommands creates a command pool on the engine's queue family, one
// command buffer and a fence.
func (e *engine) newCommands(t testing.TB) *commands {
	t.Helper()
	device := e.device
	c := &commands{}
	poolInfo := &vkb.CommandPoolCreateInfo{
		SType:            vkb.StructureTypeCommandPoolCreateInfo,
		QueueFamilyIndex: e.family,
	}
	r := vkb.CreateCommandPool(device, poolInfo, nil, &c.pool)
	poolInfo.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreateCommandPool: %d", r)
	}
	e.own(func() { vkb.DestroyCommandPool(device, c.pool, nil) }) // frees the command buffer
	alloc := &vkb.CommandBufferAllocateInfo{
		SType:              vkb.StructureTypeCommandBufferAllocateInfo,
		CommandPool:        c.pool,
		Level:              vkb.CommandBufferLevelPrimary,
		CommandBufferCount: 1,
	}
	cmds := make([]vkb.CommandBuffer, 1)
	r = vkb.AllocateCommandBuffers(device, alloc, cmds)
	alloc.Free()
	if r != vkb.Success {
		t.Fatalf("vkAllocateCommandBuffers: %d", r)
	}
	c.cmd = cmds[0]
	fenceInfo := &vkb.FenceCreateInfo{SType: vkb.StructureTypeFenceCreateInfo}
	r = vkb.CreateFence(device, fenceInfo, nil, &c.fence)
	fenceInfo.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreateFence: %d", r)
	}
	e.own(func() { vkb.DestroyFence(device, c.fence, nil) })
	return c
}

// resetCommands resets the command pool, and so its command buffer, and
// the fence for the next submission: the last one must have completed.
func (e *engine) resetCommands(t testing.TB, c *commands) {
	t.Helper()
	if r := vkb.ResetCommandPool(e.device, c.pool, 0); r != vkb.Success {
		t.Fatalf("vkResetCommandPool: %d", r)
	}
	if r := vkb.ResetFences(e.device, 1, []vkb.Fence{c.fence}); r != vkb.Success {
		t.Fatalf("vkResetFences: %d", r)
	}
}

// begin starts recording the command buffer for one submission.
func (c *commands) begin(t testing.TB) {
	t.Helper()
	info := &vkb.CommandBufferBeginInfo{
		SType: vkb.StructureTypeCommandBufferBeginInfo,
		Flags: vkb.CommandBufferUsageFlags(vkb.CommandBufferUsageOneTimeSubmitBit),
	}
	r := vkb.BeginCommandBuffer(c.cmd, info)
	info.Free()
	if r != vkb.Success {
		t.Fatalf("vkBeginCommandBuffer: %d", r)
	}
}

// submit ends the recording, submits the command buffer to the engine's
// queue with the fence, and waits for it.
func (c *commands) submit(t testing.TB, e *engine) {
	t.Helper()
	if r := vkb.EndCommandBuffer(c.cmd); r != vkb.Success {
		t.Fatalf("vkEndCommandBuffer: %d", r)
	}
	submits := []vkb.SubmitInfo{{
		SType:              vkb.StructureTypeSubmitInfo,
		CommandBufferCount: 1,
		PCommandBuffers:    []vkb.CommandBuffer{c.cmd},
	}}
	var r vkb.Result
	withoutGC(func() { r = vkb.QueueSubmit(e.queue, 1, submits, c.fence) })
	if r != vkb.Success {
		t.Fatalf("vkQueueSubmit: %d", r)
	}
	const timeout = 2 * 60 * 1e9 // ns
	if r := vkb.WaitForFences(e.device, 1, []vkb.Fence{c.fence}, vkb.True, timeout); r != vkb.Success {
		t.Fatalf("vkWaitForFences: %d", r)
	}
}

// memoryBarrier records a global memory barrier.
func memoryBarrier(cmd vkb.CommandBuffer, srcStage, dstStage vkb.PipelineStageFlagBits, srcAccess, dstAccess vkb.AccessFlagBits) {
	barriers := []vkb.MemoryBarrier{{
		SType:         vkb.StructureTypeMemoryBarrier,
		SrcAccessMask: vkb.AccessFlags(srcAccess),
		DstAccessMask: vkb.AccessFlags(dstAccess),
	}}
	withoutGC(func() {
		vkb.CmdPipelineBarrier(cmd, vkb.PipelineStageFlags(srcStage), vkb.PipelineStageFlags(dstStage), 0,
			1, barriers, 0, nil, 0, nil)
	})
}

// bufferBarrier is one buffer range of a buffer memory barrier, with its
// destination access.
type bufferBarrier struct {
	binding
	dstAccess vkb.AccessFlagBits
}

// bufferBarriers records one pipeline barrier of buffer memory barriers,
// all from srcAccess in srcStage.
func bufferBarriers(cmd vkb.CommandBuffer, srcStage, dstStage vkb.PipelineStageFlagBits, srcAccess vkb.AccessFlagBits, ranges ...bufferBarrier) {
	var barriers []vkb.BufferMemoryBarrier
	for _, b := range ranges {
		barriers = append(barriers, vkb.BufferMemoryBarrier{
			SType:               vkb.StructureTypeBufferMemoryBarrier,
			SrcAccessMask:       vkb.AccessFlags(srcAccess),
			DstAccessMask:       vkb.AccessFlags(b.dstAccess),
			SrcQueueFamilyIndex: vkb.QueueFamilyIgnored,
			DstQueueFamilyIndex: vkb.QueueFamilyIgnored,
			Buffer:              b.buf.handle,
			Offset:              vkb.DeviceSize(b.offset),
			Size:                vkb.DeviceSize(b.size),
		})
	}
	withoutGC(func() {
		vkb.CmdPipelineBarrier(cmd, vkb.PipelineStageFlags(srcStage), vkb.PipelineStageFlags(dstStage), 0,
			0, nil, uint32(len(barriers)), barriers, 0, nil)
	})
}
