// Package vktest opens Vulkan contexts for tests: on the device
// VKCOMPACT_DEVICE names (lavapipe in CI), with the Khronos validation layer
// and synchronisation validation on, failing the test on any message the
// layer reports, leak reports at device destruction included.
package vktest

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/vk"
)

// InCI reports whether a missing Vulkan device or validation layer is a
// failure rather than a skip: in CI (CI set) and under the test script
// (VKCOMPACT_REQUIRE_DEVICE=1).
func InCI() bool { return os.Getenv("CI") != "" || os.Getenv("VKCOMPACT_REQUIRE_DEVICE") != "" }

// validationWanted is true unless VKCOMPACT_VALIDATE=0 turns it off.
func validationWanted() bool {
	v := strings.TrimSpace(os.Getenv("VKCOMPACT_VALIDATE"))
	return v != "0" && !strings.EqualFold(v, "false")
}

// Open opens a context for t and releases it when t ends. At the end it
// fails t if the validation layer reported anything. Without a Vulkan
// device it skips t, or fails it in CI.
func Open(t testing.TB) *vk.Context {
	t.Helper()
	return OpenOptions(t, vk.Options{})
}

// OpenOptions is Open with options; Validate is forced on unless
// VKCOMPACT_VALIDATE=0.
func OpenOptions(t testing.TB, opts vk.Options) *vk.Context {
	t.Helper()
	opts.Validate = opts.Validate || validationWanted()
	ctx, err := vk.Open(opts)
	if err != nil && opts.Validate && !InCI() && strings.Contains(err.Error(), "validation was requested") {
		t.Logf("running without validation: %v", err)
		opts.Validate = false
		ctx, err = vk.Open(opts)
	}
	if err != nil {
		if InCI() || !(errors.Is(err, vk.ErrNoLoader) || errors.Is(err, vk.ErrNoDevice)) {
			t.Fatalf("opening a Vulkan context: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	t.Cleanup(func() {
		ctx.Release()
		Check(t, ctx)
	})
	return ctx
}

// Check fails t for every validation message ctx has collected, and
// forgets them.
func Check(t testing.TB, ctx *vk.Context) {
	t.Helper()
	for _, m := range ctx.Messages() {
		t.Errorf("validation: %s", m)
	}
	ctx.ClearMessages()
}
