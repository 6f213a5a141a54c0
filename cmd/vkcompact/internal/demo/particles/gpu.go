package particles

//go:generate go run ../../../../../shaders/internal/spvgen -src . -out .

import (
	"embed"
	"fmt"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

//go:embed *.spv
var spirvFiles embed.FS

// UpdateGroup is the update kernel's workgroup size.
const UpdateGroup = 64

// The frame block, written by setup: n at 0 (the compaction's count), K
// at 4, the update's VkDispatchIndirectCommand at 16.
const (
	frameBlockSize  = 32
	frameArgsOffset = 16
)

var (
	setupKernel = &pipeline.Kernel{
		Name:      "particles_setup",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "setup"),
		Bindings:  []pipeline.Use{pipeline.Read, pipeline.Write, pipeline.Write},
		PushWords: 4,
	}
	updateKernel = &pipeline.Kernel{
		Name:      "particles_update",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "update"),
		Bindings:  []pipeline.Use{pipeline.ReadWrite, pipeline.Write, pipeline.Read},
		PushWords: 2,
	}
)

// Sim is a particle system on one context: its buffers, the compaction
// plan and the pipelines. Record its frames into a command buffer, or Run
// them; then Read the state back.
type Sim struct {
	ctx           *vk.Context
	params        Params
	plan          *compact.Plan
	setup, update *pipeline.Pipeline
	gridX         uint32 // the update's grid width limit: maxComputeWorkGroupCount[0]
	// particles: two buffers of Capacity particles, taken in turn: frame
	// f updates particles[f%2] and compacts it into the other, out of
	// place, so the compaction can take the single pass (which does not
	// run in place) on a GPU; flags: one uint32 each; result: the
	// compaction's result block; frame: the frame block; history: the kept
	// count at each frame boundary (Frames+1 words).
	particles                              [2]*vk.Buffer
	flags, result, frame, history, scratch *vk.Buffer
	grid                                   *grid // with Params.Grid
}

