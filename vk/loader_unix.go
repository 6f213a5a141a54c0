//go:build !windows && !darwin && !android

package vk

// loaderNames are the libraries tried, in order. Users have the versioned
// name from libvulkan1; the unversioned one comes only with libvulkan-dev.
var loaderNames = []string{"libvulkan.so.1", "libvulkan.so"}

// loaderHint says how to get the loader (ErrNoLoader).
const loaderHint = "install libvulkan1 (mesa-vulkan-drivers gives the lavapipe CPU driver)"

// validationHint says how to get the validation layer.
const validationHint = "on Debian: apt-get install vulkan-validationlayers"
