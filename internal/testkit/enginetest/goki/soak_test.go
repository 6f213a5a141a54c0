package goki

import (
	"cmp"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	vkb "github.com/goki/vulkan"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// The soak: an engine's frame loop run long enough to fit a slope to its
// memory. Every frame the library submits work of its own (an empty
// submission, a copy through pipeline.Run, a compaction through Plan.Run,
// every eighth frame a compact.SelectSlice) and the engine records a compaction
// and a struct sort of the survivors into its own command buffer, which it
// submits, waits for and hands back (Context.Completed). Every range moves
// from frame to frame (sources in a ring, results, outputs and copies at
// offsets that cycle with periods prime to each other), so that nearly
// every frame binds buffer ranges no frame before it bound: a cache of
// descriptor sets that kept one set per distinct range would grow by a
// dozen sets a frame. Every output is poisoned first and checked against
// Go.

// soakParticle is the soak's struct: a position and a grid cell. The
// compaction keeps X > 0; the struct sort orders the survivors by Cell
// (bits 0 to 4 of it: cells are below 16), stably.
type soakParticle struct {
	X, Y, Z float32
	Cell    uint32
}

const (
	soakN     = 256 // particles a frame
	soakBytes = soakN * 16
	// Slots of each moving range; pairwise prime, so that the tuple of
	// ranges a frame binds repeats only after their product of frames.
	soakRing, soakOut, soakSorted, soakResults, soakCopies = 31, 29, 23, 37, 41
	soakCopyBytes                                          = 256
)

// soakFrames returns the soak's frames and warm-up: VKCOMPACT_SOAK_FRAMES
// if set (a tenth of it warm-up, at most 2000), else 22000 (2000 of them
// warm-up) in the full form and 3000 (1000) in the short one.
func soakFrames(t *testing.T) (frames, warm int) {
	if s := os.Getenv("VKCOMPACT_SOAK_FRAMES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 {
			t.Fatalf("VKCOMPACT_SOAK_FRAMES=%q: want a count of at least 100", s)
		}
		return n, min(n/10, 2000)
	}
	if vktest.Short() {
		return 3000, 1000
	}
	return 22000, 2000
}

// soakSample is what the soak measures: the Go heap after a collection,
// the process's resident memory after the runtime has returned what it
// can, the context's device memory and objects.
type soakSample struct {
	frame     int
	heap, rss uint64
	device    uint64
	objects   vk.ObjectCounts
}

func measureSoak(t *testing.T, ctx *vk.Context, frame int) soakSample {
	var ms runtime.MemStats
	runtime.GC()
	debug.FreeOSMemory()
	runtime.ReadMemStats(&ms)
	rss, _ := vktest.ResidentBytes()
	return soakSample{frame: frame, heap: ms.HeapAlloc, rss: rss, device: ctx.AllocatedBytes(), objects: ctx.Objects()}
}

// soakRig is the soak's engine, context, plans and buffers.
type soakRig struct {
	e          *engine
	ctx        *vk.Context
	c          *commands
	align      uint64
	plan       *compact.Plan
	sort       *radix.StructPlan
	sel        compact.Selection
	ring       *buffer // the sources, one slot a frame
	out        *buffer // the engine's compaction's output
	sorted     *buffer // the struct sort's output
	results    *buffer // result blocks: the engine's at even slots, Plan.Run's at odd ones
	copies     *buffer // pipeline.Run's copies
	libOut     *buffer // Plan.Run's output
	vRing      *vk.Buffer
	vOut       *vk.Buffer
	vSorted    *vk.Buffer
	vResults   *vk.Buffer
	vCopies    *vk.Buffer
	vLibOut    *vk.Buffer
	pattern    *vk.Buffer // pipeline.Run's copy source
	scratch    *vk.Buffer // the engine's compaction's scratch
	sortScr    *vk.Buffer
	resultSlot uint64
}

// soakSlots bytes of a slot of n bytes, aligned.
func (s *soakRig) slot(n uint64) uint64 { return (n + s.align - 1) / s.align * s.align }

