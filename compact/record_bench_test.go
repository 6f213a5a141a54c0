package compact_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
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

// BenchmarkRecordSelectMoving is BenchmarkRecordSelect with the result
// block at a new offset every Record (65536 slots in turn: no range repeats within 65536 records), as an engine
// whose result blocks move each frame records: the dispatches that bind
// the result need a descriptor set of new ranges each time (allocated, or
// one of the idle sets rewritten). Each Submit callback records 64 runs
// and submits nothing, so the sets they held become idle.
func BenchmarkRecordSelectMoving(b *testing.B) {
	ctx := vktest.Open(b)
	const n, slots, batch = 1 << 20, 1 << 16, 64
	plan, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepNonZero()})
	if err != nil {
		b.Fatal(err)
	}
	align := max(ctx.Info().MinStorageBufferOffsetAlignment, 64)
	src, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	dst, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	res, _ := ctx.NewBuffer(slots*align, vk.DeviceLocal)
	scratch, err := ctx.NewBuffer(plan.ScratchSize(), vk.DeviceLocal)
	if err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for done := 0; done < b.N; {
		err = ctx.Submit(func(cb vk.CommandBuffer) error {
			for k := 0; k < batch && done < b.N; k, done = k+1, done+1 {
				bufs := compact.Buffers{Src: src.All(), Dst: dst.All(), Result: res.Range(uint64(done%slots)*align, compact.ResultSize), Scratch: scratch.All()}
				start := time.Now()
				r := pipeline.Record(cb)
				plan.Record(r, bufs)
				times = append(times, time.Since(start))
				if err := r.Err(); err != nil {
					return err
				}
			}
			return errNoSubmit
		})
		if !errors.Is(err, errNoSubmit) {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/record")
	b.ReportMetric(float64(ctx.DescriptorSets()), "sets")
}
