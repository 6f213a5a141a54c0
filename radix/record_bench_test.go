package radix_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// errNoSubmit ends a Submit after recording, without submitting.
var errNoSubmit = errors.New("recorded only")

// BenchmarkRecordSort measures the CPU cost of recording one sort of
// key-value pairs (Plan.Record into a command buffer). Nothing is
// submitted; the GPU runs nothing. Run it with VKCOMPACT_VALIDATE=0: the
// validation layer adds its own cost, and reports the back-to-back
// recordings (no barrier between them) as hazards.
func BenchmarkRecordSort(b *testing.B) { benchmarkRecord(b, radix.Sort{Values: true}) }

// BenchmarkRecordSortSinglePass is BenchmarkRecordSort on the single pass.
func BenchmarkRecordSortSinglePass(b *testing.B) {
	benchmarkRecord(b, radix.Sort{Values: true, Options: radix.Options{Path: vkcompact.PathSinglePass, DigitBits: 6}})
}

func benchmarkRecord(b *testing.B, s radix.Sort) {
	ctx := vktest.Open(b)
	const n = 1 << 20
	plan, err := radix.NewPlan(ctx, n, s)
	if err != nil {
		b.Fatal(err)
	}
	keys, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	vals, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	keysOut, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	valsOut, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	scratch, err := ctx.NewBuffer(plan.ScratchSize(), vk.DeviceLocal)
	if err != nil {
		b.Fatal(err)
	}
	bufs := radix.Buffers{Keys: keys.All(), Values: vals.All(), KeysOut: keysOut.All(), ValuesOut: valsOut.All(), Scratch: scratch.All()}
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
