package scan_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// errNoSubmit ends a Submit after recording, without submitting.
var errNoSubmit = errors.New("recorded only")

// BenchmarkRecordScan measures the CPU cost of recording one prefix sum
// (Plan.Record into a command buffer) on each path: the per-frame cost an
// engine pays. It reports the median time of one Record call. Nothing is
// submitted; the GPU runs nothing. Run it with VKCOMPACT_VALIDATE=0: the
// validation layer adds its own cost, and reports the back-to-back
// recordings (no barrier between them) as hazards.
func BenchmarkRecordScan(b *testing.B) {
	for _, c := range []struct {
		name string
		path vkcompact.Path
	}{{"three-phase", vkcompact.PathThreePhase}, {"single-pass", vkcompact.PathSinglePass}} {
		b.Run(c.name, func(b *testing.B) { benchmarkRecord(b, c.path) })
	}
}

func benchmarkRecord(b *testing.B, path vkcompact.Path) {
	ctx := vktest.Open(b)
	const n = 1 << 20
	plan, err := scan.NewPlan(ctx, n, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: scan.Options{Path: path}})
	if err != nil {
		b.Fatal(err)
	}
	src, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	dst, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	total, _ := ctx.NewBuffer(16, vk.DeviceLocal)
	scratch, err := ctx.NewBuffer(plan.ScratchSize(), vk.DeviceLocal)
	if err != nil {
		b.Fatal(err)
	}
	bufs := scan.Buffers{Src: src.All(), Dst: dst.All(), Total: total.Range(0, scan.TotalSize), Scratch: scratch.All()}
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
