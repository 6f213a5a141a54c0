// Package goki is an engine written on github.com/goki/vulkan that embeds
// vkcompact (see package enginetest). Its test files are the engine's
// source: package vulkango is generated from them. It has no code outside
// its tests.
package goki
