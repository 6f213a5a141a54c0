package goki

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"unsafe"

	vkb "github.com/goki/vulkan"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// Frames in flight: the engine keeps two frames on the GPU at once, each
// in a command buffer of its own with a fence, hands the library each
// fence as it submits (Context.Submitted), and never calls Completed.

// submitNoWait ends the recording and submits the command buffer with its
// fence, without waiting.
func (c *commands) submitNoWait(t testing.TB, e *engine) {
	t.Helper()
	if r := vkb.EndCommandBuffer(c.cmd); r != vkb.Success {
		t.Fatalf("vkEndCommandBuffer: %d", r)
	}
	submits := []vkb.SubmitInfo{{
		SType:              vkb.StructureTypeSubmitInfo,
		CommandBufferCount: 1,
		PCommandBuffers:    []vkb.CommandBuffer{c.cmd},
	}}
	var r vkb.Result
	withoutGC(func() { r = vkb.QueueSubmit(e.queue, 1, submits, c.fence) })
	if r != vkb.Success {
		t.Fatalf("vkQueueSubmit: %d", r)
	}
}

// wait waits for the command buffer's last submission.
func (c *commands) wait(t testing.TB, e *engine) {
	t.Helper()
	const timeout = 2 * 60 * 1e9 // ns
	if r := vkb.WaitForFences(e.device, 1, []vkb.Fence{c.fence}, vkb.True, timeout); r != vkb.Success {
		t.Fatalf("vkWaitForFences: %d", r)
	}
}

// framesRig is the engine's two frames and the buffers they move through:
// every frame compacts soakN particles from a slot of a ring and sorts the
// survivors by cell, into output slots no recent frame used, so that each
// frame binds buffer ranges the frame before it did not.
type framesRig struct {
	e                          *engine
	ctx                        *vk.Context
	frames                     [2]*commands
	plan                       *compact.Plan
	sort                       *radix.StructPlan
	slot, resultSlot           uint64
	ring, out, sorted, results *buffer
	vRing, vOut, vSorted, vRes *vk.Buffer
	scratch, sortScr           [2]*vk.Buffer // one per frame in flight
	want                       [2][]soakParticle
	wantSorted                 [2][]soakParticle
	ringOff, outOff, sortedOff [2]uint64
	resultOff                  [2]uint64
	submitted                  [2]bool
	lastFrame                  [2]int
}

// Slots of the moving ranges, pairwise prime.
const framesRing, framesOut, framesSorted, framesResults = 7, 5, 3, 11

func newFramesRig(t *testing.T, e *engine, ctx *vk.Context) *framesRig {
	f := &framesRig{e: e, ctx: ctx}
	align := max(e.minAlign, 16)
	f.slot = (soakBytes + align - 1) / align * align
	f.resultSlot = (compact.ResultSize + align - 1) / align * align
	var err error
	sel := compact.Selection{Elem: vkcompact.Struct(16, 0, vkcompact.Float32), Keep: compact.KeepIf(compact.Greater, compact.Float(0))}
	if f.plan, err = compact.NewPlan(ctx, soakN, sel); err != nil {
		t.Fatal(err)
	}
	f.sort, err = radix.NewStructPlan(ctx, soakN, radix.StructSort{Elem: vkcompact.Struct(16, 12, vkcompact.Uint32), EndBit: 4, Options: radix.Options{DigitBits: 4}})
	if err != nil {
		t.Fatal(err)
	}
	wrap := func(b *buffer) *vk.Buffer {
		w, err := ctx.WrapBuffer(unsafe.Pointer(b.handle), b.size)
		if err != nil {
			t.Fatalf("WrapBuffer: %v", err)
		}
		return w
	}
	f.ring = e.newBuffer(t, framesRing*f.slot, storageUsage, hostMemory)
	f.out = e.newBuffer(t, framesOut*f.slot, storageUsage, hostMemory)
	f.sorted = e.newBuffer(t, framesSorted*f.slot, storageUsage, hostMemory)
	f.results = e.newBuffer(t, framesResults*f.resultSlot, indirectUsage, hostMemory)
	f.vRing, f.vOut, f.vSorted, f.vRes = wrap(f.ring), wrap(f.out), wrap(f.sorted), wrap(f.results)
	for k := range f.frames {
		f.frames[k] = e.newCommands(t)
		f.scratch[k] = wrap(e.newBuffer(t, f.plan.ScratchSize(), indirectUsage, deviceMemory))
		f.sortScr[k] = wrap(e.newBuffer(t, f.sort.ScratchSize(), indirectUsage, deviceMemory))
	}
	return f
}

