// Package vktest opens Vulkan contexts for tests: on the device
// VKCOMPACT_DEVICE names (lavapipe in CI), with the Khronos validation layer
// and synchronisation validation on, failing the test on any message the
// layer reports, leak reports at device destruction included.
package vktest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vkcompact/vkcompact/vk"
)

// init turns the persistent pipeline cache off for every test binary
// that uses the kit, unless VKCOMPACT_PIPELINE_CACHE says otherwise: tests
// never write into the user's cache directory, and each keeps its
// object counts and compile times as they were. The cache's own tests
// point it at temporary directories.
func init() {
	if os.Getenv("VKCOMPACT_PIPELINE_CACHE") == "" {
		os.Setenv("VKCOMPACT_PIPELINE_CACHE", vk.PipelineCacheOff)
	}
}

// InCI reports whether a missing Vulkan device or validation layer is a
// failure rather than a skip: in CI (CI set) and under the test script
// (VKCOMPACT_REQUIRE_DEVICE=1).
func InCI() bool { return os.Getenv("CI") != "" || os.Getenv("VKCOMPACT_REQUIRE_DEVICE") != "" }

// ValidationWanted is true unless VKCOMPACT_VALIDATE=0 turns the layer off
// (the Windows leg does: under Wine the loader offers no layers). Tests of
// what the layer reports skip without it.
func ValidationWanted() bool { return validationWanted() }

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

// shared is the test binary's shared context (Shared), opened on first
// use and released by Main.
var shared struct {
	sync.Mutex
	opened bool
	ctx    *vk.Context
	err    error
}

// Shared returns the context the tests of one test binary share, opened
// on first use as Open opens one: tests that use it reuse its compiled
// pipelines (on CPU drivers compiling them is most of a test's time:
// SwiftShader takes about a second a pipeline). At its end t fails for
// every message the validation layer reported during t. Main releases the
// context after the last test, and fails the run for any message its
// release reports (leaks). A test that changes context-wide state (fault
// injection, options, Release) opens its own with Open.
func Shared(t testing.TB) *vk.Context {
	t.Helper()
	shared.Lock()
	if !shared.opened {
		shared.opened = true
		opts := vk.Options{Validate: validationWanted()}
		shared.ctx, shared.err = vk.Open(opts)
		if shared.err != nil && opts.Validate && !InCI() && strings.Contains(shared.err.Error(), "validation was requested") {
			t.Logf("running without validation: %v", shared.err)
			opts.Validate = false
			shared.ctx, shared.err = vk.Open(opts)
		}
	}
	ctx, err := shared.ctx, shared.err
	shared.Unlock()
	if err != nil {
		if InCI() || !(errors.Is(err, vk.ErrNoLoader) || errors.Is(err, vk.ErrNoDevice)) {
			t.Fatalf("opening a Vulkan context: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	Check(t, ctx) // nothing is left from before; a message here is t's
	t.Cleanup(func() { Check(t, ctx) })
	return ctx
}

// Main runs a test binary's tests (from its TestMain), then releases the
// shared context, if a test opened it, and fails the run for every
// message the validation layer reported since the last test's check
// (objects left at device destruction among them). It returns the exit
// code.
func Main(m *testing.M) int {
	code := m.Run()
	shared.Lock()
	defer shared.Unlock()
	if ctx := shared.ctx; ctx != nil {
		ctx.Release()
		for _, msg := range ctx.Messages() {
			fmt.Fprintf(os.Stderr, "validation, at the shared context's release: %s\n", msg)
			code = 1
		}
		shared.ctx, shared.err, shared.opened = nil, nil, false
	}
	return code
}

// Short reports whether t should run its short form: in -short mode
// (CI's legs other than lavapipe at subgroup size 4) or under the race
// detector, whose Go references of millions of elements take minutes.
// A short form still runs every kernel, path and type the full one
// runs, on fewer sizes and fewer of their combinations.
func Short() bool { return testing.Short() || Race }

// Large skips t, a test of inputs past one binding (tens of millions of
// elements, seconds of Go reference each), in the short form (Short):
// CI runs it once, on lavapipe at subgroup size 4.
func Large(t testing.TB) {
	t.Helper()
	if Short() {
		t.Skip("past one binding: run in the full form only (not -short, not -race)")
	}
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
