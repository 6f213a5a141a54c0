package goki

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	vkb "github.com/goki/vulkan"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/enginetest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// particle is the engine's 32-byte particle, laid out as update.comp's
// std430 struct. The compaction's key, Life, is the float32 at byte 28.
type particle struct {
	Pos  [3]float32
	ID   uint32
	Vel  [3]float32
	Life float32
}

// dt is the frame time update.comp takes from each live particle's life.
const dt float32 = 0.5

// consumed is what consume.comp writes for a kept particle.
func consumed(p particle) uint32 {
	return p.ID*2654435761 ^ math.Float32bits(p.Life) ^ math.Float32bits(p.Pos[0])>>3
}

// poison fills the engine's output and control words before the frames,
// so that a slot the GPU should have written and did not cannot pass.
const poison = 0xDEADBEEF

// The control buffer: the compaction's result block at 0, the live-count
// word at liveOffset (a multiple of any minStorageBufferOffsetAlignment,
// which is at most 256).
const (
	liveOffset  = 256
	controlSize = 512
)

// scenario is one test case: a pool of n particles whose first live are
// in use, with initial lives from life, run for one or more frames in one
// command buffer.
type scenario struct {
	name string
	n    int
	// live is the live count the first frame's update writes to the
	// live-count word, with gpuCount; 0 means n, -1 none. Without gpuCount
	// it is n.
	live int
	// gpuCount passes the live-count word to the first frame's compaction
	// as compact.Buffers.Count; without it the compaction covers all n.
	gpuCount bool
	// frames is the number of frames, 1 when 0. Each frame after the first
	// takes its live count on the GPU, from the kept count the previous
	// frame's compaction left in the result block, and passes it to its
	// compaction as the count.
	frames int
	// life draws an initial life; each frame's update takes dt from it.
	life func(*rand.Rand) float32
}

// Initial lives, in steps of 1/64 (exact in binary, so that update's
// subtraction is exact): some particles survive each frame (5/8 of them
// the first, 3/8 all three), none survive the first frame (some reach
// exactly 0, which the compaction drops), or all survive two frames.
func someSurvive(rng *rand.Rand) float32 { return float32(rng.IntN(256)-64) / 64 } // [-1, 3)
func noneSurvive(rng *rand.Rand) float32 { return float32(rng.IntN(97)-64) / 64 }  // [-1, 0.5]
func allSurvive(rng *rand.Rand) float32  { return float32(rng.IntN(127)+65) / 64 } // (1, 3)

// scenarios are the cases TestEngine runs on each engine. Sizes are
// neither powers of two nor multiples of a workgroup.
var scenarios = []scenario{
	{name: "some_100003", n: 100003, life: someSurvive},
	{name: "none_65599", n: 65599, life: noneSurvive},
	{name: "all_65599", n: 65599, life: allSurvive},
	{name: "gpu_count_100003", n: 100003, live: 100003 - 31337, gpuCount: true, life: someSurvive},
	{name: "gpu_count_zero_4099", n: 4099, live: -1, gpuCount: true, life: allSurvive},
	{name: "gpu_count_above_n_4099", n: 4099, live: 4099 + 1000, gpuCount: true, life: someSurvive},
	{name: "gpu_count_all_kept_777", n: 777, live: 700, gpuCount: true, life: allSurvive},
	{name: "three_frames_100003", n: 100003, frames: 3, life: someSurvive},
	{name: "three_frames_gpu_count_8191", n: 8191, live: 8000, gpuCount: true, frames: 3, life: allSurvive},
}

// fromGPU is update.comp's FROM_GPU: take the live count from the
// previous frame's result block.
const fromGPU = 0xFFFFFFFF

// firstLive is the live count the first frame's update writes.
func (s scenario) firstLive() uint32 {
	switch {
	case !s.gpuCount:
		return uint32(s.n)
	case s.live < 0:
		return 0
	case s.live == 0:
		return uint32(s.n)
	}
	return uint32(s.live)
}

