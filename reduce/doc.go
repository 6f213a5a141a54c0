// Package reduce reduces arrays on Vulkan compute shaders.
package reduce
