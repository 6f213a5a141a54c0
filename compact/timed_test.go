package compact_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestRecordTimed checks RecordTimed's stamps on both paths: Phases names
// three intervals on the three phases and two on the single pass; a timer
// of len(Phases())+1 queries has every one written, in order; a larger
// one has the rest left unwritten; a smaller one is refused, naming the
// queries needed.
func TestRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	if ctx.Info().TimestampValidBits == 0 {
		t.Skip("the queue has no timestamps")
	}
	const n = 10000
	src, err := ctx.NewBuffer(4*n, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	dst, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	defer dst.Release()
	res, _ := ctx.NewBuffer(compact.ResultSize, vk.DeviceLocal)
	defer res.Release()
	for _, c := range []struct {
		path vkcompact.Path
		want []string
	}{
		{vkcompact.PathThreePhase, []string{"count", "scan", "move"}},
		{vkcompact.PathSinglePass, []string{"clear", "pass"}},
	} {
		p, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepNonZero(), Options: compact.Options{Path: c.path}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Phases(); !slices.Equal(got, c.want) {
			t.Fatalf("%v: Phases %q, want %q", c.path, got, c.want)
		}
		scratch, err := ctx.NewBuffer(max(p.ScratchSize(), 16), vk.DeviceLocal)
		if err != nil {
			t.Fatal(err)
		}
		b := compact.Buffers{Src: src.All(), Dst: dst.All(), Result: res.All(), Scratch: scratch.Range(0, p.ScratchSize())}
		need := uint32(len(c.want) + 1)
		for _, queries := range []uint32{need - 1, need, need + 2} {
			timer, err := ctx.NewTimer(queries)
			if err != nil {
				t.Fatal(err)
			}
			err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
				timer.Reset(r.CommandBuffer())
				p.RecordTimed(r, b, timer)
			})
			switch {
			case queries < need:
				if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "queries") {
					t.Errorf("%v, a timer of %d queries: %v, want ErrInvalid naming the queries needed", c.path, queries, err)
				}
			case err != nil:
				t.Errorf("%v, a timer of %d queries: %v", c.path, queries, err)
			default:
				checkStamps(t, timer, need, c.path)
			}
			timer.Release()
		}
		scratch.Release()
	}
}

// checkStamps checks that queries 0 to need-1 of timer were written in
// order, and the others not.
func checkStamps(t *testing.T, timer *vk.Timer, need uint32, path vkcompact.Path) {
	t.Helper()
	for i := uint32(0); i < timer.Count(); i++ {
		ns, err := timer.Nanoseconds(0, i)
		if written := i < need; written != (err == nil) || ns < 0 {
			t.Errorf("%v, a timer of %d queries: query %d: %v ns, %v (want written %v)", path, timer.Count(), i, ns, err, written)
		}
	}
}
