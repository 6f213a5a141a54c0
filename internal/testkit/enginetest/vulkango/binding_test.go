package vulkango

import "unsafe"

// What differs between the bindings (see ../goki/binding_test.go).

// bindingName names the engine's binding.
const bindingName = "vulkan-go/vulkan"

// soakHere runs TestSoak on this binding's engine: the soak runs on goki's engine only (the
// bindings record the same calls, and the soak takes a minute).
const soakHere = false

// hasSizeControl tells that the binding has
// VkPhysicalDeviceSubgroupSizeControlFeatures: vulkan-go/vulkan does not,
// so this engine creates its device without subgroup size control, and
// vkcompact's kernels rely on the driver's subgroups being full.
const hasSizeControl = false

// sizeControlFeatures is never called here (hasSizeControl is false).
func sizeControlFeatures() (next unsafe.Pointer, free func()) { return nil, func() {} }
