package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"io"
	"math"
	"strconv"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/demo/particles"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/vk"
)

// Defaults of `vkcompact demo`: 2^20 particles (32 MiB) for 60 frames, a
// size that runs in seconds on a CPU driver such as lavapipe, where the Go
// simulation that checks it must run too (the README says how long;
// BENCHMARKS-history.md has the demo's GPU times). With -grid (the swarm,
// whose grid finds some 25 neighbours per particle each frame, on the GPU
// and in the Go reference): 2^15 particles spawned 2^11 a frame, so that
// the buffer is full from frame 16, for 40 frames, particles dying from
// frame 32: verified in about 3 s on lavapipe.
const (
	demoDefaultParticles     = 1 << 20
	demoDefaultFrames        = 60
	demoGridDefaultParticles = 1 << 15
	demoGridDefaultFrames    = 40
	demoDefaultSeed          = 1
	demoPNGWidth             = 512
)

// demoOutput is the JSON of `vkcompact demo -json`.
type demoOutput struct {
	Op        string `json:"op"` // "demo"
	Verified  bool   `json:"verified"`
	Frames    int    `json:"frames"`
	Particles uint32 `json:"particles"` // the capacity
	Spawn     uint32 `json:"spawn"`     // spawned per frame (fewer when full)
	Seed      uint32 `json:"seed"`
	Live      uint32 `json:"live"` // live at the end
	// LivePerFrame[f] is the count kept by frame f's compaction, as the
	// GPU recorded it.
	LivePerFrame []uint32 `json:"live_per_frame"`
	// GPUmsPerFrame is the mean GPU time of a frame; GPUmsFrames each
	// frame's; GPUms all of them. null where the device has no
	// timestamps.
	GPUmsPerFrame *float64  `json:"gpu_ms_per_frame"`
	GPUmsFrames   []float64 `json:"gpu_ms_frames"`
	GPUms         *float64  `json:"gpu_ms"`
	Device        string    `json:"device"`
	// With -grid: the cube's side in cells (particles.Side); the grid's
	// stages (particles.GridStages) and the mean GPU time of each per
	// frame, ms, in the same order (absent without timestamps), over all
	// frames and over the frames that begin with a full buffer (kept
	// plus spawned reaching the capacity; absent when none does); the
	// occupied cells after each frame; the mean and the largest count of
	// neighbours (other particles closer than the interaction radius) of
	// the last frame's particles; the mean over the last frame's
	// occupied cells of the speed of each one's fastest particle (the
	// GPU's reduction by cell), and the largest, in cells per second.
	Grid             bool      `json:"grid,omitempty"`
	GridSide         uint32    `json:"grid_side,omitempty"`
	GridStages       []string  `json:"grid_stages,omitempty"`
	GridStageMs      []float64 `json:"grid_stage_ms,omitempty"`
	GridStageMsFull  []float64 `json:"grid_stage_ms_full,omitempty"`
	OccupiedCells    []uint32  `json:"occupied_cells_per_frame,omitempty"`
	NeighboursMean   *float64  `json:"neighbours_mean,omitempty"`
	NeighboursMax    *uint32   `json:"neighbours_max,omitempty"`
	CellMaxSpeedMean *float64  `json:"cell_max_speed_mean,omitempty"`
	CellMaxSpeedMax  *float64  `json:"cell_max_speed_max,omitempty"`
	// Mismatch describes the first difference from the Go simulation when
	// Verified is false.
	Mismatch string `json:"mismatch,omitempty"`
	PNG      string `json:"png,omitempty"`
}

// demoJob is a checked invocation of demo.
type demoJob struct {
	drawingJob
	params particles.Params
}

// demoTamper, when set (by tests), changes the GPU's state after it is
// read back and before it is checked: the check must catch it.
var demoTamper func(*particles.State)

