package compact_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
	"github.com/vkcompact/vkcompact/vk/vktest"
)

// errNoSubmit ends a Submit after recording, without submitting.
var errNoSubmit = errors.New("recorded only")

// BenchmarkRecordSelect measures the CPU cost of recording one compaction
// (Plan.Record into a command buffer): the per-frame cost an engine pays.
// It reports the median time of one Record call. Nothing is submitted; the GPU runs nothing. Run it with
// VKCOMPACT_VALIDATE=0: the validation layer adds its own cost, and reports
// the back-to-back recordings (no barrier between them) as hazards.
func BenchmarkRecordSelect(b *testing.B) {
	ctx := vktest.Open(b)
	const n = 1 << 20
	plan, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepNonZero()})
	if err != nil {
		b.Fatal(err)
	}
	src, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	dst, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	res, _ := ctx.NewBuffer(compact.ResultSize, vk.DeviceLocal)
	scratch, err := ctx.NewBuffer(plan.ScratchSize(), vk.DeviceLocal)
	if err != nil {
		b.Fatal(err)
	}
	bufs := compact.Buffers{Src: src.All(), Dst: dst.All(), Result: res.All(), Scratch: scratch.All()}
	err = ctx.Submit(func(cb vk.CommandBuffer) error {
		times := make([]time.Duration, b.N)
		b.ResetTimer()
		for i := range b.N {
			start := time.Now()
			r := pipeline.Record(cb)
			plan.Record(r, bufs)
			times[i] = time.Since(start)
			if err := r.Err(); err != nil {
				return err
			}
		}
		b.StopTimer()
		slices.Sort(times)
		b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/record")
		return errNoSubmit
	})
	if !errors.Is(err, errNoSubmit) {
		b.Fatal(err)
	}
}
