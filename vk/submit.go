package vk

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// noBound is the timeout of a wait without a bound (UINT64_MAX
// nanoseconds): vkWaitForFences then returns once the fence has signalled
// or the device is lost.
const noBound = ^uint64(0)

// waitNanos is a wait's timeout for vkWaitForFences: d, or no bound for
// d <= 0.
func waitNanos(d time.Duration) uint64 {
	if d <= 0 {
		return noBound
	}
	return uint64(d.Nanoseconds())
}

// CommandBuffer is a command buffer in the recording state: one the library
// owns (inside Submit) or an engine's (Wrap). Its methods record commands.
// Like bufio.Writer, it keeps the first command it refused (a bad range):
// later commands record nothing, and Err reports it, as does Submit for the
// library's own. The zero CommandBuffer, and one from a refused Wrap,
// record nothing either.
type CommandBuffer struct {
	ctx *Context
	h   unsafe.Pointer // VkCommandBuffer
	// sets holds the descriptor sets bound in h's recording (a library
	// submission's, or an engine command buffer's until Completed).
	sets *holder
	// refused is the first command refused, shared by the copies of cb
	// (since its Wrap, or in its Submit callback).
	refused *error
	// sub is the library's submission recording into h (nil for an
	// engine's command buffer), gen the recording's generation: once
	// Submit's callback has returned, sub.recording no longer equals gen.
	sub *submission
	gen uint64
	err error // why Wrap refused h
}

// Err returns nil when commands may be recorded into cb, and otherwise why
// not: an error matching ErrInvalid for the zero CommandBuffer, for one
// Wrap refused (a nil handle or context), for one whose Submit callback
// has returned, or naming the first command it refused; ErrReleased or
// ErrDeviceLost once its context is released or lost.
func (cb CommandBuffer) Err() error {
	switch {
	case cb.err != nil:
		return cb.err
	case cb.ctx == nil || cb.h == nil || cb.refused == nil:
		return invalidf("a zero CommandBuffer: record into one from Context.Wrap or a Submit callback")
	case !cb.Recording():
		return errSubmitted
	case *cb.refused != nil:
		return *cb.refused
	}
	return cb.ctx.Err()
}

// usable reports whether commands may be recorded into cb: the cheap half
// of Err, which every recording method checks.
func (cb CommandBuffer) usable() bool {
	return cb.err == nil && cb.refused != nil && *cb.refused == nil && cb.Recording() && !cb.ctx.closed.Load()
}

// fail keeps err as cb's first refusal.
func (cb CommandBuffer) fail(err error) {
	if cb.refused != nil && *cb.refused == nil {
		*cb.refused = err
	}
}

// LeaveZero notes that the commands recorded into cb so far leave r zero
// once they have run (Range.NoteZero). If cb is one of the library's and
// is not submitted (its record callback fails, or the submission does),
// the note is taken back. An engine's command buffer (Wrap) is assumed
// submitted in the order recorded: if you discard one that recorded a
// vkcompact plan, call NoteWritten on the plan's scratch.
func (cb CommandBuffer) LeaveZero(r Range) {
	if !cb.usable() || r.Buffer == nil {
		return
	}
	r.NoteZero()
	if cb.sub != nil {
		cb.sub.zeroed = append(cb.sub.zeroed, r)
	}
}

// Recording reports whether commands may still be recorded: false once
// the Submit callback that was given cb has returned (the command buffer
// is then submitted, and perhaps reused). For an engine's command buffer
// (Wrap) it is always true: the engine knows its own.
func (cb CommandBuffer) Recording() bool { return cb.sub == nil || cb.sub.recording.Load() == cb.gen }

// Handle returns the VkCommandBuffer as an unsafe.Pointer.
func (cb CommandBuffer) Handle() unsafe.Pointer { return cb.h }

// Context returns the context the command buffer records for.
func (cb CommandBuffer) Context() *Context { return cb.ctx }

// submission is one of the library's own command buffers, with its pool
// and fence, reused from one submission to the next: the pool is reset
// (which resets the command buffer) once the submission has completed,
// and the command buffer is allocated once, with the submission. While
// one is recorded and run its serial is outstanding: anything released
// meanwhile is retired until the serial settles.
type submission struct {
	pool  uint64 // VkCommandPool
	cmd   unsafe.Pointer
	fence uint64 // VkFence
	// serial is the submission's, from its recording until it settles;
	// recording equals it while the Submit callback runs, else 0.
	serial    uint64
	recording atomic.Uint64
	zeroed    []Range // LeaveZero's ranges, taken back if it is not submitted
	refused   error   // the first command its recording refused
	sets      holder  // the descriptor sets its recording bound
}

// destroy frees the command buffer and destroys the pool and fence.
func (s *submission) destroy(c *Context) {
	c.fns.freeCommandBuffer(s.pool, s.cmd)
	c.fns.destroy(objCommandPool, s.pool)
	c.fns.destroy(objFence, s.fence)
	s.pool, s.cmd, s.fence = 0, nil, 0
}

// retiree is an object released while submissions were outstanding.
type retiree struct {
	destroy func()
	after   uint64 // destroy once no submission up to this serial is outstanding
}

// SetTimeout bounds each later wait of the library's own submissions
// (Submit, Upload, Download, and every operation's Run) to d; d <= 0
// removes the bound (the default, Options.Timeout): a wait then lasts
// as long as the work, and only a lost device ends it early, with an
// error matching ErrDeviceLost. A wait that runs past its bound returns
// an error matching ErrTimeout and leaves the work in flight: nothing it
// uses is destroyed before it completes (Submit says how). It works on a
// borrowed context as on one from Open.
func (c *Context) SetTimeout(d time.Duration) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.timeout = max(d, 0)
	c.mu.Unlock()
}

