package raytrace

//go:generate go run ../../../../../shaders/internal/spvgen -src . -out .

import (
	"embed"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

//go:embed *.spv
var spirvFiles embed.FS

// ShadeGroup is the shade kernel's workgroup size, and the compaction's
// Options.GroupSize, so that a result block's dispatch covers the kept
// rays in shade workgroups.
const ShadeGroup = 64

// The other kernels' workgroup size.
const group = 64

var (
	generateKernel = &pipeline.Kernel{
		Name:      "raytrace_generate",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "generate"),
		Bindings:  []pipeline.Use{pipeline.Write, pipeline.Write, pipeline.Write, pipeline.Write, pipeline.Read},
		PushWords: 6,
	}
	shadeKernel = &pipeline.Kernel{
		Name:      "raytrace_shade",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "shade"),
		Bindings:  []pipeline.Use{pipeline.ReadWrite, pipeline.Write, pipeline.ReadWrite, pipeline.Read, pipeline.Read},
		PushWords: 2,
	}
	resolveKernel = &pipeline.Kernel{
		Name:      "raytrace_resolve",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "resolve"),
		Bindings:  []pipeline.Use{pipeline.Read, pipeline.Write},
		PushWords: 3,
	}
)

// Mode is how a frame treats the rays that ended.
type Mode uint8

const (
	// Compacted removes the dead rays between bounces: vkcompact moves
	// the live ones to the other queue, and the next bounce is dispatched
	// over them from its result block.
	Compacted Mode = iota
	// Uncompacted leaves them: every bounce walks all N slots, and the
	// dead rays are skipped.
	Uncompacted
)

// String names the mode.
func (m Mode) String() string {
	if m == Uncompacted {
		return "uncompacted"
	}
	return "compacted"
}

// Renderer renders one Params on one context: its ray queues, buffers,
// pipelines and compaction plan. Record a frame into a command buffer, or
// Run it; then Read the result.
type Renderer struct {
	ctx                      *vk.Context
	params                   Params
	plan                     *compact.Plan
	generate, shade, resolve *pipeline.Pipeline
	grid                     pipeline.Grid // the shade's dispatch over N rays
	blockStride              uint64        // bytes from one result block to the next
	// queues: N rays each, the compaction's source and destination in
	// turn; radiance: 3 floats per path; pixels: 3 floats per pixel;
	// counts: the shade's counter of each bounce; results: B result
	// blocks, block b holding the rays entering bounce b (block 0 written
	// by generate, the others by the compactions).
	queues                                            [2]*vk.Buffer
	radiance, pixels, counts, results, scene, scratch *vk.Buffer
	timer                                             *vk.Timer // nil where the device has no timestamps
}

