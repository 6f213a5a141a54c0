package vk

// loaderNames are the libraries tried: Android's loader. Untested here:
// no Android device or emulator runs in this project's CI.
var loaderNames = []string{"libvulkan.so"}

// loaderHint says how to get the loader (ErrNoLoader).
const loaderHint = "the device's Android has no Vulkan (it needs Android 7.0 or later with a Vulkan driver)"

// validationHint says how to get the validation layer.
const validationHint = "package libVkLayer_khronos_validation.so with the app"
