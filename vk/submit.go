package vk

import (
	"fmt"
	"time"
	"unsafe"

	vkb "github.com/goki/vulkan"
)

const defaultTimeout = time.Minute

// CommandBuffer is a command buffer in the recording state: one the library
// owns (inside Submit) or an engine's (Wrap). Recording methods are in
// record.go.
type CommandBuffer struct {
	ctx *Context
	h   vkb.CommandBuffer
}

// Wrap makes an engine's command buffer, already in the recording state and
// allocated on this context's device, recordable by the library. h is the
// VkCommandBuffer converted with unsafe.Pointer.
func (c *Context) Wrap(h unsafe.Pointer) CommandBuffer {
	return CommandBuffer{ctx: c, h: vkb.CommandBuffer(h)}
}

// Handle returns the VkCommandBuffer as an unsafe.Pointer.
func (cb CommandBuffer) Handle() unsafe.Pointer { return unsafe.Pointer(cb.h) }

// Context returns the context the command buffer records for.
func (cb CommandBuffer) Context() *Context { return cb.ctx }

// submission is one library-owned command buffer, from recording until its
// fence has signalled. Its serial is outstanding all that time: anything
// released meanwhile is retired until the serial settles.
type submission struct {
	pool   vkb.CommandPool
	cmd    vkb.CommandBuffer
	fence  vkb.Fence
	serial uint64
}

func (s *submission) destroy(c *Context) {
	vkb.DestroyFence(c.device, s.fence, nil)
	vkb.DestroyCommandPool(c.device, s.pool, nil)
}

// retiree is an object released while submissions were outstanding.
type retiree struct {
	destroy func()
	after   uint64 // destroy once no submission up to this serial is outstanding
}

// SetTimeout changes the bound on each wait of the library's submissions.
func (c *Context) SetTimeout(d time.Duration) {
	c.mu.Lock()
	c.timeout = d
	c.mu.Unlock()
}

// Submit records a command buffer with record, submits it to the context's
// queue and waits up to the context's timeout. A wait that times out
// returns an error matching ErrTimeout; the work stays in flight, the
// context stays usable, and its resources are reclaimed once it completes.
// record must not call the context's Release.
func (c *Context) Submit(record func(CommandBuffer) error) error {
	if c == nil {
		return invalidf("Submit: nil context")
	}
	c.mu.Lock()
	timeout := c.timeout
	c.mu.Unlock()
	return c.SubmitTimeout(timeout, record)
}

// SubmitTimeout is Submit with an explicit timeout.
func (c *Context) SubmitTimeout(timeout time.Duration, record func(CommandBuffer) error) error {
	if err := c.enter(); err != nil {
		return err
	}
	defer c.exit()
	if record == nil {
		return invalidf("Submit: nil record function")
	}
	s, err := c.newSubmission()
	if err != nil {
		return err
	}
	submitted := false
	defer func() {
		// A record callback that panics (or calls runtime.Goexit, as
		// t.Fatal does) must not leave its serial outstanding forever.
		if !submitted {
			c.finish(s, true)
		}
	}()
	err = c.recordAndSubmit(s, record)
	submitted = err == nil
	if err != nil {
		return err
	}
	return c.wait(s, timeout)
}

func (c *Context) newSubmission() (*submission, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reapLocked()
	s := &submission{}
	if n := len(c.freePools); n > 0 {
		s.pool, c.freePools = c.freePools[n-1], c.freePools[:n-1]
	} else {
		info := &vkb.CommandPoolCreateInfo{
			SType:            vkb.StructureTypeCommandPoolCreateInfo,
			Flags:            vkb.CommandPoolCreateFlags(vkb.CommandPoolCreateTransientBit),
			QueueFamilyIndex: c.family,
		}
		var pool vkb.CommandPool
		r := vkb.CreateCommandPool(c.device, info, nil, &pool)
		info.Free()
		if err := c.noteResult(check("vkCreateCommandPool", r)); err != nil {
			return nil, err
		}
		s.pool = pool
	}
	if n := len(c.freeFences); n > 0 {
		s.fence, c.freeFences = c.freeFences[n-1], c.freeFences[:n-1]
	} else {
		info := &vkb.FenceCreateInfo{SType: vkb.StructureTypeFenceCreateInfo}
		var fence vkb.Fence
		r := vkb.CreateFence(c.device, info, nil, &fence)
		info.Free()
		if err := c.noteResult(check("vkCreateFence", r)); err != nil {
			c.freePools = append(c.freePools, s.pool)
			return nil, err
		}
		s.fence = fence
	}
	alloc := &vkb.CommandBufferAllocateInfo{
		SType:              vkb.StructureTypeCommandBufferAllocateInfo,
		CommandPool:        s.pool,
		Level:              vkb.CommandBufferLevelPrimary,
		CommandBufferCount: 1,
	}
	cmds := make([]vkb.CommandBuffer, 1)
	r := vkb.AllocateCommandBuffers(c.device, alloc, cmds)
	alloc.Free()
	if err := c.noteResult(check("vkAllocateCommandBuffers", r)); err != nil {
		c.freePools = append(c.freePools, s.pool)
		c.freeFences = append(c.freeFences, s.fence)
		return nil, err
	}
	s.cmd = cmds[0]
	c.nextSerial++
	s.serial = c.nextSerial
	c.outstanding[s.serial] = struct{}{}
	return s, nil
}