// record begins frame i in command buffer i%2 (whose last submission has
// completed), fills its input and poisons its outputs, and records the
// compaction and the struct sort of the survivors into it.
func (f *framesRig) record(t *testing.T, i int, rng *rand.Rand) *commands {
	k := i % 2
	c := f.frames[k]
	f.e.resetCommands(t, c)
	c.begin(t)
	f.ringOff[k] = uint64(i%framesRing) * f.slot
	f.outOff[k] = uint64(i%framesOut) * f.slot
	f.sortedOff[k] = uint64(i%framesSorted) * f.slot
	f.resultOff[k] = uint64(i%framesResults) * f.resultSlot
	in := particlesAt(f.ring, f.ringOff[k])
	for j := range in {
		in[j] = soakParticle{X: float32(rng.IntN(2048)-1024) / 1024, Y: rng.Float32(), Z: float32(j), Cell: uint32(rng.IntN(16))}
	}
	f.want[k], f.wantSorted[k] = soakReference(in)
	for _, b := range [][]byte{bytesOf(f.out, f.outOff[k], soakBytes), bytesOf(f.sorted, f.sortedOff[k], soakBytes),
		bytesOf(f.results, f.resultOff[k], compact.ResultSize)} {
		for j := range b {
			b[j] = 0xAB
		}
	}
	cmd := unsafe.Pointer(c.cmd)
	out := f.vOut.Range(f.outOff[k], soakBytes)
	result := f.vRes.Range(f.resultOff[k], compact.ResultSize)
	r := pipeline.Record(f.ctx.Wrap(cmd))
	f.plan.Record(r, compact.Buffers{Src: f.vRing.Range(f.ringOff[k], soakBytes), Dst: out, Result: result, Scratch: f.scratch[k].All()})
	if err := r.Err(); err != nil {
		t.Fatalf("frame %d: recording the compaction: %v", i, err)
	}
	memoryBarrier(c.cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageComputeShaderBit,
		vkb.AccessShaderWriteBit, vkb.AccessShaderReadBit|vkb.AccessShaderWriteBit)
	r = pipeline.Record(f.ctx.Wrap(cmd))
	f.sort.Record(r, radix.StructBuffers{Src: out, Dst: f.vSorted.Range(f.sortedOff[k], soakBytes), Scratch: f.sortScr[k].All(), Count: result.Sub(compact.ResultKeptOffset, 4)})
	if err := r.Err(); err != nil {
		t.Fatalf("frame %d: recording the sort: %v", i, err)
	}
	memoryBarrier(c.cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageHostBit, vkb.AccessShaderWriteBit, vkb.AccessHostReadBit)
	f.lastFrame[k] = i
	return c
}

// check waits for the frame in command buffer k and checks its outputs.
func (f *framesRig) check(t *testing.T, k int) {
	t.Helper()
	if !f.submitted[k] {
		return
	}
	f.frames[k].wait(t, f.e)
	f.submitted[k] = false
	i := f.lastFrame[k]
	kw := unsafe.Slice((*uint32)(unsafe.Add(f.results.mapped, f.resultOff[k]+compact.ResultKeptOffset)), 3)
	if kw[0] != uint32(len(f.want[k])) || kw[2] != soakN {
		t.Fatalf("frame %d: the result block says %d of %d kept; want %d of %d", i, kw[0], kw[2], len(f.want[k]), soakN)
	}
	checkOut(t, i, "the compaction", f.out, f.outOff[k], f.want[k])
	checkOut(t, i, "the struct sort", f.sorted, f.sortedOff[k], f.wantSorted[k])
}

