package vk

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// The engine's command buffers: Wrap makes one recordable by the library;
// the descriptor sets the library binds in it are held (left unchanged)
// until the library knows the recording can no longer run. The engine
// says so in one of three ways: Submitted hands over the fence of each
// submission, and the library polls it; Wrap after Submitted means the
// engine has begun the command buffer again, which Vulkan allows only once
// every submission of it has completed; Completed says it outright.

// wrappedCmd is one of the engine's command buffers the library knows.
type wrappedCmd struct {
	// sets holds the descriptor sets bound in its recording
	// (CommandBuffer.sets points here, for every Wrap of it).
	sets holder
	// fences are the engine's fences of its submissions (Submitted),
	// not yet seen signalled.
	fences []uint64
	// submitted tells that Submitted was called since its recording
	// began: the next Wrap is of a new recording.
	submitted bool
}

// maxWrappedHolds bounds the descriptor-set holds of the engine's command
// buffers the library cannot yet see completed (MaxWrappedDescriptorSets;
// a variable so that a test can lower it).
var maxWrappedHolds = MaxWrappedDescriptorSets

// MaxWrappedDescriptorSets is the most descriptor sets the engine's
// command buffers may hold at once, counted over those the library cannot
// yet see completed (Context.Wrap): past it, a dispatch that needs a
// further set is refused with an error matching ErrInvalid, which says to
// report the command buffers with Submitted or Completed, rather than the
// sets growing without bound.
const MaxWrappedDescriptorSets = 4096

// Wrap makes an engine's command buffer, already in the recording state and
// allocated on this context's device, recordable by the library. h is the
// VkCommandBuffer converted with unsafe.Pointer. Wrap it as often as
// convenient (once per Record call, say): every CommandBuffer of h records
// into the same command buffer. A nil h, or a nil, released or lost
// context, gives a CommandBuffer that records nothing and whose Err (and
// every Record into it) says why.
//
// The descriptor sets the library binds in h stay allocated and unchanged
// until the library knows that h's recording can no longer run, which the
// engine tells it in one of these ways, for each command buffer:
//
//   - Submitted(h, fence) after each submission of h: the library checks
//     the fence itself (in Wrap, Submitted and Completed, and waits for it
//     in Release), and once h is wrapped again, which means it has been
//     begun again, it knows the earlier recording is gone;
//   - Completed(h) once h's submissions have completed, before h is reset,
//     begun again or freed.
//
// An engine whose buffer ranges move from frame to frame (a ring buffer, a
// per-frame allocator) binds new sets every frame: with either call they
// are reused, so memory stays flat; with neither, the sets held grow with
// the frames until MaxWrappedDescriptorSets, past which recording is
// refused. An engine that records over the same ranges every frame binds
// no new set after the first frame.
func (c *Context) Wrap(h unsafe.Pointer) CommandBuffer {
	switch {
	case c == nil:
		return CommandBuffer{err: invalidf("Wrap: nil context")}
	case h == nil:
		return CommandBuffer{ctx: c, err: invalidf("Wrap: nil VkCommandBuffer")}
	}
	if err := c.enter(); err != nil {
		return CommandBuffer{ctx: c, err: fmt.Errorf("Wrap: %w", err)}
	}
	defer c.exit()
	c.wrapMu.Lock()
	defer c.wrapMu.Unlock()
	w := c.wrapped[h]
	if w != nil && w.submitted {
		// The engine has begun h again (it is recording): every
		// submission of its earlier recording has completed.
		c.releaseWrappedLocked(w)
	}
	c.reapWrappedLocked()
	if w = c.wrapped[h]; w == nil {
		w = &wrappedCmd{sets: holder{engine: true}}
		c.wrapped[h] = w
	}
	return CommandBuffer{ctx: c, h: h, sets: &w.sets, refused: new(error)}
}

