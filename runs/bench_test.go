package runs_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// BenchmarkEncodeLengths compares Encode's two ways of finding the
// lengths (Lengths: in the selection, or runs_finish after it) on 2^16
// uint32 keys whose next element starts a new run with probability keep,
// as the anchor's rle_u32 draws them: for each keep, the two alternate
// run by run (so that a shared machine's load falls on both alike), each
// run recorded, submitted and waited for (pipeline.Run). It reports each
// way's median wall time per run, and its median GPU time from the
// timestamps around its phases where the device has them. Every output
// is checked once against the Go reference first. Run it with
// VKCOMPACT_VALIDATE=0: the validation layer adds its own cost.
func BenchmarkEncodeLengths(b *testing.B) {
	ctx := vktest.Open(b)
	const n = 1 << 16
	ways := []runs.Lengths{runs.LengthsInSelection, runs.LengthsFinish}
	for _, keep := range []float64{0.1, 0.5, 0.9} {
		b.Run(fmt.Sprintf("keep=%v", keep), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(keep*100)))
			data := make([]uint32, n)
			for i := 1; i < n; i++ {
				data[i] = data[i-1]
				if rng.Float64() < keep {
					data[i]++
				}
			}
			wantRuns := int(data[n-1]) + 1
			type way struct {
				p     *runs.Plan
				b     runs.Buffers
				timer *vk.Timer
				wall  []time.Duration
				gpu   []float64
			}
			var ws []*way
			for _, l := range ways {
				p, err := runs.NewPlan(ctx, n, runs.Encoding{Lengths: l})
				if err != nil {
					b.Fatal(err)
				}
				w := &way{p: p}
				for _, r := range []*vk.Range{&w.b.Src, &w.b.Keys, &w.b.Lengths, &w.b.Result, &w.b.Scratch} {
					size := uint64(n * 4)
					switch r {
					case &w.b.Result:
						size = runs.ResultSize
					case &w.b.Scratch:
						size = p.ScratchSize()
					}
					*r = vktest.NewPoisoned(b, ctx, size).All()
				}
				if err := vk.Upload(w.b.Src, data); err != nil {
					b.Fatal(err)
				}
				if ctx.Info().TimestampValidBits != 0 {
					if w.timer, err = ctx.NewTimer(uint32(len(p.Phases()) + 1)); err != nil {
						b.Fatal(err)
					}
					defer w.timer.Release()
				}
				res, err := p.Run(w.b)
				if err != nil || int(res.Runs) != wantRuns {
					b.Fatalf("%v: %+v, %v; want %d runs", l, res, err, wantRuns)
				}
				lengths := make([]uint32, res.Runs)
				if err := vk.Download(w.b.Lengths.Sub(0, uint64(res.Runs)*4), lengths); err != nil {
					b.Fatal(err)
				}
				for j, i := 0, 0; j < wantRuns; j++ {
					start := i
					for i < n && data[i] == uint32(j) {
						i++
					}
					if lengths[j] != uint32(i-start) {
						b.Fatalf("%v: run %d has length %d, want %d", l, j, lengths[j], i-start)
					}
				}
				ws = append(ws, w)
			}
			b.ResetTimer()
			for range b.N {
				for _, w := range ws {
					start := time.Now()
					err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
						if w.timer != nil {
							w.timer.Reset(r.CommandBuffer())
							w.p.RecordTimed(r, w.b, w.timer)
						} else {
							w.p.Record(r, w.b)
						}
					})
					w.wall = append(w.wall, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					if w.timer != nil {
						ns, err := w.timer.Nanoseconds(0, w.timer.Count()-1)
						if err != nil {
							b.Fatal(err)
						}
						w.gpu = append(w.gpu, ns)
					}
				}
			}
			b.StopTimer()
			for i, w := range ws {
				slices.Sort(w.wall)
				name := []string{"in-selection", "finish"}[i]
				b.ReportMetric(float64(w.wall[len(w.wall)/2].Microseconds())/1000, name+"-wall-ms")
				if len(w.gpu) > 0 {
					slices.Sort(w.gpu)
					b.ReportMetric(w.gpu[len(w.gpu)/2]/1e6, name+"-gpu-ms")
				}
			}
		})
	}
}
