package particles

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// The uniform grid of `vkcompact demo -grid` over a swarm (swarm.go): a
// cell is 1 on a side, the cube is side cells along each axis, and two
// particles are neighbours when they are closer than 1, so every
// neighbour of a particle lies in the 27 cells around its own. grid.glsl
// holds the same in GLSL.
const (
	radiusSq = float32(1) // the interaction radius, squared
)

// Grid is one frame's uniform grid over the live particles: the
// particles' indices sorted by cell (stably: equal cells keep the
// particles' order), the particles gathered in that order, the run-length
// encoding of the sorted cells (each occupied cell, its particle count and
// its first slot in the sorted order), each particle's neighbour count
// and the push its neighbours give it, and each occupied cell's fastest
// particle (a reduction by cell of the squared speeds).
type Grid struct {
	Cells []uint32 // Cells[i]: the cell of the i-th particle in cell order
	Ids   []uint32 // Ids[i]: that particle's index among the live ones
	// Sorted[i] is particle Ids[i]: the live particles in cell order (the
	// gather), which the neighbour stage reads.
	Sorted     []Particle
	Unique     []uint32 // the occupied cells, ascending
	Lengths    []uint32 // Lengths[j]: the particles in cell Unique[j]
	Starts     []uint32 // Starts[j]: the first slot of cell Unique[j] in Ids
	Neighbours []uint32 // Neighbours[k]: the particles closer than 1 to particle k
	// Forces[4k:4k+3] is the push on particle k: the sum over its
	// neighbours o of (1 - d²)(p_k - p_o), in the order grid_neighbours
	// sums it; Forces[4k+3] is 0.
	Forces []float32
	// SpeedSq[i] is Sorted[i]'s squared speed, (vx² + vy²) + vz², each
	// operation rounded on its own (speedSq), in cells² per s².
	SpeedSq []float32
	// MaxCells and MaxSpeedSq are SpeedSq reduced by the sorted cells
	// (reduce.ByKeyPlan, Max): each occupied cell, ascending (Unique
	// again), and the largest squared speed of its particles.
	MaxCells   []uint32
	MaxSpeedSq []float32
}

// gridAxis is grid.glsl's axis: a coordinate (in cells, at least 0 inside
// the cube) truncated to its cell, and clamped to the cube.
func gridAxis(v float32, side uint32) uint32 {
	if !(v > 0) {
		return 0
	}
	if v >= float32(side) {
		return side - 1
	}
	return uint32(v)
}

// gridCoords returns the cell coordinates of a position, as grid.glsl's
// coordsOf.
func gridCoords(p *Particle, side uint32) [3]uint32 {
	return [3]uint32{gridAxis(p.Pos[0], side), gridAxis(p.Pos[1], side), gridAxis(p.Pos[2], side)}
}

// CellOf returns the grid cell of a particle in a cube of side cells:
// (y*side + z)*side + x.
func CellOf(p *Particle, side uint32) uint32 {
	c := gridCoords(p, side)
	return (c[1]*side+c[2])*side + c[0]
}

// distSq is grid_neighbours.comp's squared distance, each operation
// rounded on its own: ((ex*ex) + (ey*ey)) + (ez*ez), e = a - b.
func distSq(a, b *Particle) float32 {
	ex := a.Pos[0] - b.Pos[0]
	ey := a.Pos[1] - b.Pos[1]
	ez := a.Pos[2] - b.Pos[2]
	d := float32(ex*ex) + float32(ey*ey)
	return d + float32(ez*ez)
}

// gridBuilder builds grids over one cube, reusing its per-cell tables.
type gridBuilder struct {
	side           uint32
	start, count   []uint32 // per cell: the first slot in Ids and the particles
	next           []uint32 // per cell: the next slot the stable sort fills
	cellOfParticle []uint32
}

func newGridBuilder(side uint32) *gridBuilder {
	cells := side * side * side
	return &gridBuilder{side: side, start: make([]uint32, cells), count: make([]uint32, cells), next: make([]uint32, cells)}
}