// run runs `vkcompact demo` (runDrawing): the particle system on the
// GPU, then the same frames in Go, then the comparison and the report.
func (j *demoJob) run(stderr io.Writer) (checkedRun, error) {
	got, timing, device, err := j.runGPU(stderr)
	if err != nil {
		return checkedRun{}, err
	}
	if demoTamper != nil {
		demoTamper(&got)
	}
	mismatch := particles.Compare(got, particles.Simulate(j.params))
	o := demoOutput{
		Op: "demo", Verified: mismatch == nil, Frames: j.params.Frames, Particles: j.params.Capacity,
		Spawn: j.params.Spawn, Seed: j.params.Seed, LivePerFrame: got.Live, Device: device, PNG: j.png,
		Grid: j.params.Grid, OccupiedCells: got.Occupied,
	}
	if j.params.Grid {
		o.GridSide, o.GridStages = particles.Side(j.params.Capacity), particles.GridStages
		if got.Grid != nil {
			mean, most := got.Grid.NeighbourStats()
			o.NeighboursMean, o.NeighboursMax = &mean, &most
			speed, top := got.Grid.CellSpeedStats()
			o.CellMaxSpeedMean, o.CellMaxSpeedMax = &speed, &top
		}
	}
	if n := len(got.Live); n > 0 {
		o.Live = got.Live[n-1]
	}
	if timing != nil {
		o.GPUmsFrames = timing.FrameMs
		total := 0.0
		for _, ms := range timing.FrameMs {
			total += ms
		}
		mean := total / float64(len(timing.FrameMs))
		o.GPUms, o.GPUmsPerFrame = &total, &mean
		o.GridStageMs, o.GridStageMsFull = stageMeans(timing.StageMs, j.params, got.Live)
	}
	var failed error
	if mismatch != nil {
		o.Mismatch = mismatch.Error()
		failed = fmt.Errorf("demo: the GPU's particles differ from the Go simulation: %w", mismatch)
	}
	return checkedRun{report: o, picture: func() image.Image { return particles.Draw(got.Particles, demoPNGWidth) }, failed: failed}, nil
}

// stageMeans returns the mean of each stage's times over all frames, and
// over the frames that begin with a full buffer (frame f > 0 whose kept
// count live[f-1] plus the spawn reaches the capacity), nil where none
// does.
func stageMeans(stageMs [][]float64, p particles.Params, live []uint32) (all, full []float64) {
	for _, stage := range stageMs {
		sum, sumFull, nFull := 0.0, 0.0, 0
		for f, ms := range stage {
			sum += ms
			if f > 0 && f <= len(live) && uint64(live[f-1])+uint64(p.Spawn) >= uint64(p.Capacity) {
				sumFull += ms
				nFull++
			}
		}
		all = append(all, sum/float64(len(stage)))
		if nFull > 0 {
			full = append(full, sumFull/float64(nFull))
		}
	}
	return all, full
}

