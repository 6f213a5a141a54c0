// Package faults is vkcompact's test seam for Vulkan failures. Package vk
// asks it, before each Vulkan call that returns a VkResult, whether a test
// wants that call to fail on that context; a nonzero answer is returned in
// the call's place and the call is not made. Tests use it to make the Nth
// vkAllocateMemory of an operation fail, or vkQueueSubmit,
// vkWaitForFences and vkGetFenceStatus report VK_ERROR_DEVICE_LOST with
// work in flight. It is internal: programs cannot reach it, and with no
// hook set a call costs one atomic load.
package faults

import (
	"sync"
	"sync/atomic"
)

// Func decides a call's fate: 0 lets it run; anything else is the VkResult
// it returns instead.
type Func func(call string) int32

var (
	active atomic.Int32 // hooks set
	hooks  sync.Map     // owner -> Func
)

// Set makes f decide the calls of owner (a *vk.Context) until the
// returned function is called.
func Set(owner any, f Func) (clear func()) {
	hooks.Store(owner, f)
	active.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			hooks.Delete(owner)
			active.Add(-1)
		})
	}
}

// Result returns what the hook of owner says of call, 0 when there is none.
func Result(owner any, call string) int32 {
	if active.Load() == 0 {
		return 0
	}
	f, ok := hooks.Load(owner)
	if !ok {
		return 0
	}
	return f.(Func)(call)
}

// Nth returns a Func that fails the nth call named call (counting from 1)
// with result, and every later one when sticky is set; other calls run.
// Calls reports how many calls of that name it has seen.
func Nth(call string, n int, result int32, sticky bool) (f Func, calls func() int) {
	var seen atomic.Int64
	f = func(c string) int32 {
		if c != call {
			return 0
		}
		k := seen.Add(1)
		if k == int64(n) || sticky && k > int64(n) {
			return result
		}
		return 0
	}
	return f, func() int { return int(seen.Load()) }
}

// VkResult values the tests inject.
const (
	NotReady               int32 = 1 // VK_NOT_READY, of vkGetFenceStatus
	Timeout                int32 = 2 // VK_TIMEOUT, of vkWaitForFences
	ErrorOutOfDeviceMemory int32 = -2
	ErrorDeviceLost        int32 = -4
)
