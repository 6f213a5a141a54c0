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

// TestFaultDeviceLostInFlight makes vkQueueSubmit, vkWaitForFences and
// vkGetFenceStatus report VK_ERROR_DEVICE_LOST (through the internal/faults
// seam) while work of the context is still in flight: copies whose wait
// timed out (the seam's VK_TIMEOUT; their fence polls report not ready
// until the loss), and, for the wait, the submission being waited for.
// The failing call returns an error matching ErrDeviceLost, every later
// call does too, a download that fails leaves the caller's slice
// untouched, and Release waits for the work still running before it
// destroys anything: the validation layer reports nothing.
func TestFaultDeviceLostInFlight(t *testing.T) {
	for _, call := range []string{"vkQueueSubmit", "vkWaitForFences", "vkGetFenceStatus"} {
		t.Run(call, func(t *testing.T) {
			ctx := vktest.Open(t)
			const words = 1 << 22 // 16 MiB
			src, err := ctx.NewBuffer(4*words, vk.DeviceLocal)
			if err != nil {
				t.Fatal(err)
			}
			dst, err := ctx.NewBuffer(4*words, vk.DeviceLocal)
			if err != nil {
				t.Fatal(err)
			}
			pattern := make([]uint32, 1024)
			for i := range pattern {
				pattern[i] = uint32(i) * 2654435761
			}
			if err := vk.Upload(src.Range(0, 4096), pattern); err != nil {
				t.Fatal(err)
			}
			copies := func(cb vk.CommandBuffer) error {
				for range 8 {
					cb.CopyBuffer(src.All(), dst.All())
					cb.MemoryBarrier(vk.StageTransfer, vk.StageTransfer, vk.AccessTransferWrite, vk.AccessTransferWrite)
				}
				return nil
			}
			// One hook for both phases (the seam keeps one per context):
			// first the work stays in flight, its wait timing out; then
			// call reports the device lost.
			var lost, waited atomic.Bool
			clear := faults.Set(ctx, func(c string) int32 {
				switch {
				case lost.Load() && c == call:
					return faults.ErrorDeviceLost
				case lost.Load():
					return 0
				case c == "vkWaitForFences" && !waited.Swap(true):
					return faults.Timeout
				case c == "vkGetFenceStatus":
					return faults.NotReady
				}
				return 0
			})
			defer clear()
			if err := ctx.Submit(copies); !errors.Is(err, vk.ErrTimeout) {
				t.Fatalf("a submission whose wait times out: %v, want ErrTimeout", err)
			}
			if p := ctx.Pending(); p != 1 {
				t.Fatalf("%d submissions in flight, want 1", p)
			}
			lost.Store(true)
			var got error
			switch call {
			case "vkGetFenceStatus":
				ctx.Pending() // polls the fence of the work in flight
				got = ctx.Err()
			default:
				got = ctx.Submit(copies)
			}
			if !errors.Is(got, vk.ErrDeviceLost) {
				t.Errorf("%s failing: %v, want ErrDeviceLost", call, got)
			}
			// Every later call reports the loss, and a failed download
			// leaves the caller's slice as it was.
			poison := slices.Repeat([]uint32{0xDEADBEEF}, len(pattern))
			out := slices.Clone(poison)
			if err := vk.Download(src.Range(0, 4096), out); !errors.Is(err, vk.ErrDeviceLost) {
				t.Errorf("a download after the loss: %v, want ErrDeviceLost", err)
			}
			if !slices.Equal(out, poison) {
				t.Errorf("a failed download wrote into the caller's slice")
			}
			if _, err := ctx.NewBuffer(64, vk.DeviceLocal); !errors.Is(err, vk.ErrDeviceLost) {
				t.Errorf("NewBuffer after the loss: %v, want ErrDeviceLost", err)
			}
			clear()
			start := time.Now()
			ctx.Release() // waits for the copies still running; vktest checks the layer's messages
			t.Logf("Release took %v", time.Since(start).Round(time.Millisecond))
			if n := ctx.AllocatedBytes(); n != 0 {
				t.Errorf("%d bytes allocated after Release", n)
			}
		})
	}
}

// TestFaultAllocationInTransfer makes each vkAllocateMemory of an upload
// and a download through the staging buffer fail in turn: each failure
// returns ErrOutOfDeviceMemory, leaves AllocatedBytes where it was and the
// caller's slice untouched, and the next transfer succeeds.
func TestFaultAllocationInTransfer(t *testing.T) {
	vk.SetForceStaging(true)
	defer vk.SetForceStaging(false)
	ctx := vktest.Open(t)
	buf, err := ctx.NewBuffer(4096, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]uint32, 1024)
	for i := range data {
		data[i] = uint32(i) ^ 0x5A5A5A5A
	}
	original := slices.Clone(data)
	if err := vk.Upload(buf.All(), data); err != nil {
		t.Fatal(err)
	}
	poison := slices.Repeat([]uint32{0xDEADBEEF}, len(data))
	out := slices.Clone(poison)
	bufferIntact := func() error {
		if !slices.Equal(data, original) {
			return errors.New("the caller's slice changed")
		}
		got := make([]uint32, len(data))
		if err := vk.Download(buf.All(), got); err != nil {
			return err
		}
		if !slices.Equal(got, original) {
			return errors.New("the buffer changed")
		}
		return nil
	}
	for _, op := range []vktest.FaultOp{
		{Name: "vk.Upload", Before: func() { vk.DropStaging(ctx) }, Run: func() error {
			return vk.Upload(buf.All(), data)
		}, Untouched: bufferIntact},
		{Name: "vk.Download", Before: func() { vk.DropStaging(ctx) }, Run: func() error {
			copy(out, poison)
			err := vk.Download(buf.All(), out)
			if err == nil && !slices.Equal(out, original) {
				return errors.New("downloaded data differ")
			}
			return err
		}, Untouched: func() error {
			if !slices.Equal(out, poison) {
				return errors.New("a failed download wrote into the caller's slice")
			}
			return bufferIntact()
		}},
	} {
		vktest.FailEach(t, ctx, "vkAllocateMemory", faults.ErrorOutOfDeviceMemory, vk.ErrOutOfDeviceMemory, op)
	}
}
