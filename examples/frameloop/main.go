// Command frameloop runs the calls an engine makes every frame, with the
// public API only, and reports the process's memory and the context's
// objects as it goes: an empty submission, a copy through pipeline.Run
// into a new offset, and a compaction through Plan.Run whose result block
// moves, every iteration. Every output is checked. After -warmup
// iterations it samples every -every iterations; it exits 1 when, from the
// first sample to the last, the resident memory grew by more than
// -max-rss-mib or the Go heap by more than -max-heap-mib, or an object
// count changed.
//
//	go run ./examples/frameloop -iterations 22000 -warmup 2000
//
// Each sample is one JSON line: iteration, seconds since the start,
// microseconds per iteration since the last sample, Go heap and resident
// bytes, the context's device memory and objects.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

const (
	n       = 4096 // elements compacted an iteration
	slots   = 97   // offsets the copy and the result block move through
	copyLen = 256  // bytes copied an iteration
)

type sample struct {
	Iteration   int     `json:"iteration"`
	Seconds     float64 `json:"seconds"`
	MicrosPer   float64 `json:"us_per_iteration"`
	HeapBytes   uint64  `json:"heap_bytes"`
	RSSBytes    uint64  `json:"rss_bytes"`
	DeviceBytes uint64  `json:"device_bytes"`
	Objects     string  `json:"objects"`
}

func main() {
	iterations := flag.Int("iterations", 22000, "iterations in all")
	warmup := flag.Int("warmup", 2000, "iterations before the first sample")
	every := flag.Int("every", 1000, "iterations between samples")
	maxRSS := flag.Float64("max-rss-mib", 4, "resident memory growth allowed from the first sample to the last, MiB")
	maxHeap := flag.Float64("max-heap-mib", 1, "Go heap growth allowed, MiB")
	device := flag.String("device", "", "device (index or name substring; default VKCOMPACT_DEVICE, then the best)")
	flag.Parse()
	if *iterations < 1 || *warmup < 0 || *warmup >= *iterations || *every < 1 {
		fmt.Fprintln(os.Stderr, "frameloop: want -iterations > -warmup >= 0 and -every > 0")
		os.Exit(2)
	}
	if err := run(*iterations, *warmup, *every, *maxRSS, *maxHeap, *device); err != nil {
		fmt.Fprintln(os.Stderr, "frameloop:", err)
		os.Exit(1)
	}
}

func run(iterations, warmup, every int, maxRSS, maxHeap float64, device string) error {
	ctx, err := vk.Open(vk.Options{Device: device})
	if err != nil {
		return err
	}
	defer ctx.Release()
	align := ctx.Info().MinStorageBufferOffsetAlignment
	stride := (max(copyLen, compact.ResultSize) + align - 1) / align * align // a slot
	data := make([]uint32, n)
	for i := range data {
		data[i] = uint32(i*2654435761) & 0xFF // about a 255th of them zero
	}
	want := slices.DeleteFunc(slices.Clone(data), func(v uint32) bool { return v == 0 })
	plan, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepNonZero()})
	if err != nil {
		return err
	}
	src, err := vk.NewBufferOf[uint32](ctx, n, vk.DeviceLocal)
	if err != nil {
		return err
	}
	dst, err := vk.NewBufferOf[uint32](ctx, n, vk.DeviceLocal)
	if err != nil {
		return err
	}
	copies, err := ctx.NewBuffer(slots*stride, vk.DeviceLocal)
	if err != nil {
		return err
	}
	results, err := ctx.NewBuffer(slots*stride, vk.DeviceLocal)
	if err != nil {
		return err
	}
	if err := vk.Upload(src.All(), data); err != nil {
		return err
	}
	got, gotCopy := make([]uint32, n), make([]uint32, copyLen/4)
	start, last := time.Now(), time.Now()
	var first, end sample
	for i := 0; i <= iterations; i++ {
		if i >= warmup && ((i-warmup)%every == 0 || i == iterations) {
			s, err := measure(ctx, i, start, last, every)
			if err != nil {
				return err
			}
			last = time.Now()
			line, _ := json.Marshal(s)
			fmt.Println(string(line))
			end = s
			if i == warmup {
				first = s
			} else if s.Objects != first.Objects {
				return fmt.Errorf("iteration %d: objects %s; at %d %s", i, s.Objects, first.Iteration, first.Objects)
			}
		}
		if i == iterations {
			break
		}
		slot := uint64(i%slots) * stride
		if err := ctx.Submit(func(vk.CommandBuffer) error { return nil }); err != nil {
			return fmt.Errorf("iteration %d: an empty submission: %w", i, err)
		}
		into := copies.Range(slot, copyLen)
		if err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
			transfer.RecordCopy(r, into, src.Range(0, copyLen), transfer.CopyOptions{})
		}); err != nil {
			return fmt.Errorf("iteration %d: pipeline.Run: %w", i, err)
		}
		res, err := plan.Run(compact.Buffers{Src: src.All(), Dst: dst.All(), Result: results.Range(slot, compact.ResultSize)})
		if err != nil {
			return fmt.Errorf("iteration %d: Plan.Run: %w", i, err)
		}
		if i%64 == 0 { // the outputs, read back now and then
			if err := vk.Download(into, gotCopy); err != nil || !slices.Equal(gotCopy, data[:copyLen/4]) {
				return fmt.Errorf("iteration %d: the copy differs (%v)", i, err)
			}
			if err := vk.Download(dst.All(), got); err != nil || !slices.Equal(got[:res.Kept], want) {
				return fmt.Errorf("iteration %d: the compaction differs (%v)", i, err)
			}
		}
		if int(res.Kept) != len(want) {
			return fmt.Errorf("iteration %d: %d kept, want %d", i, res.Kept, len(want))
		}
	}
	if msgs := ctx.Messages(); len(msgs) > 0 { // VKCOMPACT_VALIDATE=1
		return fmt.Errorf("the validation layer reported %d messages, the first: %s", len(msgs), msgs[0])
	}
	const mib = 1 << 20
	if d := float64(int64(end.RSSBytes-first.RSSBytes)) / mib; d > maxRSS {
		return fmt.Errorf("resident memory grew by %.2f MiB from iteration %d to %d (at most %g)", d, first.Iteration, iterations, maxRSS)
	}
	if d := float64(int64(end.HeapBytes-first.HeapBytes)) / mib; d > maxHeap {
		return fmt.Errorf("the Go heap grew by %.2f MiB from iteration %d to %d (at most %g)", d, first.Iteration, iterations, maxHeap)
	}
	return nil
}

func measure(ctx *vk.Context, i int, start, last time.Time, every int) (sample, error) {
	var ms runtime.MemStats
	runtime.GC()
	debug.FreeOSMemory()
	runtime.ReadMemStats(&ms)
	rss, err := resident()
	if err != nil {
		return sample{}, err
	}
	return sample{Iteration: i, Seconds: time.Since(start).Seconds(), MicrosPer: float64(time.Since(last).Microseconds()) / float64(every),
		HeapBytes: ms.HeapAlloc, RSSBytes: rss, DeviceBytes: ctx.AllocatedBytes(), Objects: fmt.Sprintf("%+v", ctx.Objects())}, nil
}

// resident reads the process's resident set size on Linux; elsewhere it
// reports 0, and -max-rss-mib checks nothing.
func resident() (uint64, error) {
	if runtime.GOOS != "linux" {
		return 0, nil
	}
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/self/statm: %q", b)
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize()), err
}