// BuildGrid builds the grid of ps in a cube of side cells in Go, as the
// GPU stages do: cells, a stable sort by cell, the particles gathered in
// its order, the run-length encoding, its exclusive prefix sum, and each
// particle's neighbours and push through the 27 cells around its own,
// read from the gathered particles.
func BuildGrid(ps []Particle, side uint32) Grid {
	return newGridBuilder(side).build(ps)
}

// build builds the grid of ps (BuildGrid).
func (b *gridBuilder) build(ps []Particle) Grid {
	n := len(ps)
	g := Grid{
		Cells: make([]uint32, n), Ids: make([]uint32, n), Sorted: make([]Particle, n),
		Neighbours: make([]uint32, n), Forces: make([]float32, 4*n), SpeedSq: make([]float32, n),
	}
	clear(b.count)
	b.cellOfParticle = append(b.cellOfParticle[:0], make([]uint32, n)...)
	for i := range ps {
		c := CellOf(&ps[i], b.side)
		b.cellOfParticle[i] = c
		b.count[c]++
	}
	slot := uint32(0)
	for c, k := range b.count {
		if k == 0 {
			continue
		}
		b.start[c], b.next[c] = slot, slot
		g.Unique = append(g.Unique, uint32(c))
		g.Lengths = append(g.Lengths, k)
		g.Starts = append(g.Starts, slot)
		slot += k
	}
	for i, c := range b.cellOfParticle {
		g.Ids[b.next[c]] = uint32(i)
		b.next[c]++
	}
	for i, id := range g.Ids {
		g.Cells[i] = b.cellOfParticle[id]
		g.Sorted[i] = ps[id]
	}
	// The neighbours, each particle on its own: in parallel, each
	// summing in the one order.
	workers := min(runtime.GOMAXPROCS(0), max(n/4096, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				b.neighbours(&g, i)
			}
		}()
	}
	wg.Wait()
	// The reduction by cell: each run of the sorted cells' squared
	// speeds to its largest.
	g.MaxCells = append([]uint32(nil), g.Unique...)
	g.MaxSpeedSq = make([]float32, len(g.Unique))
	for j, first := range g.Starts {
		g.MaxSpeedSq[j] = maxSpeedSq(g.SpeedSq[first : first+g.Lengths[j]])
	}
	return g
}

// speedSq is grid_neighbours.comp's squared speed, each operation rounded
// on its own: ((vx*vx) + (vy*vy)) + (vz*vz).
func speedSq(p *Particle) float32 {
	s := float32(p.Vel[0]*p.Vel[0]) + float32(p.Vel[1]*p.Vel[1])
	return s + float32(p.Vel[2]*p.Vel[2])
}

// maxSpeedSq is reduce.Max of float32s (NumPy's np.max): the first NaN if
// there is one, else the first of the largest.
func maxSpeedSq(s []float32) float32 {
	m := s[0]
	for _, v := range s[1:] {
		if m != m {
			break
		}
		if v != v || v > m {
			m = v
		}
	}
	return m
}

// neighbours counts the neighbours of the i-th particle in cell order
// (g.Sorted[i], particle g.Ids[i]) and sums their push, as
// grid_neighbours.comp does: the cells y, then z, then x from -1 to 1
// around its own, each cell's particles in sorted order, read from
// g.Sorted.
func (b *gridBuilder) neighbours(g *Grid, i int) {
	side := int(b.side)
	p := &g.Sorted[i]
	c := gridCoords(p, b.side)
	count := uint32(0)
	var fx, fy, fz float32
	for dy := -1; dy <= 1; dy++ {
		for dz := -1; dz <= 1; dz++ {
			for dx := -1; dx <= 1; dx++ {
				x, y, z := int(c[0])+dx, int(c[1])+dy, int(c[2])+dz
				if x < 0 || y < 0 || z < 0 || x >= side || y >= side || z >= side {
					continue
				}
				cell := (y*side+z)*side + x
				first := int(b.start[cell])
				for k := first; k < first+int(b.count[cell]); k++ {
					if k == i {
						continue
					}
					o := &g.Sorted[k]
					ex := p.Pos[0] - o.Pos[0]
					ey := p.Pos[1] - o.Pos[1]
					ez := p.Pos[2] - o.Pos[2]
					d2 := float32(ex*ex) + float32(ey*ey)
					d2 = d2 + float32(ez*ez)
					if d2 < radiusSq {
						count++
						w := 1 - d2
						fx = fx + float32(w*ex)
						fy = fy + float32(w*ey)
						fz = fz + float32(w*ez)
					}
				}
			}
		}
	}
	g.SpeedSq[i] = speedSq(p)
	me := g.Ids[i]
	g.Neighbours[me] = count
	g.Forces[4*me], g.Forces[4*me+1], g.Forces[4*me+2], g.Forces[4*me+3] = fx, fy, fz, 0
}

