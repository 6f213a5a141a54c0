package compact_test

import (
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestFrameLoopAllocatesNothing records an engine's frame, a compaction
// and a sort of the kept values counted on the GPU, over the same plans and
// buffers frame after frame, with push descriptors where the device has
// them and with descriptor sets: after the first frame, no frame adds a
// descriptor set, device memory or Go heap (beyond 1 MiB over the whole
// loop), and every frame's output matches the Go reference.
func TestFrameLoopAllocatesNothing(t *testing.T) {
	for _, push := range []bool{false, true} {
		name := "sets"
		if push {
			name = "push"
		}
		t.Run(name, func(t *testing.T) {
			ctx := vktest.OpenOptions(t, vk.Options{PushDescriptors: push})
			if push != ctx.PushDescriptors() {
				if push && !ctx.Info().PushDescriptor {
					t.Skip("the device has no VK_KHR_push_descriptor")
				}
				if !push && os.Getenv("VKCOMPACT_PUSH_DESCRIPTORS") == "1" {
					t.Skip("VKCOMPACT_PUSH_DESCRIPTORS=1 asks for push descriptors")
				}
				t.Fatalf("Options.PushDescriptors %v, but the context pushes: %v", push, ctx.PushDescriptors())
			}
			frameLoop(t, ctx, 30)
		})
	}
}

func frameLoop(t *testing.T, ctx *vk.Context, frames int) {
	const n = 5000
	rng := vktest.Rand(t)
	keep, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepNonZero()})
	if err != nil {
		t.Fatal(err)
	}
	sorter, err := radix.NewPlan(ctx, n, radix.Sort{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := vktest.NewPoisoned(t, ctx, 4*n), vktest.NewPoisoned(t, ctx, 4*n)
	result, scratch := vktest.NewPoisoned(t, ctx, compact.ResultSize), vktest.NewPoisoned(t, ctx, keep.ScratchSize())
	sortScratch := vktest.NewPoisoned(t, ctx, sorter.ScratchSize())
	record := func(r *pipeline.Recorder) {
		keep.Record(r, compact.Buffers{Src: src.All(), Dst: dst.All(), Result: result.All(), Scratch: scratch.All()})
		sorter.Record(r, radix.Buffers{Keys: dst.All(), Scratch: sortScratch.All(), Count: result.Range(compact.ResultKeptOffset, 4)})
	}
	var ms runtime.MemStats
	measure := func() (heap uint64, device uint64, sets int) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc, ctx.AllocatedBytes(), ctx.DescriptorSets()
	}
	var heap0, dev0 uint64
	var sets0 int
	data, poison := make([]uint32, n), make([]uint32, n)
	for i := range poison {
		poison[i] = 0xDEADBEEF
	}
	for f := range frames {
		for i := range data {
			data[i] = rng.Uint32() & 0xff // about 1 in 256 zero
		}
		if err := vk.Upload(src.All(), data); err != nil {
			t.Fatal(err)
		}
		if err := vk.Upload(dst.All(), poison); err != nil {
			t.Fatal(err)
		}
		if err := pipeline.Run(ctx, record); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
		got := make([]uint32, n)
		if err := vk.Download(dst.All(), got); err != nil {
			t.Fatal(err)
		}
		want := slices.DeleteFunc(slices.Clone(data), func(v uint32) bool { return v == 0 })
		slices.Sort(want)
		want = append(want, poison[len(want):]...)
		if !slices.Equal(got, want) {
			t.Fatalf("frame %d: the sorted kept values differ from the reference", f)
		}
		if f == 0 {
			heap0, dev0, sets0 = measure()
			t.Logf("after the first frame: Go heap %d bytes, device memory %d bytes, %d descriptor sets", heap0, dev0, sets0)
			if ctx.PushDescriptors() != (sets0 == 0) {
				t.Errorf("%d descriptor sets with push descriptors %v", sets0, ctx.PushDescriptors())
			}
		}
	}
	heap, dev, sets := measure()
	t.Logf("after %d frames: Go heap %d bytes, device memory %d bytes, %d descriptor sets", frames, heap, dev, sets)
	if sets != sets0 || dev != dev0 {
		t.Errorf("descriptor sets %d -> %d, device memory %d -> %d bytes: a frame allocated", sets0, sets, dev0, dev)
	}
	if heap > heap0+1<<20 {
		t.Errorf("Go heap grew from %d to %d bytes over %d frames", heap0, heap, frames)
	}
	// Releasing a buffer frees the descriptor sets that name it.
	if sets0 > 0 {
		dst.Release()
		if left := ctx.DescriptorSets(); left >= sets0 {
			t.Errorf("%d descriptor sets after releasing a buffer all frames used, %d before", left, sets0)
		}
	}
}