// frameCount is the number of frames.
func (s scenario) frameCount() int { return max(s.frames, 1) }

// newParticles draws n particles. Positions and velocities are multiples
// of 1/256 small enough that their sums are exact.
func newParticles(rng *rand.Rand, n int, life func(*rand.Rand) float32) []particle {
	ps := make([]particle, n)
	for i := range ps {
		p := &ps[i]
		for k := range 3 {
			p.Pos[k] = float32(rng.IntN(1<<16)-1<<15) / 256 // [-128, 128)
			p.Vel[k] = float32(rng.IntN(1<<10)-1<<9) / 256  // [-2, 2)
		}
		p.ID = rng.Uint32()
		p.Life = life(rng)
	}
	return ps
}

// reference runs a frame in Go: update the first live particles, then
// compact them in place (keep Life > 0, in order); past the kept ones the
// pool keeps what it held. It returns the pool and consume's output
// words, one per kept particle.
func reference(in []particle, live int) ([]particle, []uint32) {
	pool := slices.Clone(in)
	for i := range pool[:live] {
		for k := range 3 {
			pool[i].Pos[k] += pool[i].Vel[k]
		}
		pool[i].Life -= dt
	}
	updated := slices.Clone(pool[:live])
	kept := 0
	for _, p := range updated {
		if p.Life > 0 {
			pool[kept] = p
			kept++
		}
	}
	out := make([]uint32, kept)
	for i := range out {
		out[i] = consumed(pool[i])
	}
	return pool, out
}

// TestEngine runs a particle system's frames on a device the test created
// itself, at two instance API versions: 1.1, where vkcompact asks for
// VK_EXT_subgroup_size_control, and 1.3, where subgroup size control is
// core. Each scenario is one command buffer of the engine's; each frame in
// it is the engine's update dispatch, its barrier, vkcompact's in-place
// compaction, the barrier of the compaction's contract, the engine's
// indirect consume dispatch, a barrier, and vkcompact's in-place sort of
// consume's output words, as many as the compaction kept (its count read
// on the GPU from the result block). At 1.1 the engine does not enable
// VK_KHR_push_descriptor, so vkcompact binds descriptor sets; at 1.3 it
// does where the device has it.
func TestEngine(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, api := range []struct {
		name    string
		version uint32
		push    bool
	}{
		{"vulkan1.1_sets", vkb.MakeVersion(1, 1, 0), false},
		{"vulkan1.3_push", vkb.MakeVersion(1, 3, 0), true},
	} {
		t.Run(api.name, func(t *testing.T) {
			e := newEngine(t, api.version, api.push)
			ctx := e.borrow(t)
			k := e.newKernels(t)
			failOnReports(t, "borrowing the device and creating the pipelines")
			for i, s := range scenarios {
				t.Run(s.name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(seed, uint64(i)))
					runScenario(t, e, ctx, k, s, rng)
					failOnReports(t, "recording and running the frames")
				})
			}
			e.close(t)
		})
	}
}

