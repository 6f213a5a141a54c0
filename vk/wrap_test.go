package vk_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// An engine's frames in flight: the engine hands the library the fence of
// each submission of a command buffer the library recorded into
// (Context.Submitted), and never calls Completed.

// borrowedWithEngine returns a context borrowed from one of vktest's
// (owner), and n command buffers with fences standing in for the
// engine's, made on the owner so that the borrowed context counts only
// its own objects. The engine's objects are destroyed when t ends, after
// the borrowed context's Release.
func borrowedWithEngine(t *testing.T, opts vk.Options, n int) (owner, ctx *vk.Context, engine []*vk.EngineCommands) {
	t.Helper()
	owner = vktest.OpenOptions(t, opts)
	h := vk.OwnedHandles(owner)
	h.CachedDescriptorSets = opts.CachedDescriptorSets
	ctx, err := vk.Borrow(h)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		e, err := vk.NewEngineCommands(owner)
		if err != nil {
			t.Fatal(err)
		}
		engine = append(engine, e)
	}
	t.Cleanup(func() {
		ctx.Release()
		for _, e := range engine {
			e.Wait()
			e.Destroy()
		}
	})
	return owner, ctx, engine
}

// TestSubmittedFrames plays an engine with two frames in flight (frame f
// records into command buffer f%2 while the other may run), each frame
// copying into ranges no frame before it used, with at most 4 idle sets
// kept, reporting each submission with Submitted and never calling
// Completed: the library releases a command buffer's sets once it is
// wrapped again (begun again) or its fence has signalled, so none is
// rewritten while it may run (the validation layer would report it),
// every copy lands, and the sets, the command buffers known and every
// object count stay bounded by the frames in flight. Once both fences
// have signalled and the library has looked, nothing is held.
func TestSubmittedFrames(t *testing.T) {
	owner, ctx, engine := borrowedWithEngine(t, vk.Options{CachedDescriptorSets: 4}, 2)
	const frames, perFrame = 60, 3
	r := newCopyRig(t, ctx, frames*perFrame)
	var first vk.ObjectCounts
	for f := range frames {
		e := engine[f%2]
		if f >= 2 {
			if err := e.Wait(); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Begin(); err != nil { // resets the fence: only the new Wrap says the recording is gone
			t.Fatal(err)
		}
		for k := range perFrame {
			if err := r.dispatch(ctx.Wrap(e.H), f*perFrame+k); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Submit(); err != nil {
			t.Fatal(err)
		}
		if err := ctx.Submitted(e.H, e.Fence()); err != nil {
			t.Fatal(err)
		}
		o := ctx.Objects()
		if o.WrappedCommandBuffers > 2 || !ctx.PushDescriptors() && (o.HeldDescriptorSets > 2*perFrame || o.Vulkan.DescriptorSets > 4+2*perFrame) {
			t.Fatalf("frame %d: %d command buffers known, %d sets, %d held: want at most 2, %d and %d", f, o.WrappedCommandBuffers, o.Vulkan.DescriptorSets, o.HeldDescriptorSets, 4+2*perFrame, 2*perFrame)
		}
		// How many sets are idle or held depends on when the GPU
		// finishes a frame: the bounds above hold them; every other
		// count is exact.
		o.Vulkan.DescriptorSets = 0
		switch {
		case f == 10:
			first = o
		case f > 10 && o.Vulkan != first.Vulkan:
			t.Fatalf("frame %d: %+v; at frame 10 %+v", f, o.Vulkan, first.Vulkan)
		}
	}
	for _, e := range engine {
		if err := e.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	vk.ReapWrapped(ctx)
	if o := ctx.Objects(); o.HeldDescriptorSets != 0 || o.WrappedCommandBuffers != 0 {
		t.Fatalf("both fences signalled: %d sets held, %d command buffers known; want none", o.HeldDescriptorSets, o.WrappedCommandBuffers)
	}
	for k := range frames * perFrame {
		r.check(t, k)
	}
	vktest.Check(t, owner)
}

// TestReleaseWaitsForEngineFrames: the engine records the spin kernel and
// a copy (the library's pipeline and buffers) into its command buffer,
// submits it, reports it with Submitted, and releases the borrowed
// context with that frame in flight. The kernel is ended only once Release
// waits (at its first wait, seen through the fault seam; in the
// "wait_cut_short" case that first wait reports VK_TIMEOUT and the kernel
// is ended at the next). Release must have waited for the frame before
// destroying anything (the seam after its waits finds the kernel done),
// leave no object alive, and the validation layer must report nothing;
// destroying the pipeline the frame runs is an error there
// (VUID-vkDestroyPipeline-pipeline-00765).
func TestReleaseWaitsForEngineFrames(t *testing.T) {
	for _, cut := range []bool{false, true} {
		name := "first_wait"
		if cut {
			name = "wait_cut_short"
		}
		t.Run(name, func(t *testing.T) {
			owner, ctx, engine := borrowedWithEngine(t, vk.Options{}, 1)
			e := engine[0]
			r := newSpinRig(t, ctx)
			if err := e.Begin(); err != nil {
				t.Fatal(err)
			}
			if err := r.record(ctx.Wrap(e.H)); err != nil {
				t.Fatal(err)
			}
			if err := e.Submit(); err != nil {
				t.Fatal(err)
			}
			if err := ctx.Submitted(e.H, e.Fence()); err != nil {
				t.Fatal(err)
			}
			var releasing atomic.Bool
			var waits atomic.Int32
			clear := faults.Set(ctx, func(call string) int32 {
				if !releasing.Load() || call != "vkWaitForFences" {
					return 0
				}
				if waits.Add(1) == 1 && cut {
					return faults.Timeout
				}
				r.spin.End()
				return 0
			})
			defer clear()
			var doneAtWaited atomic.Bool
			var live atomic.Pointer[vk.VulkanObjects]
			vk.SetReleaseSeams(func(c *vk.Context) {
				if c == ctx {
					doneAtWaited.Store(r.spin.Done())
				}
			}, func(c *vk.Context, o vk.VulkanObjects) {
				if c == ctx {
					live.Store(&o)
				}
			})
			defer vk.SetReleaseSeams(nil, nil)
			releasing.Store(true)
			if err := ctx.Close(); err != nil {
				t.Errorf("Close with the frame reported: %v", err)
			}
			clear()
			if !r.spin.Ended() || !doneAtWaited.Load() {
				t.Errorf("Release destroyed what the engine's frame used before the frame had run to its end (ended %v)", r.spin.Ended())
			}
			if o := live.Load(); o == nil || *o != (vk.VulkanObjects{}) {
				t.Errorf("objects alive as Release ends: %+v, want none", o)
			}
			vktest.Check(t, owner)
		})
	}
}

// TestWrappedHoldsBounded: an engine that reports its command buffers
// neither with Submitted nor with Completed cannot make the held sets
// grow without bound: with the bound lowered to 8, the ninth distinct
// set is refused with an error saying what to call, eight stay held, and
// reporting the command buffer lets recording go on. Close then names an
// engine's command buffer that was never reported.
func TestWrappedHoldsBounded(t *testing.T) {
	owner, ctx, engine := borrowedWithEngine(t, vk.Options{CachedDescriptorSets: 2}, 2)
	if ctx.PushDescriptors() {
		t.Skip("push descriptors: no sets to hold")
	}
	defer vk.SetMaxWrappedHolds(8)()
	r := newCopyRig(t, ctx, 10)
	e := engine[0]
	if err := e.Begin(); err != nil {
		t.Fatal(err)
	}
	for k := range 8 {
		if err := r.dispatch(ctx.Wrap(e.H), k); err != nil {
			t.Fatalf("copy %d: %v", k, err)
		}
	}
	cb := ctx.Wrap(e.H)
	err := r.dispatch(cb, 8)
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "Submitted") || !strings.Contains(err.Error(), "Completed") {
		t.Errorf("a ninth set held by the engine's command buffers: %v, want ErrInvalid naming Submitted and Completed", err)
	}
	if o := ctx.Objects(); o.HeldDescriptorSets != 8 {
		t.Errorf("after the refusal: %d sets held, want 8", o.HeldDescriptorSets)
	}
	if err := e.Submit(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Submitted(e.H, e.Fence()); err != nil {
		t.Fatal(err)
	}
	if err := e.Wait(); err != nil {
		t.Fatal(err)
	}
	for k := range 8 {
		r.check(t, k)
	}
	// The next recording: wrapping it again releases the last one's sets.
	if err := e.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := r.dispatch(ctx.Wrap(e.H), 9); err != nil {
		t.Fatalf("a copy after the command buffer was reported: %v", err)
	}
	if err := e.Submit(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Submitted(e.H, e.Fence()); err != nil {
		t.Fatal(err)
	}
	if err := e.Wait(); err != nil {
		t.Fatal(err)
	}
	r.check(t, 9)

	// A command buffer never reported: Close names it.
	other := engine[1]
	if err := other.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := r.dispatch(ctx.Wrap(other.H), 0); err != nil {
		t.Fatal(err)
	}
	if err := other.Submit(); err != nil {
		t.Fatal(err)
	}
	if err := other.Wait(); err != nil {
		t.Fatal(err)
	}
	err = ctx.Close()
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("%p", other.H)) || strings.Contains(err.Error(), fmt.Sprintf("%p", e.H)) {
		t.Errorf("Close with one command buffer never reported: %v; want ErrInvalid naming %p, not %p", err, other.H, e.H)
	}
	vktest.Check(t, owner)
}

// TestSubmittedRefusals: Submitted with a nil context, command buffer or
// fence, or after Release, says why; for a command buffer the library
// never recorded into it does nothing.
func TestSubmittedRefusals(t *testing.T) {
	_, ctx, engine := borrowedWithEngine(t, vk.Options{}, 1)
	e := engine[0]
	for _, tc := range []struct {
		name  string
		c     *vk.Context
		h, f  unsafe.Pointer
		want  error
		words string
	}{
		{"nil context", nil, e.H, e.Fence(), vk.ErrInvalid, "nil context"},
		{"nil command buffer", ctx, nil, e.Fence(), vk.ErrInvalid, "nil VkCommandBuffer"},
		{"nil fence", ctx, e.H, nil, vk.ErrInvalid, "nil VkFence"},
	} {
		if err := tc.c.Submitted(tc.h, tc.f); !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v, want %v naming %q", tc.name, err, tc.want, tc.words)
		}
	}
	if err := ctx.Submitted(e.H, e.Fence()); err != nil {
		t.Errorf("a command buffer the library never recorded into: %v", err)
	}
	if o := ctx.Objects(); o.WrappedCommandBuffers != 0 {
		t.Errorf("%d command buffers known after Submitted of one never wrapped", o.WrappedCommandBuffers)
	}
	ctx.Release()
	if err := ctx.Submitted(e.H, e.Fence()); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("after Release: %v, want ErrReleased", err)
	}
}
