package main

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/demo/particles"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// demoJSON is the part of the demo's JSON the tests read.
type demoJSON struct {
	Op            string    `json:"op"`
	Verified      bool      `json:"verified"`
	Frames        int       `json:"frames"`
	Particles     uint32    `json:"particles"`
	Spawn         uint32    `json:"spawn"`
	Seed          uint32    `json:"seed"`
	Live          uint32    `json:"live"`
	LivePerFrame  []uint32  `json:"live_per_frame"`
	GPUmsPerFrame *float64  `json:"gpu_ms_per_frame"`
	GPUmsFrames   []float64 `json:"gpu_ms_frames"`
	GPUms         *float64  `json:"gpu_ms"`
	Device        string    `json:"device"`
	Mismatch      string    `json:"mismatch"`
}

func TestDemoJSON(t *testing.T) {
	requireDevice(t)
	// 5000 and 4099 are not multiples of the update's 64; with spawn 333
	// the buffer fills at frame 13 and particles die from frame 16.
	for _, c := range []struct {
		args []string
		p    particles.Params
	}{
		{[]string{"-particles", "5000", "-frames", "20"}, particles.Params{Capacity: 5000, Frames: 20, Spawn: 78, Seed: 1}},
		{[]string{"-particles", "4099", "-frames", "40", "-spawn", "333", "-seed", "4294967295"}, particles.Params{Capacity: 4099, Frames: 40, Spawn: 333, Seed: math.MaxUint32}},
	} {
		args := append([]string{"demo", "-json", "-device", os.Getenv("VKCOMPACT_DEVICE")}, c.args...)
		// The field names are the documented ones.
		out := runJSON(t, args, "verified", "frames", "particles", "live", "gpu_ms_per_frame", "live_per_frame", "spawn", "seed", "device", "gpu_ms_frames", "gpu_ms")
		d := decodeLastLine[demoJSON](t, out)
		want := particles.Simulate(c.p)
		if !d.Verified || d.Op != "demo" || d.Frames != c.p.Frames || d.Particles != c.p.Capacity || d.Spawn != c.p.Spawn || d.Seed != c.p.Seed {
			t.Errorf("%v: JSON %+v", args, d)
		}
		if !slices.Equal(d.LivePerFrame, want.Live) || d.Live != want.Live[c.p.Frames-1] {
			t.Errorf("%v: live %d, per frame %v; want %v", args, d.Live, d.LivePerFrame, want.Live)
		}
		if d.GPUmsPerFrame == nil || *d.GPUmsPerFrame <= 0 || len(d.GPUmsFrames) != c.p.Frames || d.GPUms == nil ||
			math.Abs(*d.GPUms-*d.GPUmsPerFrame*float64(c.p.Frames)) > 1e-6**d.GPUms {
			t.Errorf("%v: GPU times %v per frame, %v, %v total", args, d.GPUmsPerFrame, d.GPUmsFrames, d.GPUms)
		}
		if d.Device == "" || d.Mismatch != "" {
			t.Errorf("device %q, mismatch %q", d.Device, d.Mismatch)
		}
	}
}