// runScenario records the scenario's frames into one command buffer of
// the engine's, submits it, waits, and checks the particle pool, the
// control buffer and consume's output against reference.
func runScenario(t *testing.T, e *engine, ctx *vk.Context, k *kernels, s scenario, rng *rand.Rand) {
	n := s.n
	if liveOffset%e.minAlign != 0 {
		t.Fatalf("the live-count word's offset %d is not a multiple of minStorageBufferOffsetAlignment %d", liveOffset, e.minAlign)
	}
	plan, err := compact.NewPlan(ctx, uint64(n), compact.Selection{
		Elem:    vkcompact.Struct(32, 28, vkcompact.Float32),
		Keep:    compact.KeepIf(compact.Greater, compact.Float(0)),
		InPlace: true,
		Options: compact.Options{GroupSize: enginetest.ConsumeGroupSize},
	})
	if err != nil {
		t.Fatalf("compact.NewPlan: %v", err)
	}
	sortPlan, err := radix.NewPlan(ctx, uint64(n), radix.Sort{InPlace: true})
	if err != nil {
		t.Fatalf("radix.NewPlan: %v", err)
	}

	// The engine's buffers, with memory of its own.
	poolBytes := uint64(n) * 32
	pool := e.newBuffer(t, poolBytes, indirectUsage, hostMemory)
	control := e.newBuffer(t, controlSize, indirectUsage, hostMemory)
	// Scratch needs the indirect usage too: the in-place copy-back is
	// dispatched indirectly from arguments the compaction leaves there.
	scratch := e.newBuffer(t, plan.ScratchSize(), indirectUsage, deviceMemory)
	sortScratch := e.newBuffer(t, sortPlan.ScratchSize(), indirectUsage, deviceMemory)
	out := e.newBuffer(t, uint64(n)*4, storageUsage, hostMemory)
	initial := newParticles(rng, n, s.life)
	copy(pool.particles(n), initial)
	for _, words := range [][]uint32{control.words(), out.words()} {
		for i := range words {
			words[i] = poison
		}
	}

	// vkcompact's views of five of them.
	wrap := func(b *buffer) *vk.Buffer {
		w, err := ctx.WrapBuffer(unsafe.Pointer(b.handle), b.size)
		if err != nil {
			t.Fatalf("WrapBuffer: %v", err)
		}
		return w
	}
	vPool, vControl, vScratch := wrap(pool), wrap(control), wrap(scratch)
	vOut, vSortScratch := wrap(out), wrap(sortScratch)

	resultHead := binding{control, 0, 16} // kept, rejected, total
	sets := e.newDescriptorSets(t, k,
		[3]binding{{pool, 0, poolBytes}, {control, liveOffset, 4}, resultHead}, // update
		[3]binding{{pool, 0, poolBytes}, resultHead, {out, 0, out.size}},       // consume
	)
	c := e.newCommands(t)
	c.begin(t)
	f := &frameRecorder{cmd: c.cmd, k: k, sets: sets, pool: pool, control: control, n: n,
		compaction: func(r *pipeline.Recorder, gpuCount bool) {
			bufs := compact.Buffers{
				Src:     vPool.All(),
				Result:  vControl.Range(0, compact.ResultSize),
				Scratch: vScratch.All(),
			}
			if gpuCount {
				bufs.Count = vControl.Range(liveOffset, 4)
			}
			plan.Record(r, bufs)
		},
		sort: func(r *pipeline.Recorder) {
			sortPlan.Record(r, radix.Buffers{
				Keys:    vOut.All(),
				Scratch: vSortScratch.All(),
				Count:   vControl.Range(compact.ResultKeptOffset, 4),
			})
		}}
	for frame := range s.frameCount() {
		if frame == 0 {
			f.record(t, ctx, frame, s.firstLive(), s.gpuCount)
			continue
		}
		// The previous frame's consume read the pool and the result
		// block, and wrote the output; its compaction wrote the result
		// block, which this frame's update reads.
		memoryBarrier(c.cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageComputeShaderBit,
			vkb.AccessShaderWriteBit, vkb.AccessShaderReadBit|vkb.AccessShaderWriteBit)
		f.record(t, ctx, frame, fromGPU, true)
	}
	// Every write of the frames, before the host reads the mapped memory.
	memoryBarrier(c.cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageHostBit,
		vkb.AccessShaderWriteBit, vkb.AccessHostReadBit)
	c.submit(t, e)
	// The command buffer's work has completed: the library may reuse the
	// descriptor sets it bound there.
	if o := ctx.Objects(); o.WrappedCommandBuffers != 1 || (!ctx.PushDescriptors() && o.HeldDescriptorSets == 0) {
		t.Errorf("after the frames, before Completed: %d wrapped command buffers, %d descriptor sets held; want 1, and some with sets", o.WrappedCommandBuffers, o.HeldDescriptorSets)
	}
	ctx.Completed(unsafe.Pointer(c.cmd))
	if o := ctx.Objects(); o.WrappedCommandBuffers != 0 || o.HeldDescriptorSets != 0 {
		t.Errorf("after Completed: %d wrapped command buffers, %d descriptor sets held; want none", o.WrappedCommandBuffers, o.HeldDescriptorSets)
	}

	// The same frames in Go.
	wantPool := initial
	wantOut := make([]uint32, n)
	for i := range wantOut {
		wantOut[i] = poison
	}
	live := int(s.firstLive())
	var kept []uint32
	covered := 0
	for range s.frameCount() {
		covered = min(live, n)
		wantPool, kept = reference(wantPool, covered)
		slices.Sort(kept) // the frame's sort of consume's output
		copy(wantOut, kept)
		live = len(kept)
	}
	lastLive := s.firstLive()
	if s.frameCount() > 1 {
		lastLive = uint32(covered)
	}
	checkResults(t, pool.particles(n), control.words(), out.words(), wantPool, wantOut, len(kept), covered, lastLive)
}

