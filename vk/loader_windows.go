package vk

// loaderNames are the libraries tried: the Vulkan loader that GPU drivers
// (and the Vulkan runtime, VulkanRT) install into System32.
var loaderNames = []string{"vulkan-1.dll"}

// loaderHint says how to get the loader (ErrNoLoader).
const loaderHint = "install your GPU's driver, which brings the Vulkan runtime (vulkan-1.dll), or the Vulkan runtime from LunarG; with no GPU, a CPU driver such as SwiftShader or Mesa's lavapipe built for Windows"

// validationHint says how to get the validation layer.
const validationHint = "it comes with the LunarG Vulkan SDK, which registers it"
