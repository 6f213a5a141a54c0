package particles

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// randomParticles returns n particles at random positions in the box, a
// quarter of them crowded into a few cells (many neighbours, long runs),
// some on cell boundaries and walls, some above the grid's top.
func randomParticles(rng *rand.Rand, n int) []Particle {
	ps := make([]Particle, n)
	for i := range ps {
		p := &ps[i]
		switch i % 4 {
		case 0: // crowded near the spawn point
			p.Pos = [3]float32{rng.Float32()*0.1 - 0.05, rng.Float32() * 0.1, rng.Float32()*0.1 - 0.05}
		case 1: // on a cell boundary or a wall
			edge := func() float32 { return float32(rng.IntN(129))/32 - 2 }
			p.Pos = [3]float32{edge(), float32(rng.IntN(64)) / 32, edge()}
		case 2: // above the grid's top layer
			p.Pos = [3]float32{rng.Float32()*4 - 2, 4 + rng.Float32()*2, rng.Float32()*4 - 2}
		default:
			p.Pos = [3]float32{rng.Float32()*4 - 2, rng.Float32() * 3, rng.Float32()*4 - 2}
		}
	}
	return ps
}

// TestBuildGrid checks the Go grid against brute force: every pair's
// distance for the neighbour counts, the sort's order and stability, and
// the runs' cover of the sorted cells.
func TestBuildGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 37, 1500} {
		ps := randomParticles(rng, n)
		g := BuildGrid(ps)
		for k := range ps {
			want := uint32(0)
			for o := range ps {
				if o != k && distSq(&ps[k], &ps[o]) < radiusSq {
					want++
				}
			}
			if g.Neighbours[k] != want {
				t.Fatalf("n=%d: particle %d has %d neighbours, brute force %d", n, k, g.Neighbours[k], want)
			}
		}
		for i, id := range g.Ids {
			if c := CellOf(&ps[id]); c != g.Cells[i] || c >= GridCells {
				t.Fatalf("n=%d: slot %d: cell %d, particle %d's is %d", n, i, g.Cells[i], id, c)
			}
			if i > 0 && (g.Cells[i-1] > g.Cells[i] || g.Cells[i-1] == g.Cells[i] && g.Ids[i-1] > id) {
				t.Fatalf("n=%d: slots %d, %d out of (stable) order", n, i-1, i)
			}
		}
		covered := uint32(0)
		for j, c := range g.Unique {
			if g.Starts[j] != covered || g.Lengths[j] == 0 {
				t.Fatalf("n=%d: run %d starts at %d (length %d), want %d", n, j, g.Starts[j], g.Lengths[j], covered)
			}
			for _, got := range g.Cells[covered : covered+g.Lengths[j]] {
				if got != c {
					t.Fatalf("n=%d: run %d of cell %d holds cell %d", n, j, c, got)
				}
			}
			covered += g.Lengths[j]
		}
		if covered != uint32(n) || !slices.IsSorted(g.Unique) {
			t.Fatalf("n=%d: runs cover %d particles, unique cells sorted %v", n, covered, slices.IsSorted(g.Unique))
		}
	}
}

// TestCompareGrid shows that the check catches one wrong word in each of
// the grid's outputs.
func TestCompareGrid(t *testing.T) {
	ps := randomParticles(rand.New(rand.NewPCG(3, 4)), 300)
	want := BuildGrid(ps)
	occ := []uint32{5, uint32(len(want.Unique))}
	if err := CompareGrid(want, BuildGrid(ps), occ, occ); err != nil {
		t.Fatal(err)
	}
	for name, field := range map[string]func(*Grid) []uint32{
		"cells": func(g *Grid) []uint32 { return g.Cells }, "ids": func(g *Grid) []uint32 { return g.Ids },
		"unique": func(g *Grid) []uint32 { return g.Unique }, "lengths": func(g *Grid) []uint32 { return g.Lengths },
		"starts": func(g *Grid) []uint32 { return g.Starts }, "neighbours": func(g *Grid) []uint32 { return g.Neighbours },
	} {
		got := BuildGrid(ps)
		field(&got)[7]++
		if err := CompareGrid(got, want, occ, occ); err == nil {
			t.Errorf("a changed word of %s passed", name)
		}
	}
	if err := CompareGrid(want, want, []uint32{5, 6}, occ); err == nil {
		t.Error("a changed occupied count passed")
	}
}

// TestGridGPU runs the particle system with its grid on the GPU and checks
// the last frame's grid (sorted cells and ids, the encoding, the starts,
// every neighbour count) and every frame's occupied cells against Go.
func TestGridGPU(t *testing.T) {
	ctx := vktest.Open(t)
	cases := []Params{
		{Capacity: 3000, Frames: 8, Spawn: 300, Seed: 1},
		{Capacity: 1, Frames: 4, Spawn: 3, Seed: 2},
		{Capacity: 2049, Frames: 24, Spawn: 200, Seed: 9}, // full from frame 11, deaths from 16
	}
	if !vktest.Short() {
		cases = append(cases, Params{Capacity: 20000, Frames: 30, Spawn: 1200, Seed: rand.Uint32()})
	}
	for i, p := range cases {
		p.Grid = true
		p.Path = []vkcompact.Path{vkcompact.PathAuto, vkcompact.PathSinglePass, vkcompact.PathThreePhase}[i%3]
		t.Run(fmt.Sprintf("cap%d_frames%d_spawn%d_seed%d_%v", p.Capacity, p.Frames, p.Spawn, p.Seed, p.Path), func(t *testing.T) {
			sim, err := NewSim(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer sim.Release()
			got := checkRun(t, sim)
			if got.Grid == nil || len(got.Occupied) != p.Frames {
				t.Fatalf("grid %v, %d occupied counts for %d frames", got.Grid != nil, len(got.Occupied), p.Frames)
			}
			nbrs := uint32(0)
			for _, c := range got.Grid.Neighbours {
				nbrs += c
			}
			t.Logf("%d occupied cells at the end, %d neighbour pairs", got.Occupied[p.Frames-1], nbrs/2)
		})
	}
}
