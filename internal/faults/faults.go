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
	"errors"
	"sync"
	"sync/atomic"
	"testing"
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

// Op is an operation run under faults: Run returns its error, having
// checked its output against a reference when it succeeds; Untouched
// reports what of the caller's inputs and outputs a failed run changed
// (nil when nothing).
type Op struct {
	Name      string
	Before    func() // when set, runs before each run, before AllocatedBytes is read
	Run       func() error
	Untouched func() error
}

// Context is what FailEach needs of a *vk.Context.
type Context interface{ AllocatedBytes() uint64 }

// FailEach runs op once, then with its first call named call failing with
// result, then its second, and so on until op makes fewer such calls and
// succeeds. Each failure must return an error matching want, leave the
// context's AllocatedBytes as it was and the caller's buffers untouched;
// the context must stay usable for the next run. It fails t when op makes
// no such call at all.
func FailEach(t testing.TB, ctx Context, call string, result int32, want error, op Op) {
	t.Helper()
	if err := op.Run(); err != nil { // pipelines, and the staging buffer where there is one
		t.Fatalf("%s: %v", op.Name, err)
	}
	failed := 0
	for k := 1; ; k++ {
		if op.Before != nil {
			op.Before()
		}
		start := ctx.AllocatedBytes()
		f, calls := Nth(call, k, result, false)
		clear := Set(ctx, f)
		err := op.Run()
		clear()
		if calls() < k {
			if err != nil {
				t.Fatalf("%s with no fault: %v", op.Name, err)
			}
			break
		}
		failed++
		if !errors.Is(err, want) {
			t.Errorf("%s, %s %d failing: %v, want an error matching %v", op.Name, call, k, err, want)
		}
		if n := ctx.AllocatedBytes(); n != start {
			t.Errorf("%s, %s %d failing: %d bytes allocated after, %d before", op.Name, call, k, n, start)
		}
		if err := op.Untouched(); err != nil {
			t.Errorf("%s, %s %d failing: %v", op.Name, call, k, err)
		}
	}
	t.Logf("%s: each of its %d %s calls failed in turn", op.Name, failed, call)
	if failed == 0 {
		t.Errorf("%s made no %s call: the faults tested nothing", op.Name, call)
	}
}
