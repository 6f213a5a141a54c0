package goki

import (
	"unsafe"

	vkb "github.com/goki/vulkan"
)

// What differs between the bindings. The other files of this package are
// the engine's source; internal/testkit/enginetest/vulkango has them again,
// generated for github.com/vulkan-go/vulkan, beside a file like this one.

// bindingName names the engine's binding.
const bindingName = "goki/vulkan"

// soakHere runs TestSoak on this binding's engine: the soak runs here (the
// bindings record the same calls, and the soak takes a minute).
const soakHere = true

// hasSizeControl tells that the binding has
// VkPhysicalDeviceSubgroupSizeControlFeatures.
const hasSizeControl = true

// sizeControlFeatures returns a VkPhysicalDeviceSubgroupSizeControlFeatures
// enabling subgroupSizeControl and computeFullSubgroups, in the binding's C
// memory, and the function that frees it; call it inside withoutGC.
func sizeControlFeatures() (next unsafe.Pointer, free func()) {
	// The Vulkan 1.3 name of the EXT's structure: one sType serves both.
	f := &vkb.PhysicalDeviceSubgroupSizeControlFeatures{
		SType:                vkb.StructureTypePhysicalDeviceSubgroupSizeControlFeatures,
		SubgroupSizeControl:  vkb.True,
		ComputeFullSubgroups: vkb.True,
	}
	ref, _ := f.PassRef()
	return unsafe.Pointer(ref), f.Free
}