// NewRenderer checks p for ctx and creates the renderer. A queue of N
// rays must fit one storage-buffer binding: N*RaySize bytes at most
// maxStorageBufferRange (128 MiB, 3.3M rays, on lavapipe; 4 GiB on an
// H100), and the shade's N/ShadeGroup workgroups must fit the device's
// maxComputeWorkGroupCount grid.
func NewRenderer(ctx *vk.Context, p Params) (r *Renderer, err error) {
	if err := p.Check(); err != nil {
		return nil, errs.Invalidf("%w", err)
	}
	info := ctx.Info()
	n := p.Paths()
	if bytes := n * RaySize; bytes > uint64(info.MaxStorageBufferRange) {
		return nil, errs.Invalidf("raytrace: %d x %d pixels x %d samples is a queue of %d rays, %d bytes; the device binds at most %d bytes (maxStorageBufferRange): %d rays",
			p.Width, p.Height, p.SPP, n, bytes, info.MaxStorageBufferRange, info.MaxStorageBufferRange/RaySize)
	}
	r = &Renderer{ctx: ctx, params: p}
	if r.grid, err = pipeline.GridFor(info, (n+ShadeGroup-1)/ShadeGroup); err != nil {
		return nil, fmt.Errorf("raytrace: %w (maxComputeWorkGroupCount)", err)
	}
	defer func() {
		if err != nil {
			r.Release()
		}
	}()
	r.plan, err = compact.NewPlan(ctx, n, compact.Selection{
		Elem:    vkcompact.Struct(RaySize, 0, vkcompact.Uint32), // the key is the path
		Keep:    compact.KeepIf(compact.NotEqual, compact.Uint(dead)),
		Options: compact.Options{GroupSize: ShadeGroup},
	})
	if err != nil {
		return nil, err
	}
	cache := pipeline.For(ctx)
	if r.generate, err = cache.Get(generateKernel, group); err != nil {
		return nil, err
	}
	if r.shade, err = cache.Get(shadeKernel, ShadeGroup); err != nil {
		return nil, err
	}
	if r.resolve, err = cache.Get(resolveKernel, group); err != nil {
		return nil, err
	}
	align := max(info.MinStorageBufferOffsetAlignment, 16)
	r.blockStride = (compact.ResultSize + align - 1) / align * align
	scene := []gpuScene{NewScene(p.Width, p.Height).gpu()}
	for _, b := range []struct {
		buf  **vk.Buffer
		size uint64
	}{
		{&r.queues[0], n * RaySize},
		{&r.queues[1], n * RaySize},
		{&r.radiance, n * 12},
		{&r.pixels, p.Pixels() * 12},
		{&r.counts, uint64(p.Bounces) * 4},
		{&r.results, uint64(p.Bounces) * r.blockStride},
		{&r.scene, uint64(binary.Size(scene))},
		{&r.scratch, max(r.plan.ScratchSize(), 4)},
	} {
		if *b.buf, err = ctx.NewBuffer(b.size, vk.DeviceLocal); err != nil {
			return nil, err
		}
	}
	if err := vk.Upload(r.scene.All(), scene); err != nil {
		return nil, err
	}
	if info.TimestampValidBits > 0 {
		if r.timer, err = ctx.NewTimer(uint32(2*p.Bounces + 2)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Params returns the render's parameters.
func (r *Renderer) Params() Params { return r.params }

// Tuning returns the compaction's tuning (its path, among others).
func (r *Renderer) Tuning() compact.Tuning { return r.plan.Tuning() }

// Release frees the buffers and the timer. It is idempotent.
func (r *Renderer) Release() {
	if r == nil {
		return
	}
	for _, b := range []**vk.Buffer{&r.queues[0], &r.queues[1], &r.radiance, &r.pixels, &r.counts, &r.results, &r.scene, &r.scratch} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
	if r.timer != nil {
		r.timer.Release()
		r.timer = nil
	}
}

// block returns result block b.
func (r *Renderer) block(b int) vk.Range {
	return r.results.Range(uint64(b)*r.blockStride, compact.ResultSize)
}

// Record records one frame in mode m into rec's command buffer: generate,
// the bounces (each compacted after it but the last, in Compacted mode),
// resolve. It needs no initialised buffers but the scene. Its
// synchronisation contract is the recorder's: the first accesses are
// compute-shader reads and writes, the last compute-shader writes (of
// the pixels, radiance, counters and result blocks), which the caller
// orders before its reads.
func (r *Renderer) Record(rec *pipeline.Recorder, m Mode) { r.record(rec, m, func() {}) }

// RecordTimed is Record with a timestamp before the frame and after each
// of its steps (generate, each bounce, each compaction, resolve): 2B+2
// queries compacted, B+3 uncompacted, of t, reset earlier in the command
// buffer.
func (r *Renderer) RecordTimed(rec *pipeline.Recorder, m Mode, t *vk.Timer) {
	i := uint32(0)
	r.record(rec, m, func() {
		if rec.Err() == nil {
			t.Stamp(rec.CommandBuffer(), i)
		}
		i++
	})
}

func (r *Renderer) record(rec *pipeline.Recorder, m Mode, stamp func()) {
	p := r.params
	n, bounces := uint32(p.Paths()), uint32(p.Bounces)
	stamp()
	rec.Dispatch(r.generate, (uint64(n)+group-1)/group,
		[]uint32{uint32(p.Width), uint32(p.Height), uint32(p.SPP), bounces, r.grid.X, r.grid.Y},
		r.queues[0].All(), r.radiance.All(), r.counts.All(), r.block(0), r.scene.All())
	stamp()
	q := 0
	for b := range p.Bounces {
		in := r.block(0) // uncompacted, every bounce walks all N slots
		if m == Compacted {
			in = r.block(b)
		}
		count := in.Sub(compact.ResultKeptOffset, 4)
		rec.DispatchIndirect(r.shade, in.Sub(compact.ResultDispatchOffset, 12), []uint32{uint32(b), bounces},
			r.queues[q].All(), r.radiance.All(), r.counts.All(), r.scene.All(), count)
		stamp()
		if m == Compacted && b+1 < p.Bounces {
			r.plan.Record(rec, compact.Buffers{
				Src:     r.queues[q].All(),
				Dst:     r.queues[1-q].All(),
				Result:  r.block(b + 1),
				Scratch: r.scratch.Range(0, r.plan.ScratchSize()),
				Count:   count,
			})
			q = 1 - q
			stamp()
		}
	}
	rec.Dispatch(r.resolve, (p.Pixels()+group-1)/group,
		[]uint32{uint32(p.Pixels()), uint32(p.SPP), math.Float32bits(float32(1) / float32(p.SPP))},
		r.radiance.All(), r.pixels.All())
	stamp()
}

// Poison fills the queues, radiance, pixels, counters and result blocks
// with ones (NaNs; dead rays; counts of 2^32-1), so that anything a frame
// fails to write cannot pass. Record it before Record, in the same
// command buffer; it ends with the barrier that orders it before the
// compute shaders.
func (r *Renderer) Poison(cb vk.CommandBuffer) {
	for _, b := range []*vk.Buffer{r.queues[0], r.queues[1], r.radiance, r.pixels, r.counts, r.results} {
		cb.FillBuffer(b.All(), 0xffffffff)
	}
	cb.MemoryBarrier(vk.StageTransfer, vk.StageComputeShader, vk.AccessTransferWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
}

// Timing is a frame's GPU time, by step, in milliseconds.
type Timing struct {
	Ms         float64   // the whole frame
	GenerateMs float64   // the camera rays
	ShadeMs    []float64 // each bounce's shade dispatch
	CompactMs  []float64 // each compaction, after every bounce but the last; nil uncompacted
	ResolveMs  float64
}

// CompactionMs returns the frame's time spent compacting.
func (t *Timing) CompactionMs() float64 {
	sum := 0.0
	for _, ms := range t.CompactMs {
		sum += ms
	}
	return sum
}

// Run records the poisoned buffers and one frame into one command buffer,
// submits it and waits: nothing is read back between bounces. It returns
// the frame's GPU time, or nil where the device has no timestamps.
func (r *Renderer) Run(m Mode) (*Timing, error) {
	err := r.ctx.Submit(func(cb vk.CommandBuffer) error {
		// Earlier work of the queue (an earlier frame's indirect reads and
		// downloads included) before the fills and the frame.
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageTransfer|vk.StageComputeShader, vk.AccessMemoryWrite,
			vk.AccessTransferWrite|vk.AccessShaderRead|vk.AccessShaderWrite)
		r.Poison(cb)
		rec := pipeline.Record(cb)
		if r.timer != nil {
			r.timer.Reset(cb)
			r.RecordTimed(rec, m, r.timer)
		} else {
			r.Record(rec, m)
		}
		cb.MemoryBarrier(vk.StageComputeShader, vk.StageAllCommands, vk.AccessShaderWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
		return rec.Err()
	})
	if err != nil || r.timer == nil {
		return nil, err
	}
	return r.timing(m)
}

// timing reads the stamps of a frame in mode m, in the order record
// wrote them.
func (r *Renderer) timing(m Mode) (*Timing, error) {
	var t Timing
	i := uint32(0)
	var err error
	step := func() float64 {
		if err != nil {
			return 0
		}
		var ns float64
		ns, err = r.timer.Nanoseconds(i, i+1)
		i++
		return ns / 1e6
	}
	t.GenerateMs = step()
	for b := range r.params.Bounces {
		t.ShadeMs = append(t.ShadeMs, step())
		if m == Compacted && b+1 < r.params.Bounces {
			t.CompactMs = append(t.CompactMs, step())
		}
	}
	t.ResolveMs = step()
	if err == nil {
		var ns float64
		ns, err = r.timer.Nanoseconds(0, i)
		t.Ms = ns / 1e6
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// Read downloads what the last frame left: the pixels, each path's
// radiance when samples is true, and the rays entering each bounce, from
// the result blocks (Compacted) or the shade's counters (Uncompacted),
// which it also returns as Counted.
func (r *Renderer) Read(m Mode, samples bool) (*Render, error) {
	p := r.params
	out := &Render{Params: p, Pixels: make([]float32, 3*p.Pixels()), Counted: make([]uint32, p.Bounces)}
	if err := vk.Download(r.pixels.All(), out.Pixels); err != nil {
		return nil, err
	}
	if samples {
		out.Samples = make([]float32, 3*p.Paths())
		if err := vk.Download(r.radiance.All(), out.Samples); err != nil {
			return nil, err
		}
	}
	if err := vk.Download(r.counts.All(), out.Counted); err != nil {
		return nil, err
	}
	if m == Uncompacted {
		out.Rays = slices.Clone(out.Counted)
		return out, nil
	}
	words := make([]uint32, r.results.Size()/4)
	if err := vk.Download(r.results.All(), words); err != nil {
		return nil, err
	}
	for b := range p.Bounces {
		out.Rays = append(out.Rays, words[uint64(b)*r.blockStride/4+compact.ResultKeptOffset/4])
	}
	return out, nil
}
