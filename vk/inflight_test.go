package vk_test

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// Work really in flight: these tests hold a kernel running (vktest.Spin,
// which polls a word the test sets) past a wait's timeout, where the fault
// seam's HoldInFlight only pretends, so that what the library does with
// work in flight is tested against a driver that is still running it.

// spinRig is a spin kernel on ctx, and a copy recorded after it in the
// same submission, with the buffers they use.
type spinRig struct {
	ctx       *vk.Context
	spin      *vktest.Spin
	words     *vk.Buffer // the spin's words, host-visible
	src, dst  *vk.Buffer
	pattern   []uint32
	allocated uint64 // AllocatedBytes before the rig's buffers
}

const spinCopyWords = 1 << 16

func newSpinRig(t *testing.T, ctx *vk.Context) *spinRig {
	t.Helper()
	r := &spinRig{ctx: ctx, allocated: ctx.AllocatedBytes()}
	var err error
	if r.words, err = ctx.NewBuffer(vktest.SpinBytes, vk.HostVisible); err != nil {
		t.Fatal(err)
	}
	r.spin = vktest.NewSpin(t, ctx, r.words.All(), vk.Mapped(r.words))
	if r.src, err = ctx.NewBuffer(4*spinCopyWords, vk.DeviceLocal); err != nil {
		t.Fatal(err)
	}
	r.dst = poisoned(t, ctx, spinCopyWords)
	r.pattern = make([]uint32, spinCopyWords)
	for i := range r.pattern {
		r.pattern[i] = uint32(i)*2654435761 + 3
	}
	if err := vk.Upload(r.src.All(), r.pattern); err != nil {
		t.Fatal(err)
	}
	return r
}

// record records the spin, then the copy of src into dst once it ends.
func (r *spinRig) record(cb vk.CommandBuffer) error {
	if err := r.spin.Record(cb); err != nil {
		return err
	}
	cb.MemoryBarrier(vk.StageComputeShader, vk.StageTransfer, vk.AccessShaderWrite, vk.AccessTransferRead)
	cb.CopyBuffer(r.src.All(), r.dst.All())
	return nil
}

// submitTimingOut submits the spin and the copy with a wait of 100 ms,
// which must time out: the spin runs until End, which nothing has called.
func (r *spinRig) submitTimingOut(t *testing.T) {
	t.Helper()
	r.ctx.SetTimeout(100 * time.Millisecond)
	err := r.ctx.Submit(r.record)
	if !errors.Is(err, vk.ErrTimeout) {
		t.Fatalf("a submission of work that runs until the test ends it, waited for 100 ms: %v, want ErrTimeout", err)
	}
	if r.spin.Ended() {
		t.Fatal("the spin was ended before the test ended it")
	}
	if p := r.ctx.Pending(); p != 1 {
		t.Fatalf("%d submissions in flight, want 1", p)
	}
}

// TestReleaseWaitsForWorkInFlight submits a kernel that runs until the
// test ends it and a copy after it, lets the wait time out (100 ms),
// releases every buffer they use and the kernel's pipeline, then releases
// the context, on a device it owns and on a borrowed one. The test ends
// the kernel only once Release is waiting (at its first wait, seen
// through the fault seam); in the "wait_cut_short" cases that first wait
// reports VK_TIMEOUT, as a bounded wait that expired would, and the
// kernel is ended at the next one. Release must destroy nothing before the
// kernel has run to its end (the seam after its waits finds the kernel
// done and every object alive), leave no object alive, and the validation
// layer, synchronisation validation on, must report nothing: destroying
// the submission's command pool or fence, a buffer or the pipeline while
// the kernel runs is an error there (and, on lavapipe, a crash of its
// queue thread).
func TestReleaseWaitsForWorkInFlight(t *testing.T) {
	for _, tc := range []struct {
		name          string
		borrowed, cut bool
	}{
		{"owned", false, false},
		{"owned_wait_cut_short", false, true},
		{"borrowed", true, false},
		{"borrowed_wait_cut_short", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner := vktest.Open(t)
			ctx := owner
			if tc.borrowed {
				var err error
				if ctx, err = vk.Borrow(vk.OwnedHandles(owner)); err != nil {
					t.Fatal(err)
				}
				defer ctx.Release()
			}
			r := newSpinRig(t, ctx)
			before := ctx.Objects()
			r.submitTimingOut(t)

			// Releasing what the submission uses retires it: it stays
			// alive until the submission has completed.
			for _, b := range []*vk.Buffer{r.words, r.src, r.dst} {
				b.Release()
			}
			r.spin.Pipeline().Release()
			if o := ctx.Objects(); o.Retired != 4 || o.Buffers != before.Buffers-3 || o.Vulkan.Buffers != before.Vulkan.Buffers || o.Vulkan.Pipelines != before.Vulkan.Pipelines {
				t.Fatalf("the buffers and the pipeline released with the work in flight: %d retired, %d buffers owned, %d VkBuffers and %d VkPipelines alive; want 4 retired, %d, %d and %d",
					o.Retired, o.Buffers, o.Vulkan.Buffers, o.Vulkan.Pipelines, before.Buffers-3, before.Vulkan.Buffers, before.Vulkan.Pipelines)
			}

			var releasing atomic.Bool
			var waits atomic.Int32
			clear := faults.Set(ctx, func(call string) int32 {
				if !releasing.Load() || call != "vkWaitForFences" && call != "vkDeviceWaitIdle" {
					return 0
				}
				if waits.Add(1) == 1 && tc.cut {
					return faults.Timeout
				}
				r.spin.End()
				return 0
			})
			defer clear()
			var doneAtWaited, seamRan atomic.Bool
			var live atomic.Pointer[vk.VulkanObjects]
			vk.SetReleaseSeams(func(c *vk.Context) {
				if c == ctx {
					seamRan.Store(true)
					doneAtWaited.Store(r.spin.Done())
				}
			}, func(c *vk.Context, o vk.VulkanObjects) {
				if c == ctx {
					live.Store(&o)
				}
			})
			defer vk.SetReleaseSeams(nil, nil)

			releasing.Store(true)
			ctx.Release()
			clear()
			switch {
			case !r.spin.Ended():
				t.Errorf("Release returned without waiting: the kernel was never ended")
			case !seamRan.Load():
				t.Errorf("Release did not run its seam after its waits")
			case !doneAtWaited.Load():
				t.Errorf("Release stopped waiting before the kernel had run to its end")
			}
			if o := live.Load(); o == nil || *o != (vk.VulkanObjects{}) {
				t.Errorf("objects alive as Release ends: %+v, want none", o)
			}
			if n := ctx.AllocatedBytes(); n != 0 {
				t.Errorf("%d bytes allocated after Release", n)
			}
			vktest.Check(t, owner) // a borrowed context's messages go to its owner's instance
		})
	}
}