func newSoakRig(t *testing.T, e *engine, ctx *vk.Context) *soakRig {
	s := &soakRig{e: e, ctx: ctx, c: e.newCommands(t), align: max(e.minAlign, 16)}
	s.sel = compact.Selection{Elem: vkcompact.Struct(16, 0, vkcompact.Float32), Keep: compact.KeepIf(compact.Greater, compact.Float(0))}
	var err error
	if s.plan, err = compact.NewPlan(ctx, soakN, s.sel); err != nil {
		t.Fatal(err)
	}
	// One pass of 4 bits: a CPU driver's sort costs milliseconds a pass.
	s.sort, err = radix.NewStructPlan(ctx, soakN, radix.StructSort{Elem: vkcompact.Struct(16, 12, vkcompact.Uint32), EndBit: 4, Options: radix.Options{DigitBits: 4}})
	if err != nil {
		t.Fatal(err)
	}
	slot := s.slot(soakBytes)
	s.resultSlot = s.slot(compact.ResultSize)
	s.ring = e.newBuffer(t, soakRing*slot, storageUsage, hostMemory)
	s.out = e.newBuffer(t, soakOut*slot, storageUsage, hostMemory)
	s.sorted = e.newBuffer(t, soakSorted*slot, storageUsage, hostMemory)
	s.results = e.newBuffer(t, 2*soakResults*s.resultSlot, indirectUsage, hostMemory)
	s.copies = e.newBuffer(t, soakCopies*s.slot(soakCopyBytes), storageUsage, hostMemory)
	s.libOut = e.newBuffer(t, soakOut*slot, storageUsage, hostMemory)
	scratch := e.newBuffer(t, s.plan.ScratchSize(), indirectUsage, deviceMemory)
	sortScr := e.newBuffer(t, s.sort.ScratchSize(), indirectUsage, deviceMemory)
	wrap := func(b *buffer) *vk.Buffer {
		w, err := ctx.WrapBuffer(unsafe.Pointer(b.handle), b.size)
		if err != nil {
			t.Fatalf("WrapBuffer: %v", err)
		}
		return w
	}
	s.vRing, s.vOut, s.vSorted, s.vResults = wrap(s.ring), wrap(s.out), wrap(s.sorted), wrap(s.results)
	s.vCopies, s.vLibOut, s.scratch, s.sortScr = wrap(s.copies), wrap(s.libOut), wrap(scratch), wrap(sortScr)
	if s.pattern, err = vk.NewBufferOf[uint32](ctx, soakCopyBytes/4, vk.DeviceLocal); err != nil {
		t.Fatal(err)
	}
	pattern := make([]uint32, soakCopyBytes/4)
	for i := range pattern {
		pattern[i] = uint32(i)*2654435761 + 7
	}
	if err := vk.Upload(s.pattern.All(), pattern); err != nil {
		t.Fatal(err)
	}
	return s
}

// bytesOf returns n bytes of a host-visible engine buffer at off.
func bytesOf(b *buffer, off, n uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(b.mapped, off)), n)
}

// particlesAt returns the soakN particles of a host-visible buffer at off.
func particlesAt(b *buffer, off uint64) []soakParticle {
	return unsafe.Slice((*soakParticle)(unsafe.Add(b.mapped, off)), soakN)
}

// soakReference is what a frame must produce from in: the survivors, and
// the survivors sorted by cell.
func soakReference(in []soakParticle) (kept, sorted []soakParticle) {
	for _, p := range in {
		if p.X > 0 {
			kept = append(kept, p)
		}
	}
	sorted = slices.Clone(kept)
	slices.SortStableFunc(sorted, func(a, b soakParticle) int { return cmp.Compare(a.Cell, b.Cell) })
	return kept, sorted
}

// checkOut compares the first len(want) particles at off with want and
// requires poison after them.
func checkOut(t *testing.T, frame int, what string, b *buffer, off uint64, want []soakParticle) {
	t.Helper()
	got := particlesAt(b, off)
	if !slices.Equal(got[:len(want)], want) {
		for k := range want {
			if got[k] != want[k] {
				t.Logf("particle %d: got %+v, want %+v", k, got[k], want[k])
			}
		}
		t.Fatalf("frame %d: %s differs from the reference (%d particles)", frame, what, len(want))
	}
	for i, w := range bytesOf(b, off+uint64(len(want))*16, uint64(soakN-len(want))*16) {
		if w != 0xAB {
			t.Fatalf("frame %d: %s: byte %d past the %d particles was written", frame, what, i, len(want))
		}
	}
}