// TestFramesInFlight runs 400 frames (120 in the short form), two in
// flight at once, each frame's compaction and struct sort recorded into
// the engine's command buffer over ranges that move every frame, each
// submission reported with Submitted and Completed never called (an
// engine that forgets it): every frame's outputs are right, no
// validation message, and, after the first 60 frames, every object count
// of the context stays as it was, the command buffers it knows at most
// two and the descriptor sets held at most two frames' worth. Then the
// engine releases the context with both last frames still in flight.
func TestFramesInFlight(t *testing.T) {
	frames := 400
	if vktest.Short() {
		frames = 120
	}
	e := newEngine(t, vkb.MakeVersion(1, 1, 0), false) // descriptor sets, not push descriptors
	ctx := e.borrow(t)
	f := newFramesRig(t, e, ctx)
	rng := vktest.Rand(t)
	failOnReports(t, "setting up")
	// By frame 60 the idle sets have reached their bound (256) and are
	// rewritten for new ranges from then on.
	const warm = 60
	var first vk.ObjectCounts
	for i := range frames {
		k := i % 2
		f.check(t, k) // frame i-2, in the same command buffer
		c := f.record(t, i, rng)
		c.submitNoWait(t, e)
		f.submitted[k] = true
		if err := ctx.Submitted(unsafe.Pointer(c.cmd), unsafe.Pointer(c.fence)); err != nil {
			t.Fatalf("frame %d: Submitted: %v", i, err)
		}
		o := ctx.Objects()
		if o.WrappedCommandBuffers > 2 || o.HeldDescriptorSets > 2*maxSetsPerFrame {
			t.Fatalf("frame %d: %d command buffers known, %d descriptor sets held; want at most 2 and %d", i, o.WrappedCommandBuffers, o.HeldDescriptorSets, 2*maxSetsPerFrame)
		}
		// How many sets are idle rather than held, and whether the other
		// frame is still known, depend on when the GPU finishes a frame:
		// the bounds above hold them.
		o.HeldDescriptorSets, o.Vulkan.DescriptorSets, o.WrappedCommandBuffers = 0, 0, 0
		switch {
		case i == warm:
			first = o
		case i > warm && o != first:
			t.Fatalf("frame %d: %+v; after frame %d %+v", i, o, warm, first)
		}
		failOnReports(t, "the frames")
	}
	if o := ctx.Objects(); o.Vulkan.DescriptorSets > vk.DefaultCachedDescriptorSets+2*maxSetsPerFrame {
		t.Errorf("%d descriptor sets after %d frames, want at most %d", o.Vulkan.DescriptorSets, frames, vk.DefaultCachedDescriptorSets+2*maxSetsPerFrame)
	}
	// The engine releases the context with its last two frames in flight:
	// Release waits for their fences before destroying the pipelines and
	// sets they use (the validation layer would report it).
	ctx.Release()
	e.ctx = nil
	for k := range f.frames {
		f.check(t, k)
	}
	failOnReports(t, "releasing the context with two frames in flight")
}

// maxSetsPerFrame bounds the descriptor sets a frame of TestFramesInFlight
// binds: a dispatch binds one, and the compaction and the one-pass struct
// sort record a few dispatches each.
const maxSetsPerFrame = 16

// TestReleaseWithFrameInFlight: the engine records, into its command
// buffer, vkcompact's compaction and then the spin kernel (work that runs
// until the test ends it, on the library's pipeline and a buffer of the
// engine's), submits it, reports it with Submitted, and releases the
// borrowed context at once. The kernel is ended only once Release waits
// (its first wait for a fence, seen through the fault seam): Release must
// not destroy the pipelines and descriptor sets the frame uses before it
// has run to its end (the validation layer reports VUID-vkDestroyPipeline-
// pipeline-00765 otherwise, and lavapipe crashes), and the compaction's
// output is right.
func TestReleaseWithFrameInFlight(t *testing.T) {
	e := newEngine(t, vkb.MakeVersion(1, 1, 0), false)
	ctx := e.borrow(t)
	f := newFramesRig(t, e, ctx)
	words := e.newBuffer(t, vktest.SpinBytes, storageUsage, hostMemory)
	vWords, err := ctx.WrapBuffer(unsafe.Pointer(words.handle), words.size)
	if err != nil {
		t.Fatal(err)
	}
	spin := vktest.NewSpin(t, ctx, vWords.All(), words.mapped)
	failOnReports(t, "setting up")

	c := f.record(t, 0, vktest.Rand(t))
	if err := spin.Record(ctx.Wrap(unsafe.Pointer(c.cmd))); err != nil {
		t.Fatal(err)
	}
	c.submitNoWait(t, e)
	f.submitted[0] = true
	if err := ctx.Submitted(unsafe.Pointer(c.cmd), unsafe.Pointer(c.fence)); err != nil {
		t.Fatal(err)
	}
	var releasing atomic.Bool
	clear := faults.Set(ctx, func(call string) int32 {
		if releasing.Load() && call == "vkWaitForFences" && !spin.Ended() {
			spin.End()
		}
		return 0
	})
	defer clear()
	releasing.Store(true)
	if err := ctx.Close(); err != nil {
		t.Errorf("Close with the frame reported: %v", err)
	}
	clear()
	e.ctx = nil
	switch {
	case !spin.Ended():
		spin.End()
		t.Errorf("Release returned without waiting for the engine's frame")
	case !spin.Done(): // Release must have waited for the frame's fence
		t.Errorf("Release returned before the engine's frame had run to its end")
	}
	f.check(t, 0)
	failOnReports(t, "releasing the context with a frame in flight")
}
