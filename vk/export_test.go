package vk

import (
	"time"
	"unsafe"
)

// Test hooks for the external tests of this package.

// SetForceStaging makes every transfer go through the staging buffer.
func SetForceStaging(on bool) { forceStaging = on }

// OwnedHandles returns the handles of a context from Open, as an engine
// would hold them, to test Borrow.
func OwnedHandles(c *Context) Handles { return c.Handles() }

// MarkLost records a device loss as a failing call would.
func MarkLost(c *Context) error { return c.noteResult(newError("vkQueueSubmit", resultDeviceLost)) }

// StagingChunk is the staging buffer's piece size.
const StagingChunk = stagingChunk

// Orphan removes x from c's registry, as a bug that lost track of an object
// would: c's Release then leaves it alive.
func Orphan(c *Context, p *ComputePipeline) {
	c.mu.Lock()
	delete(c.children, p)
	c.mu.Unlock()
}

// Outstanding reports how many submission serials are outstanding.
func Outstanding(c *Context) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.outstanding)
}

// StagingBytes is the memory the context's staging buffer holds (0 when it
// has none).
func StagingBytes(c *Context) uint64 { return c.Objects().StagingBytes }

// DropStaging lets go of the context's staging buffer, so that the next
// staged transfer allocates one.
func DropStaging(c *Context) {
	c.stagingMu.Lock()
	c.dropStagingLocked()
	c.stagingMu.Unlock()
}

// EngineCommands are a command pool, its command buffer and a fence made
// with the library's own calls, standing in for an engine's in tests of
// Context.Wrap and Context.Completed. They are counted in Objects.
type EngineCommands struct {
	c           *Context
	pool, fence uint64
	H           unsafe.Pointer // the VkCommandBuffer
	submitted   bool
}

// NewEngineCommands creates them.
func NewEngineCommands(c *Context) (*EngineCommands, error) {
	e := &EngineCommands{c: c}
	var r int32
	if e.pool, r = c.fns.createCommandPool(c.family); r != 0 {
		return nil, newError("vkCreateCommandPool", r)
	}
	if e.H, r = c.fns.allocateCommandBuffer(e.pool); r != 0 {
		e.Destroy()
		return nil, newError("vkAllocateCommandBuffers", r)
	}
	if e.fence, r = c.fns.createFence(); r != 0 {
		e.Destroy()
		return nil, newError("vkCreateFence", r)
	}
	return e, nil
}

// Begin resets the pool and the fence and begins the command buffer.
func (e *EngineCommands) Begin() error {
	f := e.c.fns
	if err := check("vkResetCommandPool", f.resetPool(e.pool)); err != nil {
		return err
	}
	if err := check("vkResetFences", f.resetFence(e.fence)); err != nil {
		return err
	}
	return check("vkBeginCommandBuffer", f.begin(e.H))
}

// Submit ends the command buffer and submits it with the fence.
func (e *EngineCommands) Submit() error {
	f := e.c.fns
	if err := check("vkEndCommandBuffer", f.end(e.H)); err != nil {
		return err
	}
	e.c.queueMu.Lock()
	defer e.c.queueMu.Unlock()
	e.submitted = true
	return check("vkQueueSubmit", f.queueSubmit(e.c.queue, e.H, e.fence))
}

// Fence returns the fence, as Context.Submitted takes it.
func (e *EngineCommands) Fence() unsafe.Pointer { return handlePointer(e.fence) }

// Wait waits for the last submission (nil when there was none).
func (e *EngineCommands) Wait() error {
	if !e.submitted {
		return nil
	}
	return check("vkWaitForFences", e.c.fns.waitFence(e.fence, uint64(time.Minute)))
}

// Destroy destroys them (after the last submission has completed).
func (e *EngineCommands) Destroy() {
	f := e.c.fns
	f.freeCommandBuffer(e.pool, e.H)
	f.destroy(objCommandPool, e.pool)
	f.destroy(objFence, e.fence)
	e.H, e.pool, e.fence = nil, 0, 0
}

// SetBeforePipelineCache makes f run as each context opened from now on
// creates its pipeline cache, its function table loaded (a test sets the
// context's faults there); nil stops it.
func SetBeforePipelineCache(f func(*Context)) { beforePipelineCache = f }

// WrapPipelineCache puts a driver's cache data in the file's envelope;
// UnwrapPipelineCache takes it out (nil when the file is not valid).
func WrapPipelineCache(data []byte) []byte { return wrapPipelineCache(data) }

func UnwrapPipelineCache(file []byte) []byte {
	data, _ := unwrapPipelineCache(file)
	return data
}

// Mapped returns the host's view of a host-visible buffer's memory (nil
// where it is not mapped).
func Mapped(b *Buffer) unsafe.Pointer { return b.mapped }

// SetReleaseSeams makes every Release call waited once the work it waits
// for has ended, before it destroys anything, and live with the objects
// still alive just before the device (or a borrowed context's function
// table) goes; nil stops either.
func SetReleaseSeams(waited func(*Context), live func(*Context, VulkanObjects)) {
	if waited == nil {
		releaseWaited.Store(nil)
	} else {
		releaseWaited.Store(&waited)
	}
	if live == nil {
		releaseLive.Store(nil)
	} else {
		releaseLive.Store(&live)
	}
}

// SetMaxWrappedHolds lowers the bound on the descriptor-set holds of the
// engine's command buffers (MaxWrappedDescriptorSets) until the returned
// function is called.
func SetMaxWrappedHolds(n int) (restore func()) {
	old := maxWrappedHolds
	maxWrappedHolds = n
	return func() { maxWrappedHolds = old }
}

// ReapWrapped polls the fences the engine handed to Submitted, as Wrap,
// Submitted and Completed do.
func ReapWrapped(c *Context) {
	c.wrapMu.Lock()
	c.reapWrappedLocked()
	c.wrapMu.Unlock()
}
