package particles

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// randomParticles returns n particles at random in a cube of side
// cells: a quarter crowded into a few cells, some on cell boundaries and
// on the faces, some just past the far faces (the last cells take them),
// the rest anywhere; each with a random velocity of up to 2 cells per
// second along each axis.
func randomParticles(rng *rand.Rand, n int, side uint32) []Particle {
	s := float32(side)
	ps := make([]Particle, n)
	for i := range ps {
		p := &ps[i]
		switch i % 4 {
		case 0: // crowded near one point
			p.Pos = [3]float32{s/2 + rng.Float32()*0.5, 1 + rng.Float32()*0.5, s/2 - rng.Float32()*0.5}
		case 1: // on a cell boundary or a face
			edge := func() float32 { return float32(rng.IntN(int(side) + 1)) }
			p.Pos = [3]float32{edge(), edge(), edge()}
		case 2: // just past a far face
			p.Pos = [3]float32{rng.Float32() * s, s + rng.Float32()*0.01, rng.Float32() * s}
		default:
			p.Pos = [3]float32{rng.Float32() * s, rng.Float32() * s, rng.Float32() * s}
		}
		p.Vel = [3]float32{rng.Float32()*4 - 2, rng.Float32()*4 - 2, rng.Float32()*4 - 2}
	}
	return ps
}

// TestBuildGrid checks the Go grid against brute force: every pair's
// distance for the neighbour counts and (summed in float64) the pushes,
// the sort's order and stability, the gathered particles, the runs'
// cover of the sorted cells, the squared speeds (in float64) and each
// cell's largest.
func TestBuildGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n    int
		side uint32
	}{{0, 2}, {1, 2}, {2, 3}, {37, 2}, {1500, 5}, {1500, 11}} {
		n, side := c.n, c.side
		ps := randomParticles(rng, n, side)
		g := BuildGrid(ps, side)
		for k := range ps {
			want := uint32(0)
			var f [3]float64
			for o := range ps {
				if d2 := distSq(&ps[k], &ps[o]); o != k && d2 < radiusSq {
					want++
					for a := range 3 {
						f[a] += float64(1-d2) * float64(ps[k].Pos[a]-ps[o].Pos[a])
					}
				}
			}
			if g.Neighbours[k] != want {
				t.Fatalf("n=%d: particle %d has %d neighbours, brute force %d", n, k, g.Neighbours[k], want)
			}
			for a := range 3 {
				if d := math.Abs(float64(g.Forces[4*k+a]) - f[a]); d > 1e-4*(1+math.Abs(f[a])) {
					t.Fatalf("n=%d: particle %d's push %v, brute force %v", n, k, g.Forces[4*k:4*k+3], f)
				}
			}
			if g.Forces[4*k+3] != 0 {
				t.Fatalf("n=%d: particle %d's fourth force word %g", n, k, g.Forces[4*k+3])
			}
		}
		if len(g.Sorted) != n || len(g.Ids) != n {
			t.Fatalf("n=%d: %d gathered particles, %d ids", n, len(g.Sorted), len(g.Ids))
		}
		for i, id := range g.Ids {
			if c := CellOf(&ps[id], side); c != g.Cells[i] || c >= side*side*side {
				t.Fatalf("n=%d: slot %d: cell %d, particle %d's is %d", n, i, g.Cells[i], id, c)
			}
			if i > 0 && (g.Cells[i-1] > g.Cells[i] || g.Cells[i-1] == g.Cells[i] && g.Ids[i-1] > id) {
				t.Fatalf("n=%d: slots %d, %d out of (stable) order", n, i-1, i)
			}
			if particleBits(g.Sorted[i]) != particleBits(ps[id]) {
				t.Fatalf("n=%d: slot %d holds %+v, particle %d is %+v", n, i, g.Sorted[i], id, ps[id])
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
		checkCellMax(t, ps, g, side)
	}
}

// checkCellMax checks g's squared speeds against float64 and the
// reduction by cell against each cell's particles taken in their own
// order.
func checkCellMax(t *testing.T, ps []Particle, g Grid, side uint32) {
	t.Helper()
	fastest := map[uint32]float32{}
	for i, id := range g.Ids {
		v := ps[id].Vel
		want := float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2])
		if d := math.Abs(float64(g.SpeedSq[i]) - want); d > 1e-6*want {
			t.Fatalf("n=%d: slot %d's squared speed %g, float64 %g", len(ps), i, g.SpeedSq[i], want)
		}
	}
	for k := range ps {
		slot := slices.Index(g.Ids, uint32(k))
		if c := CellOf(&ps[k], side); g.SpeedSq[slot] > fastest[c] {
			fastest[c] = g.SpeedSq[slot]
		}
	}
	if !slices.Equal(g.MaxCells, g.Unique) || len(g.MaxSpeedSq) != len(g.Unique) {
		t.Fatalf("n=%d: cells reduced %v, %d values; want the occupied cells %v", len(ps), g.MaxCells, len(g.MaxSpeedSq), g.Unique)
	}
	for j, c := range g.Unique {
		if g.MaxSpeedSq[j] != fastest[c] || !(fastest[c] > 0) {
			t.Fatalf("n=%d: cell %d's largest squared speed %g, want %g", len(ps), c, g.MaxSpeedSq[j], fastest[c])
		}
	}
}