// frame runs frame i: the library's submissions and the engine's command
// buffer, checking every output.
func (s *soakRig) frame(t *testing.T, i int, rng *rand.Rand) {
	slot := s.slot(soakBytes)
	ringOff := uint64(i%soakRing) * slot
	in := particlesAt(s.ring, ringOff)
	for j := range in {
		in[j] = soakParticle{X: float32(rng.IntN(2048)-1024) / 1024, Y: rng.Float32(), Z: float32(j), Cell: uint32(rng.IntN(16))}
	}
	kept, sorted := soakReference(in)
	outOff, sortedOff := uint64(i%soakOut)*slot, uint64(i%soakSorted)*slot
	engineRes, libRes := uint64(2*(i%soakResults))*s.resultSlot, uint64(2*(i%soakResults)+1)*s.resultSlot
	copyOff := uint64(i%soakCopies) * s.slot(soakCopyBytes)
	for _, b := range [][]byte{bytesOf(s.out, outOff, soakBytes), bytesOf(s.sorted, sortedOff, soakBytes),
		bytesOf(s.libOut, outOff, soakBytes), bytesOf(s.copies, copyOff, soakCopyBytes),
		bytesOf(s.results, engineRes, compact.ResultSize), bytesOf(s.results, libRes, compact.ResultSize)} {
		for k := range b {
			b[k] = 0xAB
		}
	}
	src := s.vRing.Range(ringOff, soakBytes)
	s.library(t, i, in, kept, src, s.vLibOut.Range(outOff, soakBytes), s.vResults.Range(libRes, compact.ResultSize), copyOff)
	checkOut(t, i, "Plan.Run's output", s.libOut, outOff, kept)
	s.engine(t, i, src, s.vOut.Range(outOff, soakBytes), s.vSorted.Range(sortedOff, soakBytes), s.vResults.Range(engineRes, compact.ResultSize))
	kw := unsafe.Slice((*uint32)(unsafe.Add(s.results.mapped, engineRes+compact.ResultKeptOffset)), 3)
	if kw[0] != uint32(len(kept)) || kw[2] != soakN {
		t.Fatalf("frame %d: the engine's result block says %d of %d kept; want %d of %d", i, kw[0], kw[2], len(kept), soakN)
	}
	checkOut(t, i, "the engine's compaction", s.out, outOff, kept)
	checkOut(t, i, "the engine's struct sort", s.sorted, sortedOff, sorted)
}

// library runs frame i's submissions of the library's own: an empty one,
// a copy of the pattern into the copies at copyOff through pipeline.Run,
// the compaction of src into dst through Plan.Run (with result, and no
// scratch: Run makes its own), and every eighth frame compact.SelectSlice of in.
func (s *soakRig) library(t *testing.T, i int, in, kept []soakParticle, src, dst, result vk.Range, copyOff uint64) {
	if err := s.ctx.Submit(func(vk.CommandBuffer) error { return nil }); err != nil {
		t.Fatalf("frame %d: an empty submission: %v", i, err)
	}
	if err := pipeline.Run(s.ctx, func(r *pipeline.Recorder) {
		transfer.RecordCopy(r, s.vCopies.Range(copyOff, soakCopyBytes), s.pattern.All(), transfer.CopyOptions{})
	}); err != nil {
		t.Fatalf("frame %d: pipeline.Run: %v", i, err)
	}
	for k, w := range unsafe.Slice((*uint32)(unsafe.Add(s.copies.mapped, copyOff)), soakCopyBytes/4) {
		if w != uint32(k)*2654435761+7 {
			t.Fatalf("frame %d: the copy's word %d is %#x", i, k, w)
		}
	}
	res, err := s.plan.Run(compact.Buffers{Src: src, Dst: dst, Result: result})
	if err != nil || res.Kept != uint32(len(kept)) || res.Total != soakN {
		t.Fatalf("frame %d: Plan.Run: %+v, %v; want %d of %d kept", i, res, err, len(kept), soakN)
	}
	if i%8 == 0 {
		got, res, err := compact.SelectSlice(s.ctx, in, s.sel)
		if err != nil || !slices.Equal(got, kept) || res.Kept != uint32(len(kept)) {
			t.Fatalf("frame %d: compact.SelectSlice: %d kept, %v; want %d", i, len(got), err, len(kept))
		}
	}
}

