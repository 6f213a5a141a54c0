package vktest

import (
	"errors"
	"testing"

	"github.com/vkcompact/vkcompact/internal/faults"
)

// FaultOp is an operation run under faults: Run returns its error, having
// checked its output against a reference when it succeeds; Untouched
// reports what of the caller's inputs and outputs a failed run changed
// (nil when nothing).
type FaultOp struct {
	Name      string
	Before    func() // when set, runs before each run, before AllocatedBytes is read
	Run       func() error
	Untouched func() error
}

// FaultContext is what FailEach needs of a *vk.Context.
type FaultContext interface{ AllocatedBytes() uint64 }

// FailEach runs op once, then with its first call named call failing with
// result (through the internal/faults seam), then its second, and so on
// until op makes fewer such calls and succeeds. Each failure must return
// an error matching want, leave the context's AllocatedBytes as it was
// and the caller's buffers untouched; the context must stay usable for
// the next run. It fails t when op makes no such call at all.
func FailEach(t testing.TB, ctx FaultContext, call string, result int32, want error, op FaultOp) {
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
		f, calls := faults.Nth(call, k, result, false)
		clear := faults.Set(ctx, f)
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
