package vktest

import (
	"sync"
	"testing"

	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/vk"
)

// HoldInFlight makes ctx's library submissions look still running to the
// library, through the fault seam: the next waits of its submissions
// (vkWaitForFences; waits times, at least one) time out, and every poll
// of a fence (vkGetFenceStatus) reports it not ready, until the returned
// function is called; the GPU runs the work meanwhile as usual. A test of
// what a timed-out wait leaves behind (work in flight, retired objects,
// staging that must not be reused) then depends on nothing the driver
// does: a CPU driver on a busy machine once finished a 32 MiB copy before
// a zero-timeout wait three times in a row. What it holds is not really
// in flight: the work may have finished long before the library is let
// see it, so a test of what must not happen while work runs (an object
// destroyed, a submission reused) holds real work with Spin instead. The
// function is idempotent, and called when t ends.
func HoldInFlight(t testing.TB, ctx *vk.Context, waits int) (release func()) {
	t.Helper()
	var mu sync.Mutex
	left := max(waits, 1)
	clear := faults.Set(ctx, func(call string) int32 {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case call == "vkWaitForFences" && left > 0:
			left--
			return faults.Timeout
		case call == "vkGetFenceStatus":
			return faults.NotReady
		}
		return 0
	})
	t.Cleanup(clear)
	return clear
}