// TestSubmitAfterWorkInFlightSettles: a submission whose wait timed out
// with its kernel still running, once the kernel has ended and the
// library has seen it complete, leaves the context as it was: the next
// submissions run and are checked. The spin again, waited for 100 ms,
// must time out: a submission reused without resetting its fence would
// report the new work complete at once. The command pools and fences stay
// at one.
func TestSubmitAfterWorkInFlightSettles(t *testing.T) {
	ctx := vktest.Open(t)
	r := newSpinRig(t, ctx)
	check := func(what string) {
		t.Helper()
		got := make([]uint32, spinCopyWords)
		if err := vk.Download(r.dst.All(), got); err != nil || !slices.Equal(got, r.pattern) {
			t.Fatalf("%s: %v, or the copy's result differs", what, err)
		}
		if err := vk.Upload(r.dst.All(), slices.Repeat([]uint32{vktest.Poison}, spinCopyWords)); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		// After the first round, the submission that settled is the one
		// taken next: reused with its fence still signalled, it would
		// not time out (the validation layer reports it too).
		r.submitTimingOut(t)
		r.spin.End()
		settle(t, ctx)
		if !r.spin.Done() {
			t.Fatalf("round %d: the library saw the submission complete before the kernel had run to its end", round)
		}
	}
	check("the copy after the spins")
	ctx.SetTimeout(0)
	if err := ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.CopyBuffer(r.src.All(), r.dst.All())
		return nil
	}); err != nil {
		t.Fatalf("a copy, with no bound on the wait: %v", err)
	}
	check("a copy after the spins")
	if o := ctx.Objects().Vulkan; o.CommandPools != 1 || o.Fences != 1 || o.CommandBuffers != 1 {
		t.Errorf("after the submissions: %d command pools, %d fences, %d command buffers; want 1 each", o.CommandPools, o.Fences, o.CommandBuffers)
	}
}

// TestTimeoutSetting: no bound by default, Options.Timeout and SetTimeout
// set one, and zero or a negative duration removes it.
func TestTimeoutSetting(t *testing.T) {
	ctx := vktest.Open(t)
	if d := ctx.Timeout(); d != 0 {
		t.Errorf("default timeout %v, want 0 (no bound)", d)
	}
	ctx.SetTimeout(time.Second)
	if d := ctx.Timeout(); d != time.Second {
		t.Errorf("after SetTimeout(1s): %v", d)
	}
	ctx.SetTimeout(-time.Second)
	if d := ctx.Timeout(); d != 0 {
		t.Errorf("after SetTimeout(-1s): %v, want 0 (no bound)", d)
	}
	bounded := vktest.OpenOptions(t, vk.Options{Timeout: 250 * time.Millisecond})
	if d := bounded.Timeout(); d != 250*time.Millisecond {
		t.Errorf("Options.Timeout 250ms: Timeout() %v", d)
	}
	if d := (*vk.Context)(nil).Timeout(); d != 0 {
		t.Errorf("a nil context's timeout: %v", d)
	}
}
