// Package vulkango is an engine written on github.com/vulkan-go/vulkan
// that embeds vkcompact: the engine of package goki, generated from it
// with the binding's import path replaced (see internal/bindgen), beside
// binding_test.go, which holds what differs between the bindings. It has
// no code outside its tests.
package vulkango

//go:generate go run ../internal/bindgen -src ../goki -dst .