// frameRecorder records frames into one of the engine's command buffers.
type frameRecorder struct {
	cmd           vkb.CommandBuffer
	k             *kernels
	sets          []vkb.DescriptorSet // update's, consume's
	pool, control *buffer
	n             int
	// compaction records the compaction into r, with the live-count word
	// as its count when gpuCount is set.
	compaction func(r *pipeline.Recorder, gpuCount bool)
	// sort records the sort of consume's output into r, over as many words
	// as the compaction kept.
	sort func(r *pipeline.Recorder)
}

// record records one frame: update over live particles (fromGPU: the
// previous frame's kept count), the engine's barrier, the compaction,
// the barrier of the compaction's contract, consume, dispatched
// indirectly from the result block, a barrier, and the sort of consume's
// output.
func (f *frameRecorder) record(t *testing.T, ctx *vk.Context, frame int, live uint32, gpuCount bool) {
	t.Helper()
	cmd, k := f.cmd, f.k
	vkb.CmdBindPipeline(cmd, vkb.PipelineBindPointCompute, k.update)
	vkb.CmdBindDescriptorSets(cmd, vkb.PipelineBindPointCompute, k.layout, 0, 1, f.sets[:1], 0, nil)
	push := updatePush{N: uint32(f.n), Live: live, DT: dt}
	vkb.CmdPushConstants(cmd, k.layout, vkb.ShaderStageFlags(vkb.ShaderStageComputeBit), 0, uint32(unsafe.Sizeof(push)), unsafe.Pointer(&push))
	vkb.CmdDispatch(cmd, uint32((f.n+enginetest.UpdateGroupSize-1)/enginetest.UpdateGroupSize), 1, 1)

	// update's writes of the pool and the live count, before the
	// compaction reads them (and, in place, writes the pool); update's
	// read of the result block, before the compaction writes it.
	memoryBarrier(cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageComputeShaderBit,
		vkb.AccessShaderWriteBit, vkb.AccessShaderReadBit|vkb.AccessShaderWriteBit)

	// The compaction, into the engine's command buffer.
	r := pipeline.Record(ctx.Wrap(unsafe.Pointer(cmd)))
	f.compaction(r, gpuCount)
	if err := r.Err(); err != nil {
		vkb.EndCommandBuffer(cmd)
		t.Fatalf("frame %d: recording the compaction: %v", frame, err)
	}
	dispatches, barriers := r.Stats()
	t.Logf("frame %d: the compaction recorded %d dispatches and %d barriers", frame, dispatches, barriers)

	// The barrier the compaction's contract asks for: its last
	// compute-shader writes, before consume reads its indirect arguments,
	// the kept count and the kept particles.
	bufferBarriers(cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageDrawIndirectBit|vkb.PipelineStageComputeShaderBit,
		vkb.AccessShaderWriteBit,
		bufferBarrier{binding{f.control, compact.ResultDispatchOffset, 12}, vkb.AccessIndirectCommandReadBit},
		bufferBarrier{binding{f.control, 0, 16}, vkb.AccessShaderReadBit},
		bufferBarrier{binding{f.pool, 0, f.pool.size}, vkb.AccessShaderReadBit})

	// consume, sized on the GPU by the result block. The compaction bound
	// its own pipelines and descriptors: bind again.
	vkb.CmdBindPipeline(cmd, vkb.PipelineBindPointCompute, k.consume)
	vkb.CmdBindDescriptorSets(cmd, vkb.PipelineBindPointCompute, k.layout, 0, 1, f.sets[1:], 0, nil)
	vkb.CmdDispatchIndirect(cmd, f.control.handle, compact.ResultDispatchOffset)

	// consume's writes of the output, before the sort reads and writes
	// them; its reads of the result block, before the sort's (reads only).
	memoryBarrier(cmd, vkb.PipelineStageComputeShaderBit, vkb.PipelineStageComputeShaderBit,
		vkb.AccessShaderWriteBit, vkb.AccessShaderReadBit|vkb.AccessShaderWriteBit)
	r = pipeline.Record(ctx.Wrap(unsafe.Pointer(cmd)))
	f.sort(r)
	if err := r.Err(); err != nil {
		vkb.EndCommandBuffer(cmd)
		t.Fatalf("frame %d: recording the sort: %v", frame, err)
	}
}