// push returns particle k's push from the grid's forces.
func (g *Grid) push(k int) [3]float32 {
	return [3]float32{g.Forces[4*k], g.Forces[4*k+1], g.Forces[4*k+2]}
}

// CellSpeedStats returns the mean over the occupied cells of the speed of
// each one's fastest particle (the square root of MaxSpeedSq), and the
// largest, in cells per second (0, 0 for no cells).
func (g *Grid) CellSpeedStats() (mean, most float64) {
	if len(g.MaxSpeedSq) == 0 {
		return 0, 0
	}
	sum := 0.0
	for _, s := range g.MaxSpeedSq {
		v := math.Sqrt(float64(s))
		sum += v
		most = max(most, v)
	}
	return sum / float64(len(g.MaxSpeedSq)), most
}

// NeighbourStats returns the mean and the largest neighbour count of a
// grid's particles (0, 0 for none).
func (g *Grid) NeighbourStats() (mean float64, most uint32) {
	if len(g.Neighbours) == 0 {
		return 0, 0
	}
	sum := uint64(0)
	for _, c := range g.Neighbours {
		sum += uint64(c)
		most = max(most, c)
	}
	return float64(sum) / float64(len(g.Neighbours)), most
}

// CompareGrid checks a GPU grid against the Go one, and the occupied
// cells of every frame; nil when identical (the forces bit for bit), else
// an error that counts the differences and describes the first.
func CompareGrid(got, want Grid, gotRuns, wantRuns []uint32) error {
	var first string
	diffs := 0
	list := func(name string, g, w []uint32) {
		if len(g) != len(w) {
			if diffs == 0 {
				first = fmt.Sprintf("%s: %d entries, want %d", name, len(g), len(w))
			}
			diffs++
		}
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				if diffs == 0 {
					first = fmt.Sprintf("%s[%d] = %d, want %d", name, i, g[i], w[i])
				}
				diffs++
			}
		}
	}
	bits := func(fs []float32) []uint32 {
		out := make([]uint32, len(fs))
		for i, f := range fs {
			out[i] = math.Float32bits(f)
		}
		return out
	}
	list("occupied cells per frame", gotRuns, wantRuns)
	list("sorted cells", got.Cells, want.Cells)
	list("sorted ids", got.Ids, want.Ids)
	list("gathered particle bits", particleWords(got.Sorted), particleWords(want.Sorted))
	list("unique cells", got.Unique, want.Unique)
	list("run lengths", got.Lengths, want.Lengths)
	list("run starts", got.Starts, want.Starts)
	list("neighbour counts", got.Neighbours, want.Neighbours)
	list("force bits", bits(got.Forces), bits(want.Forces))
	list("squared speed bits", bits(got.SpeedSq), bits(want.SpeedSq))
	list("cells reduced", got.MaxCells, want.MaxCells)
	list("cells' largest squared speed bits", bits(got.MaxSpeedSq), bits(want.MaxSpeedSq))
	if diffs == 0 {
		return nil
	}
	return fmt.Errorf("grid: %d difference(s) from the Go grid; the first: %s", diffs, first)
}

// particleWords returns the bits of ps, eight words a particle.
func particleWords(ps []Particle) []uint32 {
	out := make([]uint32, 0, 8*len(ps))
	for _, p := range ps {
		b := particleBits(p)
		out = append(out, b[:]...)
	}
	return out
}
