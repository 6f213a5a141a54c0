package vulkango

import "unsafe"

// What differs between the bindings (see ../goki/binding_test.go).

// bindingName names the engine's binding.
const bindingName = "vulkan-go/vulkan"

// hasSizeControl tells that the binding has
// VkPhysicalDeviceSubgroupSizeControlFeatures: vulkan-go/vulkan does not,
// so this engine creates its device without subgroup size control, and
// vkcompact's kernels rely on the driver's subgroups being full.
const hasSizeControl = false

// sizeControlFeatures is never called here (hasSizeControl is false).
func sizeControlFeatures() (next unsafe.Pointer, free func()) { return nil, func() {} }