// checkResults compares the results of a scenario with the reference:
// kept and covered are the last frame's kept and compacted counts, live
// its live-count word.
func checkResults(t *testing.T, gotPool []particle, ctl, gotOut []uint32, wantPool []particle, wantOut []uint32, kept, covered int, live uint32) {
	t.Helper()
	t.Logf("last frame: kept %d of %d", kept, covered)
	k, c := uint32(kept), uint32(covered)
	if got := ctl[compact.ResultKeptOffset/4 : compact.ResultKeptOffset/4+3]; !slices.Equal(got, []uint32{k, c - k, c}) {
		t.Errorf("result block: kept, rejected, total = %v, want [%d %d %d]", got, k, c-k, c)
	}
	groups := (k + enginetest.ConsumeGroupSize - 1) / enginetest.ConsumeGroupSize
	if got := ctl[compact.ResultDispatchOffset/4 : compact.ResultDispatchOffset/4+3]; !slices.Equal(got, []uint32{groups, 1, 1}) {
		t.Errorf("dispatch arguments %v, want [%d 1 1] (%d kept, workgroups of %d)", got, groups, k, enginetest.ConsumeGroupSize)
	}
	if got := ctl[compact.ResultDrawOffset/4 : compact.ResultDrawOffset/4+4]; !slices.Equal(got, []uint32{k, 1, 0, 0}) {
		t.Errorf("draw arguments %v, want [%d 1 0 0]", got, k)
	}
	if got := ctl[liveOffset/4]; got != live {
		t.Errorf("live-count word %d, want %d: the compaction must only read it", got, live)
	}

	bad := 0
	for i := range wantPool {
		if gotPool[i] != wantPool[i] {
			if bad < 5 {
				t.Errorf("particle %d (%d kept, %d compacted): got %+v, want %+v", i, kept, covered, gotPool[i], wantPool[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d particles differ", bad, len(wantPool))
	}
	bad = 0
	for i := range gotOut {
		if gotOut[i] != wantOut[i] {
			if bad < 5 {
				t.Errorf("consume's output word %d: %#x, want %#x (%d kept)", i, gotOut[i], wantOut[i], kept)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d output words differ", bad, len(gotOut))
	}
}

// TestLeakReported shows that the teardown check of TestEngine can fail:
// a buffer vkcompact created on the engine's device, left alive because
// the engine never released the context, is reported by the validation
// layer when the engine destroys its device.
func TestLeakReported(t *testing.T) {
	requireValidation(t)
	e := newEngine(t, vkb.MakeVersion(1, 3, 0), false)
	ctx := e.borrow(t)
	e.ctx = nil // the engine forgets to release the context
	if _, err := ctx.NewBuffer(4096, vk.DeviceLocal); err != nil {
		t.Fatalf("NewBuffer: %v", err)
	}
	e.destroyDevice(t)
	// ctx now holds handles of a destroyed device: it is never used again,
	// not even released.
	msgs := takeReports()
	leaked := false
	for _, m := range msgs {
		t.Logf("reported, as expected: %s", m)
		if strings.Contains(m, "VkBuffer") || strings.Contains(m, "VkDeviceMemory") {
			leaked = true
		}
	}
	if !leaked {
		t.Errorf("destroying the device with a buffer of vkcompact's alive reported %q; want a report naming the VkBuffer or its VkDeviceMemory", msgs)
	}
}

// TestSyncValidation shows that the engine's instance runs the validation
// layer with synchronisation validation, so that TestEngine's silence
// means something: the engine's update dispatch followed by vkcompact's
// compaction of the particles it wrote, with no barrier between them, is
// reported as a hazard.
func TestSyncValidation(t *testing.T) {
	requireValidation(t)
	e := newEngine(t, vkb.MakeVersion(1, 3, 0), false)
	ctx := e.borrow(t)
	k := e.newKernels(t)
	const n = 256
	plan, err := compact.NewPlan(ctx, n, compact.Selection{
		Elem: vkcompact.Struct(32, 28, vkcompact.Float32),
		Keep: compact.KeepIf(compact.Greater, compact.Float(0)),
	})
	if err != nil {
		t.Fatal(err)
	}
	pool := e.newBuffer(t, n*32, storageUsage, hostMemory)
	control := e.newBuffer(t, controlSize, storageUsage, hostMemory)
	sets := e.newDescriptorSets(t, k, [3]binding{{pool, 0, pool.size}, {control, liveOffset, 4}, {control, 0, 16}})
	vPool, err := ctx.WrapBuffer(unsafe.Pointer(pool.handle), pool.size)
	if err != nil {
		t.Fatal(err)
	}
	dst, _ := ctx.NewBuffer(n*32, vk.DeviceLocal)
	result, _ := ctx.NewBuffer(compact.ResultSize, vk.DeviceLocal)
	scratch, err := ctx.NewBuffer(plan.ScratchSize(), vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	c := e.newCommands(t)
	c.begin(t)
	push := updatePush{N: n, Live: n, DT: dt}
	vkb.CmdBindPipeline(c.cmd, vkb.PipelineBindPointCompute, k.update)
	vkb.CmdBindDescriptorSets(c.cmd, vkb.PipelineBindPointCompute, k.layout, 0, 1, sets, 0, nil)
	vkb.CmdPushConstants(c.cmd, k.layout, vkb.ShaderStageFlags(vkb.ShaderStageComputeBit), 0, uint32(unsafe.Sizeof(push)), unsafe.Pointer(&push))
	vkb.CmdDispatch(c.cmd, n/enginetest.UpdateGroupSize, 1, 1)
	r := pipeline.Record(ctx.Wrap(unsafe.Pointer(c.cmd))) // no barrier after update
	plan.Record(r, compact.Buffers{Src: vPool.All(), Dst: dst.All(), Result: result.All(), Scratch: scratch.All()})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	c.submit(t, e)
	msgs := takeReports()
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "SYNC-HAZARD-READ-AFTER-WRITE") }) {
		t.Fatalf("the compaction reading what update wrote, with no barrier, reported %q; want a SYNC-HAZARD-READ-AFTER-WRITE", msgs)
	}
	t.Logf("reported, as expected: %s", msgs[0])
}