// Submitted tells the library that the engine has submitted its command
// buffer h with fence (a VkFence converted with unsafe.Pointer), and will
// not submit that recording of h again: it will begin h again, or free
// it. The library then holds what h's recording uses until fence has
// signalled, checking it itself, and Release waits for it (without a
// bound) instead of destroying what h may still use. Call it after every
// submission of a command buffer the library recorded into; calling it
// for one the library did not record into does nothing. An engine that
// submits one recording several times calls it for each submission, and
// wraps h again only to record it anew.
//
// The fence must stay alive, and must not be reset without being
// submitted again, until h is wrapped again, Completed(h) is called, or
// the context is released: the library reads it (vkGetFenceStatus) in
// Wrap, Submitted and Completed, and waits for it in Release, so the
// engine calls those from the goroutine that resets its fences, or
// serialises them itself. Submitted returns an error matching ErrInvalid
// for a nil h or fence, or the context's Err.
func (c *Context) Submitted(h, fence unsafe.Pointer) error {
	switch {
	case c == nil:
		return invalidf("Submitted: nil context")
	case h == nil:
		return invalidf("Submitted: nil VkCommandBuffer")
	case fence == nil:
		return invalidf("Submitted: nil VkFence")
	}
	if err := c.enter(); err != nil {
		return fmt.Errorf("Submitted: %w", err)
	}
	defer c.exit()
	c.wrapMu.Lock()
	defer c.wrapMu.Unlock()
	if w := c.wrapped[h]; w != nil {
		if f := pointerHandle(fence); !slices.Contains(w.fences, f) {
			w.fences = append(w.fences, f)
		}
		w.submitted = true
	}
	c.reapWrappedLocked()
	return nil
}

// Completed tells the library that every submission of the engine's
// command buffer h has completed (its fence has signalled) and that h will
// not be submitted again as recorded: it is about to be reset, begun
// again or freed. The descriptor sets the library bound in h may then be
// reused for other ranges (Wrap says when that matters), and the library
// forgets h. Calling it while a submission of h may still run lets the GPU
// read rewritten descriptors. A handle the library does not know is
// ignored. An engine that reports its submissions with Submitted need not
// call it.
func (c *Context) Completed(h unsafe.Pointer) {
	if c == nil || h == nil || c.enter() != nil {
		return
	}
	defer c.exit()
	c.wrapMu.Lock()
	defer c.wrapMu.Unlock()
	if w := c.wrapped[h]; w != nil {
		c.releaseWrappedLocked(w)
		delete(c.wrapped, h)
	}
	c.reapWrappedLocked()
}

// releaseWrappedLocked lets go of the sets w's recording bound and of its
// fences: the recording can no longer run.
func (c *Context) releaseWrappedLocked(w *wrappedCmd) {
	if c.sets != nil {
		c.sets.release(c.fns, &w.sets)
	}
	w.fences, w.submitted = w.fences[:0], false
}

// reapWrappedLocked forgets the engine's command buffers whose every
// reported submission has completed: their fences have signalled.
func (c *Context) reapWrappedLocked() {
	for h, w := range c.wrapped {
		if len(w.fences) == 0 {
			continue
		}
		kept := w.fences[:0]
		for _, f := range w.fences {
			switch r := c.fns.fenceStatus(f); r {
			case resultSuccess:
			case resultNotReady:
				kept = append(kept, f)
			default:
				// Device lost: the context is lost from here on; Release
				// waits for the fence (a lost device answers at once).
				c.noteResult(check("vkGetFenceStatus", r))
				kept = append(kept, f)
			}
		}
		w.fences = kept
		if len(kept) == 0 {
			c.releaseWrappedLocked(w)
			delete(c.wrapped, h)
		}
	}
}

// waitWrapped waits, without a bound, for the fences of the engine's
// reported submissions, for Release, and returns the command buffers the
// engine reported neither with Submitted nor with Completed.
func (c *Context) waitWrapped() (unreported []unsafe.Pointer) {
	c.wrapMu.Lock()
	var fences []uint64
	for h, w := range c.wrapped {
		fences = append(fences, w.fences...)
		if len(w.fences) == 0 && !w.submitted {
			unreported = append(unreported, h)
		}
	}
	c.wrapMu.Unlock()
	for _, f := range fences {
		c.waitDone(f)
	}
	return unreported
}

// unreportedError names the engine's command buffers that Release found
// reported neither with Submitted nor with Completed (nil when none).
func unreportedError(hs []unsafe.Pointer) error {
	if len(hs) == 0 {
		return nil
	}
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = fmt.Sprintf("%p", h)
	}
	slices.Sort(names)
	return invalidf("Release: the engine's command buffers %s recorded library work and were reported neither with Submitted nor with Completed: if one could still run, what it uses was destroyed", strings.Join(names, ", "))
}