// engine records frame i into the engine's command buffer: the
// compaction of src into out with result, its contract's barrier, the
// struct sort of the survivors into sorted (their count read on the GPU
// from result), and a barrier before the host reads; then it submits,
// waits and tells the library the command buffer has completed.
func (s *soakRig) engine(t *testing.T, i int, src, out, sorted, result vk.Range) {
	s.e.resetCommands(t, s.c)
	s.c.begin(t)
	cmd := unsafe.Pointer(s.c.cmd)
	r := pipeline.Record(s.ctx.Wrap(cmd))
	s.plan.Record(r, compact.Buffers{Src: src, Dst: out, Result: result, Scratch: s.scratch.All()})
	if err := r.Err(); err != nil {
		t.Fatalf("frame %d: recording the compaction: %v", i, err)
	}
	memoryBarrier(s.c.cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageComputeShaderBit,
		vkb.AccessShaderWriteBit, vkb.AccessShaderReadBit|vkb.AccessShaderWriteBit)
	r = pipeline.Record(s.ctx.Wrap(cmd))
	s.sort.Record(r, radix.StructBuffers{Src: out, Dst: sorted, Scratch: s.sortScr.All(), Count: result.Sub(compact.ResultKeptOffset, 4)})
	if err := r.Err(); err != nil {
		t.Fatalf("frame %d: recording the sort: %v", i, err)
	}
	memoryBarrier(s.c.cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageHostBit, vkb.AccessShaderWriteBit, vkb.AccessHostReadBit)
	s.c.submit(t, s.e)
	s.ctx.Completed(cmd)
}

// TestSoak runs the soak (above) for 22000 frames in the full form (2400
// in the short one; VKCOMPACT_SOAK_FRAMES sets it) and samples memory and
// objects 40 times after the warm-up (a tenth of the frames, at most
// 2000). Over the samples every object count and the device memory must
// not change at all; the Go heap must not grow by more than 1 MiB, nor by
// 256 KiB along the fitted slope; the resident memory by more than 8 MiB,
// nor by 4 MiB along the fitted slope (checkSoak: the slope leaves out the
// largest single rise; a CPU driver's memory is the process's, and on
// lavapipe it takes one step of 2 to 4 MiB, once, somewhere in the first
// 10000 frames; SwiftShader and the race detector: residentBound). A library that kept a command buffer per submission
// (5.8 KB of resident memory each on lavapipe, three submissions a frame)
// or a descriptor set per distinct range (about 10 KB a frame here) fails
// these within a few hundred frames.
func TestSoak(t *testing.T) {
	if !soakHere {
		t.Skip("the soak runs on the goki engine: the other binding records the same calls")
	}
	frames, warm := soakFrames(t)
	// Descriptor sets, not push descriptors: what a cache could leak.
	// VKCOMPACT_VALIDATE=0 leaves the validation layer out, for long runs.
	e := newEngine(t, vkb.MakeVersion(1, 1, 0), false)
	ctx := e.borrow(t)
	s := newSoakRig(t, e, ctx)
	rng := vktest.Rand(t)
	failOnReports(t, "setting up")
	every := max((frames-warm)/40, 1)
	samples := make([]soakSample, 0, 48)
	start := time.Now()
	for i := range frames {
		if i >= warm && ((i-warm)%every == 0 || powerOfTen(i)) {
			samples = append(samples, measureSoak(t, ctx, i))
			failOnReports(t, "the frames")
			if powerOfTen(i) {
				logSample(t, samples[len(samples)-1])
			}
		}
		s.frame(t, i, rng)
	}
	samples = append(samples, measureSoak(t, ctx, frames))
	failOnReports(t, "the frames")
	shown := []soakSample{samples[0], samples[len(samples)/2], samples[len(samples)-1]}
	if testing.Verbose() {
		shown = samples
	}
	for _, x := range shown {
		logSample(t, x)
	}
	t.Logf("%d frames in %v", frames, time.Since(start).Round(time.Millisecond))
	checkSoak(t, samples, residentBound(ctx.Info()))
}

// residentBound is how much the process's resident memory may grow over
// the soak's samples: 8 MiB (half of it along the fitted slope), but 96
// MiB on SwiftShader, whose own memory
// grows while it runs the radix sort's kernels, ever more slowly: about
// 2.4 KB a run over the first 2000 sorts with the same ranges every run,
// by a library submission or in the engine's command buffer alike, with
// every count of the library's objects flat, and the compaction alone
// flat; 20 MB over the first 12000 frames of this soak, 1.2 MB over the
// last 2000 of them (2026-11-27, @sparticuz/chromium 153.0.0). The exact
// object counts still catch a command buffer or a descriptor set kept per
// frame there.
//
// Under the race detector it is 0, not checked: the detector's shadow
// memory and the history it keeps grow with the frames (about 3.9 KB a
// frame on lavapipe, with the objects and the Go heap flat), so only the
// objects and the heap are held there.
func residentBound(info vk.DeviceInfo) uint64 {
	if _, ok := vktest.ResidentBytes(); !ok || vktest.Race {
		return 0 // no resident set size read on this platform (Linux's /proc), or the race detector's
	}
	if strings.Contains(strings.ToLower(info.Name+info.DriverName), "swiftshader") {
		return 96 << 20
	}
	return 8 << 20
}

