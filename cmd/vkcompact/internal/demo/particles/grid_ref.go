package particles

import (
	"cmp"
	"fmt"
	"slices"
)

// The uniform grid of `vkcompact demo -grid`, the same in grid.glsl: a cell
// is 1/32 m on a side, GridSide cells across the box in x and z ([-Half,
// Half]) and GridSide up in y (0 to 4 m; higher particles fall in the top
// layer). Two particles are neighbours when they are closer than one
// cell's width, so every neighbour of a particle lies in the 27 cells
// around its own.
const (
	GridSide     = 128
	GridCells    = GridSide * GridSide * GridSide
	cellsPerM    = 32
	radiusSq     = float32(1.0 / (cellsPerM * cellsPerM))
	gridCellBits = 21 // bits of a cell index: GridCells = 2^21
)

// Grid is one frame's uniform grid over the live particles: the
// particles' indices sorted by cell (stably: equal cells keep the
// particles' order), the run-length encoding of the sorted cells (each
// occupied cell, its particle count and its first slot in the sorted
// order) and each particle's neighbour count.
type Grid struct {
	Cells      []uint32 // Cells[i]: the cell of the i-th particle in cell order
	Ids        []uint32 // Ids[i]: that particle's index among the live ones
	Unique     []uint32 // the occupied cells, ascending
	Lengths    []uint32 // Lengths[j]: the particles in cell Unique[j]
	Starts     []uint32 // Starts[j]: the first slot of cell Unique[j] in Ids
	Neighbours []uint32 // Neighbours[k]: the particles closer than 1/32 m to particle k
}

// gridAxis is grid.glsl's axis: a coordinate already shifted to be
// non-negative, scaled by a power of two (exact), truncated and clamped.
func gridAxis(v float32) uint32 {
	c := v * cellsPerM
	if !(c > 0) {
		return 0
	}
	if c >= GridSide {
		return GridSide - 1
	}
	return uint32(c)
}

// gridCoords returns the cell coordinates of a position, as grid.glsl's
// coordsOf: the shift by Half rounds once, as the shader's precise add does.
func gridCoords(p *Particle) [3]uint32 {
	sx := p.Pos[0] + Half
	sz := p.Pos[2] + Half
	return [3]uint32{gridAxis(sx), gridAxis(p.Pos[1]), gridAxis(sz)}
}

// CellOf returns the grid cell of a particle: (y*GridSide + z)*GridSide + x.
func CellOf(p *Particle) uint32 {
	c := gridCoords(p)
	return (c[1]*GridSide+c[2])*GridSide + c[0]
}

// distSq is grid_neighbours.comp's squared distance, each operation
// rounded on its own: ((ex*ex) + (ey*ey)) + (ez*ez).
func distSq(a, b *Particle) float32 {
	ex := a.Pos[0] - b.Pos[0]
	ey := a.Pos[1] - b.Pos[1]
	ez := a.Pos[2] - b.Pos[2]
	d := float32(ex*ex) + float32(ey*ey)
	return d + float32(ez*ez)
}

// BuildGrid builds the grid of ps in Go, as the GPU stages do: cells,
// a stable sort by cell, the run-length encoding, its exclusive prefix
// sum, and the neighbour counts through the 27 cells around each
// particle's.
func BuildGrid(ps []Particle) Grid {
	n := len(ps)
	g := Grid{Cells: make([]uint32, n), Ids: make([]uint32, n), Neighbours: make([]uint32, n)}
	for i := range ps {
		g.Cells[i] = CellOf(&ps[i])
		g.Ids[i] = uint32(i)
	}
	slices.SortStableFunc(g.Ids, func(a, b uint32) int { return cmp.Compare(g.Cells[a], g.Cells[b]) })
	for i, id := range g.Ids {
		g.Cells[i] = CellOf(&ps[id])
	}
	table := map[uint32][2]uint32{} // cell: start, count
	for i := 0; i < n; {
		j := i
		for j < n && g.Cells[j] == g.Cells[i] {
			j++
		}
		g.Unique = append(g.Unique, g.Cells[i])
		g.Lengths = append(g.Lengths, uint32(j-i))
		g.Starts = append(g.Starts, uint32(i))
		table[g.Cells[i]] = [2]uint32{uint32(i), uint32(j - i)}
		i = j
	}
	for me := range ps {
		c := gridCoords(&ps[me])
		count := uint32(0)
		for dy := -1; dy <= 1; dy++ {
			for dz := -1; dz <= 1; dz++ {
				for dx := -1; dx <= 1; dx++ {
					x, y, z := int(c[0])+dx, int(c[1])+dy, int(c[2])+dz
					if x < 0 || y < 0 || z < 0 || x >= GridSide || y >= GridSide || z >= GridSide {
						continue
					}
					run, ok := table[uint32((y*GridSide+z)*GridSide+x)]
					if !ok {
						continue
					}
					for _, other := range g.Ids[run[0] : run[0]+run[1]] {
						if int(other) != me && distSq(&ps[me], &ps[other]) < radiusSq {
							count++
						}
					}
				}
			}
		}
		g.Neighbours[me] = count
	}
	return g
}

// occupiedCells counts the distinct cells of ps: the runs of a frame's
// grid. seen is scratch of GridCells words, stamped with mark.
func occupiedCells(ps []Particle, seen []uint32, mark uint32) uint32 {
	runs := uint32(0)
	for i := range ps {
		c := CellOf(&ps[i])
		if seen[c] != mark {
			seen[c] = mark
			runs++
		}
	}
	return runs
}

// CompareGrid checks a GPU grid against the Go one, and the occupied
// cells of every frame; nil when identical, else an error that counts the
// differences and describes the first.
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
	list("occupied cells per frame", gotRuns, wantRuns)
	list("sorted cells", got.Cells, want.Cells)
	list("sorted ids", got.Ids, want.Ids)
	list("unique cells", got.Unique, want.Unique)
	list("run lengths", got.Lengths, want.Lengths)
	list("run starts", got.Starts, want.Starts)
	list("neighbour counts", got.Neighbours, want.Neighbours)
	if diffs == 0 {
		return nil
	}
	return fmt.Errorf("grid: %d difference(s) from the Go grid; the first: %s", diffs, first)
}
