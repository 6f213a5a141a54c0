package vk_test

import (
	"errors"
	"slices"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// TestDeviceRequirements asks what an engine must enable on the test
// device: nothing missing; push descriptors offered (not listed) where the
// device has them, and the subgroup size control extension only below
// Vulkan 1.3.
func TestDeviceRequirements(t *testing.T) {
	ctx := vktest.Open(t)
	h := vk.OwnedHandles(ctx)
	if _, err := vk.DeviceRequirements(nil, h.PhysicalDevice, 0); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("nil instance: %v", err)
	}
	r, err := vk.DeviceRequirements(h.Instance, h.PhysicalDevice, h.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	if r.APIVersion != 1<<22|1<<12 {
		t.Errorf("APIVersion %#x, want 1.1", r.APIVersion)
	}
	if slices.Contains(r.Extensions, "VK_KHR_push_descriptor") || r.PushDescriptor != ctx.Info().PushDescriptor {
		t.Errorf("extensions %v, PushDescriptor %v: want the extension offered as PushDescriptor (the device has it: %v), not listed",
			r.Extensions, r.PushDescriptor, ctx.Info().PushDescriptor)
	}
	if len(r.Missing) != 0 {
		t.Errorf("the test device lacks %v", r.Missing)
	}
	if r.SubgroupSizeControl != ctx.Info().SubgroupSizeControl {
		t.Errorf("SubgroupSizeControl %v, the context says %v", r.SubgroupSizeControl, ctx.Info().SubgroupSizeControl)
	}
	if r.ShaderInt64 != ctx.Info().ShaderInt64 {
		t.Errorf("ShaderInt64 %v, the device has it: %v", r.ShaderInt64, ctx.Info().ShaderInt64)
	}
	if !slices.Equal(r.SubgroupOperations, []string{"basic", "ballot", "arithmetic"}) {
		t.Errorf("subgroup operations %v", r.SubgroupOperations)
	}
	if p, err := vk.LoaderProcAddr(); err != nil || p == nil {
		t.Errorf("LoaderProcAddr: %v, %v", p, err)
	}
}

// TestSubgroupSizeControlFeatures reads back the structure a binding
// without one chains into VkDeviceCreateInfo (the vulkan-go engine's tests
// create a device with it).
func TestSubgroupSizeControlFeatures(t *testing.T) {
	next := vk.OwnedHandles(vktest.Open(t)).Device // any C pointer
	p, free := vk.SubgroupSizeControlFeatures(next)
	defer free()
	type features struct { // VkPhysicalDeviceSubgroupSizeControlFeatures
		sType                int32
		pNext                unsafe.Pointer
		sizeControl, fullSub uint32
	}
	f := (*features)(p)
	if f.sType != 1000225002 || f.pNext != next || f.sizeControl != 1 || f.fullSub != 1 {
		t.Errorf("got %+v, want sType 1000225002, pNext %p, both features 1", *f, next)
	}
	free() // a second call is harmless
}

// TestWrapBuffer wraps a buffer as an engine's own: the library reads and
// writes it, and releasing the wrapper (or the wrapping context) leaves it
// alive for its owner.
func TestWrapBuffer(t *testing.T) {
	ctx := vktest.Open(t)
	own, err := ctx.NewBuffer(1024, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	borrower, err := vk.Borrow(vk.OwnedHandles(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := borrower.WrapBuffer(nil, 16); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("WrapBuffer(nil): %v", err)
	}
	if _, err := borrower.WrapBuffer(own.Handle(), 0); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("WrapBuffer of 0 bytes: %v", err)
	}
	w, err := borrower.WrapBuffer(own.Handle(), own.Size())
	if err != nil {
		t.Fatal(err)
	}
	if !w.Borrowed() || own.Borrowed() {
		t.Errorf("Borrowed: wrapper %v, owner's %v", w.Borrowed(), own.Borrowed())
	}
	want := make([]uint32, 256)
	for i := range want {
		want[i] = uint32(i*7 + 1)
	}
	if err := vk.Upload(w.All(), want); err != nil {
		t.Fatal(err)
	}
	w.Release()
	if err := vk.Upload(w.Range(0, 16), want[:4]); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("upload after Release of the wrapper: %v", err)
	}
	w2, err := borrower.WrapBuffer(own.Handle(), own.Size())
	if err != nil {
		t.Fatal(err)
	}
	_ = w2
	borrower.Release() // forgets w2 without destroying the owner's buffer
	got := make([]uint32, 256)
	if err := vk.Download(own.All(), got); err != nil {
		t.Fatalf("the owner's buffer after the borrower's Release: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Fatal("the data written through the wrapper differ")
	}
}