func TestDemoTextAndPNG(t *testing.T) {
	requireDevice(t)
	pngPath := filepath.Join(vktest.TempDir(t), "fountain.png")
	code, out, errOut := runCLI(t, "demo", "-particles", "3000", "-frames", "30", "-png", pngPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 1+30+2 || !strings.Contains(out, "verified bit for bit") || !strings.Contains(out, "ms GPU time per frame on ") {
		t.Errorf("output:\n%s", out)
	}
	want := particles.Simulate(particles.Params{Capacity: 3000, Frames: 30, Spawn: 46, Seed: 1})
	if f := strings.Fields(lines[30]); len(f) != 3 || f[0] != "29" || f[1] != strconv.Itoa(int(want.Live[29])) {
		t.Errorf("frame 29's line %q; the simulation keeps %d", lines[30], want.Live[29])
	}
	b, img := readPNG(t, pngPath)
	if img.Bounds().Dx() != demoPNGWidth {
		t.Errorf("the picture is %v", img.Bounds())
	}
	var drawn bytes.Buffer
	if err := png.Encode(&drawn, particles.Draw(want.Particles, demoPNGWidth)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, drawn.Bytes()) {
		t.Error("the picture is not the simulation's final state drawn")
	}
}

// TestDemoDetectsCorruption changes the GPU's state after it is read
// back: the check must fail, the JSON say so, and the exit status be 1.
// It runs in process, since the change is a test hook.
func TestDemoDetectsCorruption(t *testing.T) {
	requireDevice(t)
	defer func() { demoTamper = nil }()
	grid := func(st *particles.State) *particles.Grid {
		if st.Grid == nil || len(st.Grid.Neighbours) < 2 {
			t.Fatalf("no grid to change: %+v", st.Grid)
		}
		return st.Grid
	}
	for name, tamper := range map[string]func(*particles.State){
		"grid: neighbour count": func(st *particles.State) { grid(st).Neighbours[1]++ },
		"grid: sorted ids": func(st *particles.State) {
			g := grid(st)
			g.Ids[0], g.Ids[1] = g.Ids[1], g.Ids[0]
		},
		"grid: occupied cells": func(st *particles.State) { st.Occupied[3]++ },
		"grid: a gathered particle's lowest bit": func(st *particles.State) {
			p := &grid(st).Sorted[1]
			p.Pos[0] = math.Float32frombits(math.Float32bits(p.Pos[0]) ^ 1)
		},
		"grid: a cell's largest squared speed": func(st *particles.State) {
			g := grid(st)
			g.MaxSpeedSq[2] = math.Float32frombits(math.Float32bits(g.MaxSpeedSq[2]) ^ 1)
		},
		"grid: a push's lowest bit": func(st *particles.State) {
			g := grid(st)
			g.Forces[5] = math.Float32frombits(math.Float32bits(g.Forces[5]) ^ 1)
		},
		"particle": func(st *particles.State) {
			p := &st.Particles[len(st.Particles)/2]
			p.Vel[1] = math.Float32frombits(math.Float32bits(p.Vel[1]) ^ 1) // one ulp
		},
		"live count": func(st *particles.State) { st.Live[4]-- },
		"lost particle": func(st *particles.State) {
			st.Particles = st.Particles[:len(st.Particles)-1]
		},
	} {
		demoTamper = tamper
		var out, errOut bytes.Buffer
		args := []string{"demo", "-particles", "2000", "-frames", "12", "-json"}
		if strings.HasPrefix(name, "grid") {
			args = append(args, "-grid")
		}
		code := run(args, &out, &errOut)
		d := decodeLastLine[demoJSON](t, out.String())
		if code != 1 || d.Verified || d.Mismatch == "" || !strings.HasPrefix(errOut.String(), "vkcompact: demo: the GPU's particles differ") {
			t.Errorf("%s changed: exit %d, verified %v, mismatch %q, stderr %q", name, code, d.Verified, d.Mismatch, errOut.String())
		}
	}
}

// TestDemoGridJSON runs the demo with its grid: verified, the stages named
// and timed, the cube's side, the occupied cells of every frame, and the
// last frame's neighbour counts and cells' fastest particles as the Go
// simulation has them.
func TestDemoGridJSON(t *testing.T) {
	requireDevice(t)
	p := particles.Params{Capacity: 3001, Frames: 15, Spawn: 250, Seed: 6, Grid: true}
	args := []string{"demo", "-json", "-grid", "-device", os.Getenv("VKCOMPACT_DEVICE"), "-particles", "3001", "-frames", "15", "-spawn", "250", "-seed", "6"}
	out := runJSON(t, args, "verified", "grid", "grid_side", "grid_stages", "grid_stage_ms", "grid_stage_ms_full", "occupied_cells_per_frame", "neighbours_mean", "neighbours_max",
		"cell_max_speed_mean", "cell_max_speed_max")
	type gridJSON struct {
		demoJSON
		Grid             bool      `json:"grid"`
		GridSide         uint32    `json:"grid_side"`
		GridStages       []string  `json:"grid_stages"`
		GridStageMs      []float64 `json:"grid_stage_ms"`
		GridStageMsFull  []float64 `json:"grid_stage_ms_full"`
		OccupiedCells    []uint32  `json:"occupied_cells_per_frame"`
		NeighboursMean   float64   `json:"neighbours_mean"`
		NeighboursMax    uint32    `json:"neighbours_max"`
		CellMaxSpeedMean float64   `json:"cell_max_speed_mean"`
		CellMaxSpeedMax  float64   `json:"cell_max_speed_max"`
	}
	d := decodeLastLine[gridJSON](t, out)
	want := particles.Simulate(p)
	if !d.Verified || !d.Grid || d.GridSide != particles.Side(3001) || !slices.Equal(d.GridStages, particles.GridStages) || !slices.Equal(d.OccupiedCells, want.Occupied) {
		t.Errorf("JSON %+v; want occupied cells %v", d, want.Occupied)
	}
	if mean, most := want.Grid.NeighbourStats(); d.NeighboursMean != mean || d.NeighboursMax != most || !(mean > 0) {
		t.Errorf("neighbours %g on average, %d at most; want %g, %d", d.NeighboursMean, d.NeighboursMax, mean, most)
	}
	if mean, most := want.Grid.CellSpeedStats(); d.CellMaxSpeedMean != mean || d.CellMaxSpeedMax != most || !(mean > 0 && most >= mean) {
		t.Errorf("cells' fastest particles at %g cells/s on average, %g at most; want %g, %g", d.CellMaxSpeedMean, d.CellMaxSpeedMax, mean, most)
	}
	if len(d.GridStageMs) != len(particles.GridStages) || len(d.GridStageMsFull) != len(particles.GridStages) {
		t.Errorf("%d stage times, %d with the buffer full, for %d stages", len(d.GridStageMs), len(d.GridStageMsFull), len(particles.GridStages))
	}
	for k, ms := range d.GridStageMs {
		if !(ms > 0) {
			t.Errorf("stage %s: %g ms", d.GridStages[k], ms)
		}
	}
}

// TestStageMeans checks the stage means over all frames and over the
// frames that begin with a full buffer.
func TestStageMeans(t *testing.T) {
	p := particles.Params{Capacity: 10, Spawn: 4}
	live := []uint32{4, 6, 9, 10, 7} // full from frame 2 (6+4), then 3 (9+4), 4 (10+4)
	all, full := stageMeans([][]float64{{1, 2, 3, 4, 5}, {10, 10, 10, 10, 40}}, p, live)
	if !slices.Equal(all, []float64{3, 16}) || !slices.Equal(full, []float64{4, 20}) {
		t.Errorf("means %v, with the buffer full %v", all, full)
	}
	if _, full := stageMeans([][]float64{{1, 2}}, particles.Params{Capacity: 100, Spawn: 1}, []uint32{1, 2}); full != nil {
		t.Errorf("no full frame, means %v", full)
	}
}

// TestDemoGridText checks the grid's line of the text report: the cells,
// the neighbours, the cells' fastest particles and each stage's time.
func TestDemoGridText(t *testing.T) {
	mean, most, speed, top := 25.5, uint32(44), 1.25, 3.5
	o := demoOutput{
		Frames: 2, Particles: 100, Spawn: 50, Live: 90, LivePerFrame: []uint32{50, 90}, Device: "dev", Verified: true,
		Grid: true, GridSide: 3, GridStages: []string{"sort", "gather"}, GridStageMs: []float64{0.5, 0.25},
		OccupiedCells: []uint32{20, 27}, NeighboursMean: &mean, NeighboursMax: &most, CellMaxSpeedMean: &speed, CellMaxSpeedMax: &top,
	}
	var b bytes.Buffer
	if err := o.printText(&b); err != nil {
		t.Fatal(err)
	}
	want := "demo: grid of 3^3 cells, 27 occupied at the end, 25.5 neighbours per particle (at most 44), " +
		"each cell's fastest particle at 1.25 cells/s on average (at most 3.50); GPU ms per frame: sort 0.500, gather 0.250\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("report:\n%s\nwant it to end with\n%s", b.String(), want)
	}
}