// parseDemo parses and checks the flags.
func parseDemo(args []string, stderr io.Writer) (*demoJob, error) {
	fs := newFlags("demo", stderr)
	n := fs.Int64("particles", demoDefaultParticles, fmt.Sprintf("particle capacity `N`: the buffer holds at most N particles (with -grid default %d)", demoGridDefaultParticles))
	frames := fs.Int64("frames", demoDefaultFrames, fmt.Sprintf("simulate `F` frames (with -grid default %d)", demoGridDefaultFrames))
	spawn := fs.Int64("spawn", 0, "spawn `S` particles per frame, fewer when the buffer is full (default N/64, with -grid N/16, at least 1)")
	seed := fs.Int64("seed", demoDefaultSeed, "`SEED` of the spawn hash, 0 to 4294967295")
	grid := fs.Bool("grid", false, "the swarm: particles spawned anywhere in a cube of about 7 per cell, which push apart; after each frame build the uniform grid of the live particles on the GPU (cell, sort by cell, the particles gathered into cell order, run-length encoding into cell starts and counts, each particle's neighbours and their push through the 27 adjacent cells, which the next frame applies, and each cell's fastest particle), verified against Go")
	drawing := drawingFlags(fs, "draw the final particles to `FILE` (PNG)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	spawnSet := set["spawn"]
	if *grid && !set["particles"] {
		*n = demoGridDefaultParticles
	}
	if *grid && !set["frames"] {
		*frames = demoGridDefaultFrames
	}
	switch {
	case *n < 1 || *n > math.MaxUint32:
		return nil, usage.Errorf("-particles %d: want 1 to %d", *n, uint64(math.MaxUint32))
	case *frames < 1 || *frames > particles.MaxFrames:
		return nil, usage.Errorf("-frames %d: want 1 to %d", *frames, particles.MaxFrames)
	case spawnSet && (*spawn < 1 || *spawn > math.MaxUint32):
		return nil, usage.Errorf("-spawn %d: want 1 to %d", *spawn, uint64(math.MaxUint32))
	case *seed < 0 || *seed > math.MaxUint32:
		return nil, usage.Errorf("-seed %d: want 0 to %d", *seed, uint64(math.MaxUint32))
	}
	if !spawnSet {
		*spawn = max(*n/64, 1)
		if *grid {
			*spawn = max(*n/16, 1)
		}
	}
	return &demoJob{
		params:     particles.Params{Capacity: uint32(*n), Frames: int(*frames), Spawn: uint32(*spawn), Seed: uint32(*seed), Grid: *grid},
		drawingJob: drawing(),
	}, nil
}

// runGPU runs the frames on the device and reads the state back, showing
// the frames done on a terminal.
func (j *demoJob) runGPU(stderr io.Writer) (st particles.State, t *particles.Timing, device string, err error) {
	prog := startProgress(stderr, j.asJSON, "demo")
	defer prog.end()
	frames := j.params.Frames
	device, err = onDevice(vk.Options{Device: j.device, Timeout: j.timeout}, prog.Writer(stderr), func(ctx *vk.Context, _ *allocator) error {
		sim, err := particles.NewSim(ctx, j.params)
		if err != nil {
			return err
		}
		defer sim.Release()
		prog.set(0, frames, "frames")
		if t, err = sim.Run(func(done int) { prog.set(done, frames, "frames") }); err != nil {
			return err
		}
		st, err = sim.Read()
		return err
	})
	return st, t, device, err
}

// printText writes the text report: one line per frame, then a summary.
func (o demoOutput) printText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%6s %10s %12s\n", "frame", "live", "GPU ms")
	for f, live := range o.LivePerFrame {
		ms := "n/a"
		if f < len(o.GPUmsFrames) {
			ms = strconv.FormatFloat(o.GPUmsFrames[f], 'f', 3, 64)
		}
		fmt.Fprintf(&b, "%6d %10d %12s\n", f, live, ms)
	}
	check := "verified bit for bit against the Go simulation"
	if o.Grid {
		check += " and its grid"
	}
	if !o.Verified {
		check = "NOT verified: " + o.Mismatch
	}
	per := "GPU time n/a (no timestamps)"
	if o.GPUmsPerFrame != nil {
		per = fmt.Sprintf("%.3f ms GPU time per frame", *o.GPUmsPerFrame)
	}
	fmt.Fprintf(&b, "demo: %d frames, up to %d particles (%d spawned per frame), %d live at the end; %s; %s on %s\n",
		o.Frames, o.Particles, o.Spawn, o.Live, check, per, o.Device)
	if o.Grid {
		cells := uint32(0)
		if k := len(o.OccupiedCells); k > 0 {
			cells = o.OccupiedCells[k-1]
		}
		mean, most, speed, top := 0.0, uint32(0), 0.0, 0.0
		if o.NeighboursMean != nil {
			mean, most, speed, top = *o.NeighboursMean, *o.NeighboursMax, *o.CellMaxSpeedMean, *o.CellMaxSpeedMax
		}
		fmt.Fprintf(&b, "demo: grid of %d^3 cells, %d occupied at the end, %.1f neighbours per particle (at most %d), each cell's fastest particle at %.2f cells/s on average (at most %.2f)",
			o.GridSide, cells, mean, most, speed, top)
		for k, ms := range o.GridStageMs {
			sep := "; GPU ms per frame: "
			if k > 0 {
				sep = ", "
			}
			fmt.Fprintf(&b, "%s%s %.3f", sep, o.GridStages[k], ms)
		}
		for k, ms := range o.GridStageMsFull {
			sep := "; with the buffer full: "
			if k > 0 {
				sep = ", "
			}
			fmt.Fprintf(&b, "%s%s %.3f", sep, o.GridStages[k], ms)
		}
		fmt.Fprintln(&b)
	}
	if o.PNG != "" {
		fmt.Fprintf(&b, "demo: drew the final particles to %s\n", o.PNG)
	}
	_, err := w.Write(b.Bytes())
	return err
}