// powerOfTen reports whether i is 10^k, k >= 4: the soak logs its memory
// there too, for long runs (VKCOMPACT_SOAK_FRAMES=1000000).
func powerOfTen(i int) bool {
	for p := 10000; p <= i; p *= 10 {
		if p == i {
			return true
		}
	}
	return false
}

func logSample(t *testing.T, x soakSample) {
	const mib = 1 << 20
	t.Logf("frame %7d: Go heap %.3f MiB, resident %.1f MiB, device memory %d bytes, objects %+v",
		x.frame, float64(x.heap)/mib, float64(x.rss)/mib, x.device, x.objects)
}

// checkSoak holds the samples flat (see TestSoak): every object count and
// the device memory equal; the Go heap and the resident memory without a
// trend, by the least-squares slope once the largest rise between two
// samples is taken out (a steady leak rises at every sample; the process's
// allocators take a step now and then, once), and within a bound end to
// end, that step included. rssBound is the resident memory's: the fitted
// growth over the samples may reach half of it, the growth end to end all
// of it; 0 leaves the resident memory unchecked.
func checkSoak(t *testing.T, samples []soakSample, rssBound uint64) {
	first, last := samples[0], samples[len(samples)-1]
	for _, x := range samples[1:] {
		if x.objects != first.objects || x.device != first.device {
			t.Errorf("frame %d: objects %+v and %d bytes of device memory; at frame %d %+v and %d bytes",
				x.frame, x.objects, x.device, first.frame, first.objects, first.device)
			break
		}
	}
	frames := float64(last.frame - first.frame)
	heapSlope := slope(samples, func(x soakSample) uint64 { return x.heap })
	rssSlope := slope(samples, func(x soakSample) uint64 { return x.rss })
	t.Logf("over frames %d to %d: Go heap %+d bytes (a fitted %.2f bytes a frame), resident memory %+d bytes (%.2f a frame)",
		first.frame, last.frame, int64(last.heap-first.heap), heapSlope, int64(last.rss-first.rss), rssSlope)
	const kib, mib = 1 << 10, 1 << 20
	if !(heapSlope*frames <= 256*kib) || last.heap > first.heap+mib {
		t.Errorf("the Go heap grows: %.2f bytes a frame fitted, %d to %d bytes (at most 256 KiB fitted and 1 MiB over the frames)", heapSlope, first.heap, last.heap)
	}
	if rssBound == 0 {
		t.Logf("resident memory not held: none read on this platform, or the race detector's own grows")
		return
	}
	if !(rssSlope*frames <= float64(rssBound/2)) || last.rss > first.rss+rssBound {
		t.Errorf("resident memory grows: %.2f bytes a frame fitted, %d to %d bytes (at most %d MiB fitted and %d MiB over the frames)",
			rssSlope, first.rss, last.rss, rssBound/2/mib, rssBound/mib)
	}
}

// slope is the least-squares slope of f over the samples' frames, with the
// largest rise between two consecutive samples taken out of every later
// one: one step the allocator takes once does not make a trend, a leak
// rises at every sample.
func slope(samples []soakSample, f func(soakSample) uint64) float64 {
	ys := make([]float64, len(samples))
	step, at := 0.0, len(samples)
	for i, x := range samples {
		ys[i] = float64(f(x))
		if i > 0 && ys[i]-ys[i-1] > step {
			step, at = ys[i]-ys[i-1], i
		}
	}
	var sx, sy, sxx, sxy float64
	n := float64(len(samples))
	for i, x := range samples {
		fx, fy := float64(x.frame), ys[i]
		if i >= at {
			fy -= step
		}
		sx, sy, sxx, sxy = sx+fx, sy+fy, sxx+fx*fx, sxy+fx*fy
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return math.NaN()
	}
	return (n*sxy - sx*sy) / d
}
