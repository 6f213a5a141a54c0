package vk

import (
	"sync/atomic"
	"time"
	"unsafe"
)

const defaultTimeout = time.Minute

// CommandBuffer is a command buffer in the recording state: one the library
// owns (inside Submit) or an engine's (Wrap). Its methods record commands.
type CommandBuffer struct {
	ctx *Context
	h   unsafe.Pointer // VkCommandBuffer
	// done is set once Submit's record callback has returned (nil for an
	// engine's command buffer, whose end the library cannot see).
	done *atomic.Bool
	// zeroed holds the ranges LeaveZero noted while recording (nil for an
	// engine's command buffer): taken back if it is not submitted.
	zeroed *[]Range
}

// LeaveZero notes that the commands recorded into cb so far leave r zero
// once they have run (Range.NoteZero). If cb is one of the library's and
// is not submitted (its record callback fails, or the submission does),
// the note is taken back. An engine's command buffer (Wrap) is assumed
// submitted in the order recorded: if you discard one that recorded a
// vkcompact plan, call NoteWritten on the plan's scratch.
func (cb CommandBuffer) LeaveZero(r Range) {
	r.NoteZero()
	if cb.zeroed != nil {
		*cb.zeroed = append(*cb.zeroed, r)
	}
}

// Recording reports whether commands may still be recorded: false once
// the Submit callback that was given cb has returned (the command buffer
// is then submitted, and perhaps reused). For an engine's command buffer
// (Wrap) it is always true: the engine knows its own.
func (cb CommandBuffer) Recording() bool { return cb.done == nil || !cb.done.Load() }

// Wrap makes an engine's command buffer, already in the recording state and
// allocated on this context's device, recordable by the library. h is the
// VkCommandBuffer converted with unsafe.Pointer.
func (c *Context) Wrap(h unsafe.Pointer) CommandBuffer {
	return CommandBuffer{ctx: c, h: h}
}

// Handle returns the VkCommandBuffer as an unsafe.Pointer.
func (cb CommandBuffer) Handle() unsafe.Pointer { return cb.h }

// Context returns the context the command buffer records for.
func (cb CommandBuffer) Context() *Context { return cb.ctx }

// submission is one library-owned command buffer, from recording until its
// fence has signalled. Its serial is outstanding all that time: anything
// released meanwhile is retired until the serial settles.
type submission struct {
	pool   uint64 // VkCommandPool
	cmd    unsafe.Pointer
	fence  uint64 // VkFence
	serial uint64
}

func (s *submission) destroy(c *Context) {
	c.fns.destroy(objFence, s.fence)
	c.fns.destroy(objCommandPool, s.pool)
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
	}
	if n := len(c.freeFences); n > 0 {
		s.fence, c.freeFences = c.freeFences[n-1], c.freeFences[:n-1]
	}
	// A pool or fence taken from the free lists goes back there on
	// failure; one created here is destroyed by the C side.
	reused := [2]uint64{s.pool, s.fence}
	cmd, err := c.fns.createSubmission(c.family, &s.pool, &s.fence)
	if err != nil {
		if reused[0] != 0 {
			c.freePools = append(c.freePools, reused[0])
		}
		if reused[1] != 0 {
			c.freeFences = append(c.freeFences, reused[1])
		}
		return nil, c.noteResult(err)
	}
	s.cmd = cmd
	c.nextSerial++
	s.serial = c.nextSerial
	c.outstanding[s.serial] = struct{}{}
	return s, nil
}

func (c *Context) recordAndSubmit(s *submission, record func(CommandBuffer) error) error {
	if err := c.noteResult(check("vkBeginCommandBuffer", c.fns.begin(s.cmd))); err != nil {
		return err
	}
	done, zeroed := new(atomic.Bool), new([]Range)
	err := record(CommandBuffer{ctx: c, h: s.cmd, done: done, zeroed: zeroed})
	done.Store(true)
	if err == nil {
		err = c.noteResult(check("vkEndCommandBuffer", c.fns.end(s.cmd)))
	} else {
		c.fns.end(s.cmd)
	}
	if err == nil {
		// queueMu is never held while taking mu, nor the other way round.
		c.queueMu.Lock()
		r := c.fns.queueSubmit(c.queue, s.cmd, s.fence)
		c.queueMu.Unlock()
		err = c.noteResult(check("vkQueueSubmit", r))
	}
	if err != nil {
		for _, r := range *zeroed {
			r.NoteWritten() // never runs: what it would have zeroed is not known to be zero
		}
	}
	return err
}

// wait waits for s. On success it recycles s; on timeout or failure it
// leaves s in flight for a later reap.
func (c *Context) wait(s *submission, timeout time.Duration) error {
	ns := uint64(max(timeout.Nanoseconds(), 0))
	r := c.fns.waitFence(s.fence, ns)
	if r == resultSuccess {
		c.finish(s, true)
		return nil
	}
	c.mu.Lock()
	c.inFlight = append(c.inFlight, s)
	c.mu.Unlock()
	if r == resultTimeout {
		return errorf(ErrTimeout, "vk: timed out after %v waiting for the GPU (the work is still in flight; the context remains usable): %w", timeout, newError("vkWaitForFences", r))
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
		if c.fns.resetPool(s.pool) != resultSuccess {
			c.fns.destroy(objCommandPool, s.pool)
		} else {
			c.freePools = append(c.freePools, s.pool)
		}
		if c.fns.resetFence(s.fence) != resultSuccess {
			c.fns.destroy(objFence, s.fence)
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
		switch r := c.fns.fenceStatus(s.fence); r {
		case resultSuccess:
			delete(c.outstanding, s.serial)
			s.destroy(c)
		case resultNotReady:
			kept = append(kept, s)
		default:
			// A failure (device lost): the context is lost from here on,
			// but the submission stays with Release, which waits for it
			// (a lost device answers at once) before destroying it.
			c.noteResult(check("vkGetFenceStatus", r))
			kept = append(kept, s)
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
