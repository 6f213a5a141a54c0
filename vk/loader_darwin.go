package vk

// loaderNames are the libraries tried: the Vulkan SDK's loader, then
// MoltenVK itself. Untested here: no macOS machine runs in this project's
// CI. MoltenVK is a portability implementation: an instance must enable
// VK_KHR_portability_enumeration (and set its create flag) to see it
// through the loader, and devices expose VK_KHR_portability_subset.
var loaderNames = []string{"libvulkan.1.dylib", "libvulkan.dylib", "libMoltenVK.dylib"}

// loaderHint says how to get the loader (ErrNoLoader).
const loaderHint = "install the Vulkan SDK (LunarG), which brings the loader and MoltenVK, or MoltenVK from Homebrew (brew install molten-vk vulkan-loader)"

// validationHint says how to get the validation layer.
const validationHint = "it comes with the LunarG Vulkan SDK"