// Timeout returns the bound on each wait of the library's submissions: 0
// when there is none (the default).
func (c *Context) Timeout() time.Duration {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timeout
}

// Submit records a command buffer with record, submits it to the context's
// queue and waits for it: without a bound, or up to the context's timeout
// (SetTimeout). A wait that times out returns an error matching
// ErrTimeout; the work stays in flight and the context usable. Until the
// work has completed, nothing it uses is destroyed: its command pool,
// command buffer and fence are not reused, and buffers, pipelines and
// timers released meanwhile are retired, destroyed once the library has
// seen the submission's fence signalled (at a later call) or at the
// context's Release, which waits for it. record must not call the
// context's Release.
func (c *Context) Submit(record func(CommandBuffer) error) error {
	if c == nil {
		return invalidf("Submit: nil context")
	}
	c.mu.Lock()
	timeout := c.timeout
	c.mu.Unlock()
	return c.SubmitTimeout(timeout, record)
}

// SubmitTimeout is Submit with its own bound on the wait: timeout <= 0
// means none.
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
	var s *submission
	if n := len(c.free); n > 0 {
		s = c.free[n-1]
		c.free[n-1] = nil
		c.free = c.free[:n-1]
	} else {
		var err error
		if s, err = c.createSubmissionLocked(); err != nil {
			return nil, c.noteResult(err)
		}
	}
	c.nextSerial++
	s.serial = c.nextSerial
	c.outstanding[s.serial] = struct{}{}
	return s, nil
}

// createSubmissionLocked creates a command pool, its command buffer and a
// fence, destroying what it created when a call fails.
func (c *Context) createSubmissionLocked() (*submission, error) {
	s := &submission{}
	pool, r := c.fns.createCommandPool(c.family)
	if err := check("vkCreateCommandPool", r); err != nil {
		return nil, err
	}
	s.pool = pool
	cmd, r := c.fns.allocateCommandBuffer(pool)
	if err := check("vkAllocateCommandBuffers", r); err != nil {
		s.destroy(c)
		return nil, err
	}
	s.cmd = cmd
	fence, r := c.fns.createFence()
	if err := check("vkCreateFence", r); err != nil {
		s.destroy(c)
		return nil, err
	}
	s.fence = fence
	return s, nil
}

func (c *Context) recordAndSubmit(s *submission, record func(CommandBuffer) error) error {
	if err := c.noteResult(check("vkBeginCommandBuffer", c.fns.begin(s.cmd))); err != nil {
		return err
	}
	s.zeroed = s.zeroed[:0]
	s.recording.Store(s.serial)
	s.refused = nil
	cb := CommandBuffer{ctx: c, h: s.cmd, sets: &s.sets, refused: &s.refused, sub: s, gen: s.serial}
	err := record(cb)
	s.recording.Store(0)
	if err == nil {
		err = s.refused // a command refused
	}
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
		for _, r := range s.zeroed {
			r.NoteWritten() // never runs: what it would have zeroed is not known to be zero
		}
	}
	clear(s.zeroed)
	s.zeroed = s.zeroed[:0]
	return err
}

// wait waits for s. On success it recycles s; on timeout or failure it
// leaves s in flight for a later reap.
func (c *Context) wait(s *submission, timeout time.Duration) error {
	r := c.fns.waitFence(s.fence, waitNanos(timeout))
	if r == resultSuccess {
		c.finish(s, true)
		return nil
	}
	c.mu.Lock()
	c.inFlight = append(c.inFlight, s)
	c.mu.Unlock()
	if r == resultTimeout {
		bound := "with no bound" // the fault seam's timeout: a wait without a bound returns none
		if timeout > 0 {
			bound = "after " + timeout.String()
		}
		return errorf(ErrTimeout, "vk: timed out %s waiting for the GPU (the work is still in flight; the context remains usable): %w", bound, newError("vkWaitForFences", r))
	}
	return c.noteResult(check("vkWaitForFences", r))
}

// finish settles s's serial, lets go of the descriptor sets its
// recording bound, and keeps s for the next submission (or destroys it
// when recycle is false, a reset fails, or the context is being
// released).
func (c *Context) finish(s *submission, recycle bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settleLocked(s)
	if !recycle || c.released || c.fns.resetPool(s.pool) != resultSuccess || c.fns.resetFence(s.fence) != resultSuccess {
		s.destroy(c)
	} else {
		c.free = append(c.free, s)
	}
	c.reapLocked()
}

// settleLocked ends s's serial and its hold on descriptor sets.
func (c *Context) settleLocked(s *submission) {
	delete(c.outstanding, s.serial)
	s.serial = 0
	s.recording.Store(0) // after a callback that panicked, too
	if c.sets != nil {
		c.sets.release(c.fns, &s.sets)
	}
}

// reapLocked settles timed-out submissions that have since completed (or
// whose device was lost) and destroys retired objects whose last possible
// use has settled.
func (c *Context) reapLocked() {
	kept := c.inFlight[:0]
	for _, s := range c.inFlight {
		switch r := c.fns.fenceStatus(s.fence); r {
		case resultSuccess:
			c.settleLocked(s)
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

// waitDone waits for fence without a bound, however long its work takes:
// until it has signalled or the device is lost (a lost device answers at
// once), and returns the wait's result. A VK_TIMEOUT, which no wait
// without a bound returns but a test's fault seam may, means the work may
// still run: it waits again.
func (c *Context) waitDone(fence uint64) int32 {
	for {
		if r := c.fns.waitFence(fence, noBound); r != resultTimeout {
			return r
		}
	}
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
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.released {
		c.reapLocked()
	}
	return len(c.inFlight)
}