// TestCompareGrid shows that the check catches one wrong word in each of
// the grid's outputs, a force's lowest bit included.
func TestCompareGrid(t *testing.T) {
	ps := randomParticles(rand.New(rand.NewPCG(3, 4)), 300, 4)
	want := BuildGrid(ps, 4)
	occ := []uint32{5, uint32(len(want.Unique))}
	if err := CompareGrid(want, BuildGrid(ps, 4), occ, occ); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Grid){
		"cells":    func(g *Grid) { g.Cells[7]++ },
		"ids":      func(g *Grid) { g.Ids[7]++ },
		"gathered": func(g *Grid) { g.Sorted[7].Vel[2] = math.Float32frombits(math.Float32bits(g.Sorted[7].Vel[2]) ^ 1) },
		"gather order": func(g *Grid) { // the first and last cells' particles
			g.Sorted[0], g.Sorted[len(g.Sorted)-1] = g.Sorted[len(g.Sorted)-1], g.Sorted[0]
		},
		"unique":        func(g *Grid) { g.Unique[7]++ },
		"lengths":       func(g *Grid) { g.Lengths[7]++ },
		"starts":        func(g *Grid) { g.Starts[7]++ },
		"neighbours":    func(g *Grid) { g.Neighbours[7]++ },
		"forces":        func(g *Grid) { g.Forces[29] = math.Float32frombits(math.Float32bits(g.Forces[29]) ^ 1) },
		"speeds":        func(g *Grid) { g.SpeedSq[9] = math.Float32frombits(math.Float32bits(g.SpeedSq[9]) ^ 1) },
		"cells reduced": func(g *Grid) { g.MaxCells[3]++ },
		"cell max":      func(g *Grid) { g.MaxSpeedSq[3] = math.Float32frombits(math.Float32bits(g.MaxSpeedSq[3]) ^ 1) },
		"no cell max":   func(g *Grid) { g.MaxCells, g.MaxSpeedSq = g.MaxCells[:0], g.MaxSpeedSq[:0] },
	} {
		got := BuildGrid(ps, 4)
		change(&got)
		if err := CompareGrid(got, want, occ, occ); err == nil {
			t.Errorf("a changed word of %s passed", name)
		}
	}
	if err := CompareGrid(want, want, []uint32{5, 6}, occ); err == nil {
		t.Error("a changed occupied count passed")
	}
}

// TestSide checks the swarm's cube: at least SwarmDensity particles per
// cell when full, the largest side that does it, from 2 to MaxSide.
func TestSide(t *testing.T) {
	for _, c := range []struct{ capacity, side uint32 }{
		{1, 2}, {161, 2}, {162, 3}, {383, 3}, {384, 4}, {1 << 15, 17}, {65536, 22}, {4 << 20, 88}, {12582911, 127}, {12582912, 128}, {1<<32 - 1, MaxSide},
	} {
		if got := Side(c.capacity); got != c.side {
			t.Errorf("Side(%d) = %d, want %d", c.capacity, got, c.side)
		}
	}
}

// TestSwarmDensity runs swarms in Go past the frame where their buffers
// fill: the density stays bounded (a particle's neighbours at most a few
// times the mean, every frame), and a full swarm gives its particles at
// least 20 neighbours on average.
func TestSwarmDensity(t *testing.T) {
	for _, p := range []Params{
		{Capacity: 4096, Frames: 40, Spawn: 256, Seed: 3, Grid: true},
		{Capacity: 20000, Frames: 30, Spawn: 2000, Seed: 4, Grid: true},
	} {
		var mean float64
		SimulateSwarm(p, func(f int, live []Particle, g *Grid) {
			m, most := g.NeighbourStats()
			if f > 0 && float64(most) > 4*m+8 {
				t.Errorf("%+v: frame %d: %d neighbours at most, %.1f on average: crowding", p, f, most, m)
			}
			mean = m
		})
		if mean < 20 {
			t.Errorf("%+v: %.1f neighbours a particle at the end, want at least 20", p, mean)
		}
		t.Logf("%+v: %.1f neighbours a particle at the end", p, mean)
	}
}

// TestGridGPU runs the swarm with its grid on the GPU and checks the
// particles of the last frame (which every frame's pushes moved), its
// grid (sorted cells and ids, the encoding, the starts, every neighbour
// count and push, bit for bit) and every frame's occupied cells against
// Go.
func TestGridGPU(t *testing.T) {
	ctx := vktest.Open(t)
	cases := []Params{
		{Capacity: 3000, Frames: 8, Spawn: 300, Seed: 1},
		{Capacity: 1, Frames: 4, Spawn: 3, Seed: 2},
		{Capacity: 2049, Frames: 40, Spawn: 200, Seed: 9}, // full from frame 11, deaths from 32
	}
	if !vktest.Short() {
		cases = append(cases, Params{Capacity: 20000, Frames: 40, Spawn: 1200, Seed: rand.Uint32()})
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