// NewSim checks p for ctx and creates the system's buffers and pipelines.
// The particles must fit one storage-buffer binding: Capacity*32 bytes at
// most maxStorageBufferRange (128 MiB, 4M particles, on lavapipe). Larger
// counts of workgroups than maxComputeWorkGroupCount[0] go on a 2D grid.
func NewSim(ctx *vk.Context, p Params) (s *Sim, err error) {
	if err := p.Check(); err != nil {
		return nil, errs.Invalidf("%w", err)
	}
	info := ctx.Info()
	if bytes := uint64(p.Capacity) * Size; bytes > uint64(info.MaxStorageBufferRange) {
		return nil, errs.Invalidf("particles: %d particles take %d bytes; the device binds at most %d (maxStorageBufferRange), %d particles",
			p.Capacity, bytes, info.MaxStorageBufferRange, info.MaxStorageBufferRange/Size)
	}
	s = &Sim{ctx: ctx, params: p, gridX: info.MaxWorkgroupCount[0]}
	update := updateKernel
	defer func() {
		if err != nil {
			s.Release()
		}
	}()
	if p.Grid {
		if s.grid, err = newGrid(ctx, p); err != nil {
			return nil, err
		}
		update = gridUpdateKernel // the swarm's
	}
	s.plan, err = compact.NewPlan(ctx, uint64(p.Capacity), compact.Selection{
		Elem:    vkcompact.Struct(Size, 0, vkcompact.Float32), // the key is unused: flags decide
		Keep:    compact.KeepFlagged(4),
		Options: compact.Options{Path: p.Path},
	})
	if err != nil {
		return nil, err
	}
	cache := pipeline.For(ctx)
	if s.setup, err = cache.Get(setupKernel, 1, UpdateGroup); err != nil {
		return nil, err
	}
	if s.update, err = cache.Get(update, UpdateGroup); err != nil {
		return nil, err
	}
	for _, b := range []struct {
		buf  **vk.Buffer
		size uint64
	}{
		{&s.particles[0], uint64(p.Capacity) * Size},
		{&s.particles[1], uint64(p.Capacity) * Size},
		{&s.flags, uint64(p.Capacity) * 4},
		{&s.result, compact.ResultSize},
		{&s.frame, frameBlockSize},
		{&s.history, uint64(p.Frames+1) * 4},
		{&s.scratch, max(s.plan.ScratchSize(), 4)},
	} {
		if *b.buf, err = ctx.NewBuffer(b.size, vk.DeviceLocal); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Params returns the run's parameters.
func (s *Sim) Params() Params { return s.params }

// Release frees the buffers. It is idempotent.
func (s *Sim) Release() {
	if s == nil {
		return
	}
	s.grid.release()
	s.grid = nil
	for _, b := range []**vk.Buffer{&s.particles[0], &s.particles[1], &s.flags, &s.result, &s.frame, &s.history, &s.scratch} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
}

// Record records every frame into r's command buffer, and the final setup
// that stores the last kept count. It needs no initialised buffers: frame
// 0's setup starts from K = 0. Its synchronisation contract is the
// recorder's: the first accesses are compute-shader reads and writes, the
// last compute-shader writes (of the particles, the result block, the
// frame block and history), which the caller orders before its reads.
func (s *Sim) Record(r *pipeline.Recorder) { s.record(r, 0, uint32(s.params.Frames), nil) }

// RecordTimed is Record with timestamps: S+1 queries a frame (S =
// len(GridStages) with the grid, else 1), frame f's query f*(S+1)+k before
// its stage k and f*(S+1)+S after its last, so that the frames may also
// be recorded in several command buffers (Run does). t needs Stamps()
// queries, reset earlier in the command buffer.
func (s *Sim) RecordTimed(r *pipeline.Recorder, t *vk.Timer) {
	s.record(r, 0, uint32(s.params.Frames), s.stamper(r, t))
}

// stamper returns the stamp function of RecordTimed over r and t.
func (s *Sim) stamper(r *pipeline.Recorder, t *vk.Timer) func(uint32) {
	return func(i uint32) {
		if r.Err() == nil {
			t.Stamp(r.CommandBuffer(), i)
		}
	}
}

// stagesPerFrame is the timed intervals of a frame: the whole frame, or
// each of GridStages.
func (s *Sim) stagesPerFrame() uint32 {
	if s.grid != nil {
		return uint32(len(GridStages))
	}
	return 1
}

// Stamps is the timestamps RecordTimed writes.
func (s *Sim) Stamps() uint32 { return uint32(s.params.Frames) * (s.stagesPerFrame() + 1) }

// record records frames first to end-1, and after the last frame of the
// run the final setup, calling stamp (when not nil) with each query
// RecordTimed describes.
func (s *Sim) record(r *pipeline.Recorder, first, end uint32, stamp func(uint32)) {
	if stamp == nil {
		stamp = func(uint32) {}
	}
	per := s.stagesPerFrame()
	p := s.params
	block := s.frame.All()
	setup := func(f uint32) {
		r.Dispatch(s.setup, 1, []uint32{f, p.Spawn, p.Capacity, s.gridX}, s.result.All(), block, s.history.All())
	}
	for f := first; f < end; f++ {
		base := f * (per + 1)
		stamp(base)
		setup(f)
		cur, next := s.particles[f%2], s.particles[(f+1)%2]
		if s.grid != nil {
			// The swarm's update: each kept particle takes the push the
			// last frame's grid left for it (forces, by the same index).
			r.DispatchIndirect(s.update, block.Sub(frameArgsOffset, 12), []uint32{f, p.Seed, s.grid.side},
				cur.All(), s.flags.All(), block.Sub(0, 8), s.grid.forces.All())
		} else {
			r.DispatchIndirect(s.update, block.Sub(frameArgsOffset, 12), []uint32{f, p.Seed},
				cur.All(), s.flags.All(), block.Sub(0, 8))
		}
		s.plan.Record(r, compact.Buffers{
			Src:     cur.All(),
			Dst:     next.All(),
			Flags:   s.flags.All(),
			Result:  s.result.All(),
			Scratch: s.scratch.Range(0, s.plan.ScratchSize()),
			Count:   block.Sub(0, 4),
		})
		if s.grid != nil {
			k := base
			s.grid.record(r, f, next, s.result, func() { k++; stamp(k) })
		}
		stamp(base + per)
	}
	if end == uint32(p.Frames) {
		setup(end)
	}
}

// Poison fills the particles with NaNs and the flags with ones (keep), so
// that a slot the update fails to write cannot pass as a live particle.
// Record it before Record, in the same command buffer; it ends with the
// barrier that orders it before the compute shaders.
func (s *Sim) Poison(cb vk.CommandBuffer) {
	cb.FillBuffer(s.particles[0].All(), 0xffffffff)
	cb.FillBuffer(s.particles[1].All(), 0xffffffff)
	cb.FillBuffer(s.flags.All(), 1)
	if s.grid != nil {
		s.grid.poison(cb)
	}
	cb.MemoryBarrier(vk.StageTransfer, vk.StageComputeShader, vk.AccessTransferWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
}

// Timing is a run's GPU time per frame.
type Timing struct {
	FrameMs []float64 // FrameMs[f] is frame f's time, ms
	// StageMs[k][f], with the grid, is stage k's (GridStages[k]) time in
	// frame f, ms; the first stage's includes the frame's setup.
	StageMs [][]float64
}

// RunBatch is the frames Run records into one command buffer: each
// submission waits for its frames alone (vk.Options.Timeout bounds that
// wait), and the caller hears after each.
const RunBatch = 8

// Run records the poisoned buffers and the frames, RunBatch frames to a
// command buffer, submits each and waits: nothing is read back between
// frames. It calls done, when not nil, with the frames finished after
// each submission. It returns the GPU time of each frame, or nil where
// the device has no timestamps.
func (s *Sim) Run(done func(frames int)) (*Timing, error) {
	var timer *vk.Timer
	if s.ctx.Info().TimestampValidBits > 0 {
		var err error
		if timer, err = s.ctx.NewTimer(s.Stamps()); err != nil {
			return nil, err
		}
		defer timer.Release()
	}
	frames := uint32(s.params.Frames)
	for first := uint32(0); first < frames; first += RunBatch {
		end := min(first+RunBatch, frames)
		err := s.ctx.Submit(func(cb vk.CommandBuffer) error {
			// Earlier work of the queue (an earlier run's, or the last
			// batch's frames) before the fills and these frames.
			cb.MemoryBarrier(vk.StageAllCommands, vk.StageTransfer|vk.StageComputeShader, vk.AccessMemoryWrite,
				vk.AccessTransferWrite|vk.AccessShaderRead|vk.AccessShaderWrite)
			if first == 0 {
				s.Poison(cb)
				if timer != nil {
					timer.Reset(cb)
				}
			}
			r := pipeline.Record(cb)
			var stamp func(uint32)
			if timer != nil {
				stamp = s.stamper(r, timer)
			}
			s.record(r, first, end, stamp)
			cb.MemoryBarrier(vk.StageComputeShader, vk.StageAllCommands, vk.AccessShaderWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
			return r.Err()
		})
		if err != nil {
			return nil, err
		}
		if done != nil {
			done(int(end))
		}
	}
	if timer == nil {
		return nil, nil
	}
	return s.timing(timer)
}

// timing reads a run's timestamps.
func (s *Sim) timing(timer *vk.Timer) (*Timing, error) {
	per := s.stagesPerFrame()
	t := &Timing{FrameMs: make([]float64, s.params.Frames)}
	if s.grid != nil {
		t.StageMs = make([][]float64, per)
		for k := range t.StageMs {
			t.StageMs[k] = make([]float64, s.params.Frames)
		}
	}
	for f := range t.FrameMs {
		first := uint32(f) * (per + 1)
		ns, err := timer.Nanoseconds(first, first+per)
		if err != nil {
			return nil, err
		}
		t.FrameMs[f] = ns / 1e6
		for k := range t.StageMs {
			if ns, err = timer.Nanoseconds(first+uint32(k), first+uint32(k)+1); err != nil {
				return nil, err
			}
			t.StageMs[k][f] = ns / 1e6
		}
	}
	return t, nil
}

// Read downloads the state a run left: the live count after each frame
// and the live particles.
func (s *Sim) Read() (State, error) {
	hist := make([]uint32, s.params.Frames+1)
	if err := vk.Download(s.history.All(), hist); err != nil {
		return State{}, err
	}
	live := hist[1:]
	n := live[len(live)-1]
	if n > s.params.Capacity {
		return State{}, fmt.Errorf("particles: the GPU reports %d live particles in a buffer of %d", n, s.params.Capacity)
	}
	ps := make([]Particle, n)
	if n > 0 {
		if err := vk.Download(s.particles[s.params.Frames%2].Range(0, uint64(n)*Size), ps); err != nil {
			return State{}, err
		}
	}
	st := State{Particles: ps, Live: live}
	if s.grid != nil {
		g, occupied, err := s.grid.read(n, s.params.Frames)
		if err != nil {
			return State{}, err
		}
		st.Grid, st.Occupied = &g, occupied
	}
	return st, nil
}