func (c *Context) recordAndSubmit(s *submission, record func(CommandBuffer) error) error {
	begin := &vkb.CommandBufferBeginInfo{
		SType: vkb.StructureTypeCommandBufferBeginInfo,
		Flags: vkb.CommandBufferUsageFlags(vkb.CommandBufferUsageOneTimeSubmitBit),
	}
	r := vkb.BeginCommandBuffer(s.cmd, begin)
	begin.Free()
	if err := c.noteResult(check("vkBeginCommandBuffer", r)); err != nil {
		return err
	}
	if err := record(CommandBuffer{ctx: c, h: s.cmd}); err != nil {
		vkb.EndCommandBuffer(s.cmd)
		return err
	}
	if err := c.noteResult(check("vkEndCommandBuffer", vkb.EndCommandBuffer(s.cmd))); err != nil {
		return err
	}
	// queueMu is never held while taking mu, nor the other way round.
	c.queueMu.Lock()
	r = vkb.Result(queueSubmit(&c.fns, c.queue, s.cmd, s.fence))
	c.queueMu.Unlock()
	return c.noteResult(check("vkQueueSubmit", r))
}

// wait waits for s. On success it recycles s; on timeout or failure it
// leaves s in flight for a later reap.
func (c *Context) wait(s *submission, timeout time.Duration) error {
	ns := uint64(max(timeout.Nanoseconds(), 0))
	r := vkb.WaitForFences(c.device, 1, []vkb.Fence{s.fence}, vkb.True, ns)
	if r == vkb.Success {
		c.finish(s, true)
		return nil
	}
	c.mu.Lock()
	c.inFlight = append(c.inFlight, s)
	c.mu.Unlock()
	if r == vkb.Timeout {
		return fmt.Errorf("%w after %v (the work is still in flight; the context remains usable): %w", ErrTimeout, timeout, newError("vkWaitForFences", int32(r)))
	}
	return c.noteResult(check("vkWaitForFences", r))
}

// finish settles s's serial and recycles its pool and fence (or destroys
// them when recycle is false or the context is being released).
func (c *Context) finish(s *submission, recycle bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.outstanding, s.serial)
	if !recycle || c.released {
		s.destroy(c)
	} else {
		if vkb.ResetCommandPool(c.device, s.pool, 0) != vkb.Success {
			vkb.DestroyCommandPool(c.device, s.pool, nil)
		} else {
			c.freePools = append(c.freePools, s.pool)
		}
		if vkb.ResetFences(c.device, 1, []vkb.Fence{s.fence}) != vkb.Success {
			vkb.DestroyFence(c.device, s.fence, nil)
		} else {
			c.freeFences = append(c.freeFences, s.fence)
		}
	}
	c.reapLocked()
}

// reapLocked settles timed-out submissions that have since completed (or
// whose device was lost) and destroys retired objects whose last possible
// use has settled.
func (c *Context) reapLocked() {
	kept := c.inFlight[:0]
	for _, s := range c.inFlight {
		switch r := vkb.GetFenceStatus(c.device, s.fence); r {
		case vkb.NotReady:
			kept = append(kept, s)
		default:
			// Signalled, or failed (device lost): nothing more will run.
			c.noteResult(check("vkGetFenceStatus", r))
			delete(c.outstanding, s.serial)
			s.destroy(c)
		}
	}
	clear(c.inFlight[len(kept):])
	c.inFlight = kept
	left := c.retire[:0]
	for _, r := range c.retire {
		if c.settledLocked(r.after) {
			r.destroy()
		} else {
			left = append(left, r)
		}
	}
	clear(c.retire[len(left):])
	c.retire = left
}

// settledLocked reports whether no submission up to serial is outstanding.
func (c *Context) settledLocked(serial uint64) bool {
	for s := range c.outstanding {
		if s <= serial {
			return false
		}
	}
	return true
}

// Pending reports how many of the library's submissions are still in flight
// after a timed-out wait.
func (c *Context) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.released {
		c.reapLocked()
	}
	return len(c.inFlight)
}
