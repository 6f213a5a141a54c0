package particles

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestDemoGPU runs the particle system on the GPU and checks its final
// state, bit for bit, and its live count after every frame against the Go
// simulation: sizes that are not multiples of the workgroup, a buffer
// that fills up (the spawn clamped to the room left), deaths, one
// particle, and a random case (its parameters are in the subtest's name);
// each of the compaction's paths twice.
func TestDemoGPU(t *testing.T) {
	ctx := vktest.Open(t)
	for i, p := range []Params{
		{Capacity: 5000, Frames: 20, Spawn: 78, Seed: 1},
		{Capacity: 4099, Frames: 70, Spawn: 333, Seed: 7}, // full from frame 13, deaths from 16
		{Capacity: 1000, Frames: 45, Spawn: 1000, Seed: 0xffffffff},
		{Capacity: 1, Frames: 30, Spawn: 5, Seed: 2},
		{Capacity: 64, Frames: 3, Spawn: 64, Seed: 4},
		{Capacity: 1 + rand.Uint32N(6000), Frames: 1 + rand.IntN(60), Spawn: 1 + rand.Uint32N(400), Seed: rand.Uint32()},
	} {
		p.Path = []vkcompact.Path{vkcompact.PathAuto, vkcompact.PathSinglePass, vkcompact.PathThreePhase}[i%3]
		t.Run(fmt.Sprintf("cap%d_frames%d_spawn%d_seed%d_%v", p.Capacity, p.Frames, p.Spawn, p.Seed, p.Path), func(t *testing.T) {
			sim, err := NewSim(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if want := p.Path; want != vkcompact.PathAuto && sim.plan.Tuning().Path != want {
				t.Fatalf("the compaction took %v, want %v", sim.plan.Tuning().Path, want)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer sim.Release()
			checkRun(t, sim)
		})
	}
}

// checkRun runs sim and compares its state with the Go simulation's.
func checkRun(t *testing.T, sim *Sim) State {
	t.Helper()
	p := sim.Params()
	timing, err := sim.Run(nil)
	if err != nil {
		t.Fatal(err)
	}
	if timing == nil || len(timing.FrameMs) != p.Frames {
		t.Errorf("timing %v for %d frames", timing, p.Frames)
	} else {
		for f, ms := range timing.FrameMs {
			if ms < 0 {
				t.Errorf("frame %d: %g ms", f, ms)
			}
		}
		if stages := len(timing.StageMs); p.Grid && stages != len(GridStages) || !p.Grid && stages != 0 {
			t.Errorf("%d stage timings with grid %v", stages, p.Grid)
		}
		for k, stage := range timing.StageMs {
			if len(stage) != p.Frames {
				t.Errorf("stage %s: %d frames", GridStages[k], len(stage))
			}
		}
	}
	got, err := sim.Read()
	if err != nil {
		t.Fatal(err)
	}
	want := Simulate(p)
	if err := Compare(got, want); err != nil {
		t.Fatalf("%+v: %v", p, err)
	}
	dead := uint32(0)
	for f, live := range want.Live {
		prev := uint32(0)
		if f > 0 {
			prev = want.Live[f-1]
		}
		dead += prev + min(p.Spawn, p.Capacity-prev) - live
	}
	t.Logf("%d frames: %d live at the end, %d died", p.Frames, len(got.Particles), dead)
	return got
}

// TestDemoGPURerun runs one system twice: the second run starts afresh
// (frame 0 reads no earlier result) and ends the same.
func TestDemoGPURerun(t *testing.T) {
	ctx := vktest.Open(t)
	sim, err := NewSim(ctx, Params{Capacity: 777, Frames: 25, Spawn: 40, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Release()
	first := checkRun(t, sim)
	if err := Compare(checkRun(t, sim), first); err != nil {
		t.Fatal(err)
	}
}

// TestDemoGPUGrid makes the update's dispatch spill into a 2D grid, as it
// does above maxComputeWorkGroupCount[0] workgroups, by lowering the
// limit the setup kernel is given.
func TestDemoGPUGrid(t *testing.T) {
	ctx := vktest.Open(t)
	for _, gridX := range []uint32{1, 3, 7} {
		t.Run(fmt.Sprint("gridX", gridX), func(t *testing.T) {
			sim, err := NewSim(ctx, Params{Capacity: 2000, Frames: 30, Spawn: 150, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			defer sim.Release()
			sim.gridX = gridX
			checkRun(t, sim)
		})
	}
}

// TestDemoGPURecord records the frames into a caller's command buffer
// with pipeline.Run, as an engine would, with no poisoning or timer.
func TestDemoGPURecord(t *testing.T) {
	ctx := vktest.Open(t)
	p := Params{Capacity: 3000, Frames: 24, Spawn: 130, Seed: 8}
	sim, err := NewSim(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Release()
	if err := pipeline.Run(ctx, sim.Record); err != nil {
		t.Fatal(err)
	}
	got, err := sim.Read()
	if err != nil {
		t.Fatal(err)
	}
	if err := Compare(got, Simulate(p)); err != nil {
		t.Fatal(err)
	}
}

// TestNewSimLimits checks the parameters NewSim refuses.
func TestNewSimLimits(t *testing.T) {
	ctx := vktest.Open(t)
	tooMany := uint32(min(uint64(ctx.Info().MaxStorageBufferRange)/Size+1, 1<<32-1))
	for _, p := range []Params{
		{Capacity: 0, Frames: 1, Spawn: 1},
		{Capacity: 10, Frames: 0, Spawn: 1},
		{Capacity: 10, Frames: 1, Spawn: 0},
		{Capacity: tooMany, Frames: 1, Spawn: 1},
	} {
		sim, err := NewSim(ctx, p)
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", p, err)
		}
		sim.Release()
	}
}
