package particles

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// The grid's stages, after each frame's compaction of the swarm
// (swarm.go), all on the GPU and all sized by the kept count the
// compaction left in its result block:
//
//  1. grid_cells.comp: the cell of each live particle, and its index;
//  2. radix.Plan: the pairs (cell, index) sorted by cell, on the bits a
//     cell takes (21 for the largest cube); stable, so a cell's particles
//     keep their order: the sorted indices are the cells' argsort;
//  3. permute.Plan: the live particles gathered by the sorted indices,
//     sorted[i] = live[ids[i]], so that each cell's particles lie
//     together for the neighbour stage (NVIDIA's CUDA particles sample
//     reorders its positions and velocities so);
//  4. runs.Plan (runs.Encode): the run-length encoding of the sorted cells: each
//     occupied cell and its particle count, the number of occupied cells
//     on the GPU;
//  5. scan.Plan: the exclusive prefix sum of the counts: each occupied
//     cell's first slot in the sorted order;
//  6. grid_table.comp: the lookup table, three words per cell (start,
//     count, the frame that wrote them: a cell with an older stamp is
//     empty, so nothing clears the table between frames);
//  7. grid_neighbours.comp: each particle's neighbours (closer than a
//     cell's width, the interaction radius) counted, and their pushes
//     summed, through the 27 cells around its own, reading the gathered
//     particles (a cell's run of them at a time, coalesced): the next
//     frame's update (grid_update.comp) adds each particle's push to its
//     velocity; it also writes each particle's squared speed in cell
//     order;
//  8. reduce.ByKeyPlan: the squared speeds reduced by the sorted cells
//     (Max): each occupied cell's fastest particle, what a time step
//     bounded by the fastest motion (the CFL condition) or a test of
//     cells at rest reads.
var GridStages = []string{"update+compact", "cells", "sort", "gather", "rle", "starts", "table", "neighbours", "cell max"}

var (
	gridUpdateKernel = &pipeline.Kernel{
		Name:      "particles_grid_update",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "grid_update"),
		Bindings:  []pipeline.Use{pipeline.ReadWrite, pipeline.Write, pipeline.Read, pipeline.Read},
		PushWords: 3,
	}
	gridCellsKernel = &pipeline.Kernel{
		Name:      "particles_grid_cells",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "grid_cells"),
		Bindings:  []pipeline.Use{pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Write},
		PushWords: 1,
	}
	gridTableKernel = &pipeline.Kernel{
		Name:      "particles_grid_table",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "grid_table"),
		Bindings:  []pipeline.Use{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Write},
		PushWords: 2,
	}
	gridNeighboursKernel = &pipeline.Kernel{
		Name:      "particles_grid_neighbours",
		SPIRV:     shaders.MustSPIRVFrom(spirvFiles, "grid_neighbours"),
		Bindings:  []pipeline.Use{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Write, pipeline.Write},
		PushWords: 2,
	}
)

// grid is the grid's plans, pipelines and buffers.
type grid struct {
	side                                    uint32 // the cube's side in cells (Side)
	sort                                    *radix.Plan
	gather                                  *permute.Plan
	encode                                  *runs.Plan
	starts                                  *scan.Plan
	cellMax                                 *reduce.ByKeyPlan
	cells, table, nbrs                      *pipeline.Pipeline
	keys, ids                               *vk.Buffer // grid_cells' output, the sort's input
	sortedKeys, sortedIds                   *vk.Buffer
	sorted                                  *vk.Buffer // the live particles in cell order (the gather's output)
	unique, lengths, first                  *vk.Buffer // the encoding and its prefix sum
	runsResult, total                       *vk.Buffer
	lookup                                  *vk.Buffer // side³ x (start, count, stamp)
	neighbours                              *vk.Buffer
	forces                                  *vk.Buffer // a vec4 per particle: its push for the next frame
	speedSq                                 *vk.Buffer // a float per particle in cell order: its squared speed
	maxCells, maxSpeedSq, maxResult         *vk.Buffer // the reduction by cell of speedSq
	history                                 *vk.Buffer // occupied cells per frame
	sortScratch, encodeScratch, scanScratch *vk.Buffer
	maxScratch                              *vk.Buffer
}

// cellBits is the bits of a cell index in a cube of side cells.
func cellBits(side uint32) uint32 { return uint32(bits.Len32(side*side*side - 1)) }

// newGrid creates the grid's plans, pipelines and buffers for capacity
// particles.
func newGrid(ctx *vk.Context, p Params) (g *grid, err error) {
	g = &grid{side: Side(p.Capacity)}
	defer func() {
		if err != nil {
			g.release()
		}
	}()
	n := uint64(p.Capacity)
	if g.sort, err = radix.NewPlan(ctx, n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, EndBit: cellBits(g.side)}); err != nil {
		return nil, fmt.Errorf("particles: the grid's sort: %w", err)
	}
	if g.gather, err = permute.NewPlan(ctx, n, permute.Permutation{Elem: vkcompact.Struct(Size, 0, vkcompact.Float32)}); err != nil {
		return nil, fmt.Errorf("particles: the grid's gather: %w", err)
	}
	if g.encode, err = runs.NewPlan(ctx, n, runs.Encoding{Op: runs.Encode, Elem: vkcompact.Plain(vkcompact.Uint32)}); err != nil {
		return nil, fmt.Errorf("particles: the grid's run-length encoding: %w", err)
	}
	if g.starts, err = scan.NewPlan(ctx, n, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}); err != nil {
		return nil, fmt.Errorf("particles: the grid's prefix sum: %w", err)
	}
	if g.cellMax, err = reduce.NewByKeyPlan(ctx, n, reduce.ByKey{Elem: vkcompact.Plain(vkcompact.Uint32), Value: vkcompact.Float32, Op: reduce.Max}); err != nil {
		return nil, fmt.Errorf("particles: the grid's reduction by cell: %w", err)
	}
	cache := pipeline.For(ctx)
	if g.cells, err = cache.Get(gridCellsKernel, UpdateGroup); err != nil {
		return nil, err
	}
	if g.table, err = cache.Get(gridTableKernel, UpdateGroup); err != nil {
		return nil, err
	}
	if g.nbrs, err = cache.Get(gridNeighboursKernel, UpdateGroup); err != nil {
		return nil, err
	}
	words := n * 4
	for _, b := range []struct {
		buf  **vk.Buffer
		size uint64
	}{
		{&g.keys, words}, {&g.ids, words}, {&g.sortedKeys, words}, {&g.sortedIds, words}, {&g.sorted, n * Size},
		{&g.unique, words}, {&g.lengths, words}, {&g.first, words}, {&g.neighbours, words}, {&g.forces, 4 * words},
		{&g.speedSq, words}, {&g.maxCells, words}, {&g.maxSpeedSq, words}, {&g.maxResult, reduce.ByKeyResultSize},
		{&g.runsResult, runs.ResultSize}, {&g.total, scan.TotalSize},
		{&g.lookup, uint64(g.side) * uint64(g.side) * uint64(g.side) * 3 * 4},
		{&g.history, uint64(p.Frames) * 4},
		{&g.sortScratch, max(g.sort.ScratchSize(), 4)},
		{&g.encodeScratch, max(g.encode.ScratchSize(), 4)},
		{&g.scanScratch, max(g.starts.ScratchSize(), 4)},
		{&g.maxScratch, max(g.cellMax.ScratchSize(), 4)},
	} {
		if *b.buf, err = ctx.NewBuffer(b.size, vk.DeviceLocal); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func (g *grid) release() {
	if g == nil {
		return
	}
	for _, b := range []**vk.Buffer{&g.keys, &g.ids, &g.sortedKeys, &g.sortedIds, &g.sorted, &g.unique, &g.lengths, &g.first,
		&g.neighbours, &g.forces, &g.speedSq, &g.maxCells, &g.maxSpeedSq, &g.maxResult,
		&g.runsResult, &g.total, &g.lookup, &g.history, &g.sortScratch, &g.encodeScratch, &g.scanScratch, &g.maxScratch} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
}

// poison fills the grid's outputs with ones, and the table's stamps with
// a frame no run reaches, so that an unwritten slot cannot pass.
func (g *grid) poison(cb vk.CommandBuffer) {
	for _, b := range []*vk.Buffer{g.keys, g.ids, g.sortedKeys, g.sortedIds, g.sorted, g.unique, g.lengths, g.first, g.neighbours, g.forces,
		g.speedSq, g.maxCells, g.maxSpeedSq, g.maxResult, g.lookup, g.history} {
		cb.FillBuffer(b.All(), 0xffffffff)
	}
}

// record records the grid's stages of frame f over the particles the
// frame's compaction kept into live (its result block: result), calling
// stamp before each stage: the frame's next stamp ends the last.
func (g *grid) record(r *pipeline.Recorder, f uint32, live, result *vk.Buffer, stamp func()) {
	kept := result.Range(compact.ResultKeptOffset, 4)
	dispatch := result.Range(compact.ResultDispatchOffset, 12)
	stamp()
	r.DispatchIndirect(g.cells, dispatch, []uint32{g.side}, live.All(), result.All(), g.keys.All(), g.ids.All())
	stamp()
	g.sort.Record(r, radix.Buffers{
		Keys: g.keys.All(), Values: g.ids.All(), KeysOut: g.sortedKeys.All(), ValuesOut: g.sortedIds.All(),
		Scratch: g.sortScratch.Range(0, g.sort.ScratchSize()), Count: kept,
	})
	stamp()
	// The particles the compaction kept, in cell order: read by the
	// neighbour stage, so the sorted indices are read once per particle.
	g.gather.Record(r, permute.Buffers{Indices: g.sortedIds.All(), Src: live.All(), Dst: g.sorted.All(), Count: kept})
	stamp()
	g.encode.Record(r, runs.Buffers{
		Src: g.sortedKeys.All(), Keys: g.unique.All(), Lengths: g.lengths.All(), Result: g.runsResult.All(),
		Scratch: g.encodeScratch.Range(0, g.encode.ScratchSize()), Count: kept,
	})
	stamp()
	g.starts.Record(r, scan.Buffers{
		Src: g.lengths.All(), Dst: g.first.All(), Total: g.total.All(),
		Scratch: g.scanScratch.Range(0, g.starts.ScratchSize()), Count: g.runsResult.Range(runs.ResultRunsOffset, 4),
	})
	stamp()
	groups := (uint64(g.keys.Size()/4) + UpdateGroup - 1) / UpdateGroup
	r.Dispatch(g.table, groups, []uint32{f, runs.ResultRunsOffset / 4}, g.runsResult.All(), g.unique.All(), g.lengths.All(), g.first.All(), g.lookup.All(), g.history.All())
	stamp()
	r.DispatchIndirect(g.nbrs, dispatch, []uint32{f, g.side}, g.sorted.All(), result.All(), g.sortedIds.All(), g.lookup.All(), g.neighbours.All(), g.forces.All(), g.speedSq.All())
	stamp()
	g.cellMax.Record(r, reduce.ByKeyBuffers{
		Keys: g.sortedKeys.All(), Values: g.speedSq.All(), KeysOut: g.maxCells.All(), ValuesOut: g.maxSpeedSq.All(),
		Result: g.maxResult.All(), Scratch: g.maxScratch.Range(0, g.cellMax.ScratchSize()), Count: kept,
	})
}

// read downloads the last frame's grid over live particles, and the
// occupied cells of every frame.
func (g *grid) read(live uint32, frames int) (Grid, []uint32, error) {
	hist := make([]uint32, frames)
	if err := vk.Download(g.history.All(), hist); err != nil {
		return Grid{}, nil, err
	}
	occupied := hist[frames-1]
	if occupied > live {
		return Grid{}, nil, fmt.Errorf("particles: the GPU reports %d occupied cells for %d particles", occupied, live)
	}
	maxed, err := reduce.ReadByKeyResult(g.maxResult.Range(0, reduce.ByKeyResultSize))
	if err != nil {
		return Grid{}, nil, err
	}
	if maxed.Runs > live {
		return Grid{}, nil, fmt.Errorf("particles: the GPU reports %d cells reduced for %d particles", maxed.Runs, live)
	}
	out := Grid{
		Cells: make([]uint32, live), Ids: make([]uint32, live), Sorted: make([]Particle, live),
		Neighbours: make([]uint32, live), Forces: make([]float32, 4*live), SpeedSq: make([]float32, live),
		Unique: make([]uint32, occupied), Lengths: make([]uint32, occupied), Starts: make([]uint32, occupied),
		MaxCells: make([]uint32, maxed.Runs), MaxSpeedSq: make([]float32, maxed.Runs),
	}
	err = errors.Join(
		download(g.sortedKeys, out.Cells), download(g.sortedIds, out.Ids), download(g.sorted, out.Sorted),
		download(g.neighbours, out.Neighbours), download(g.forces, out.Forces), download(g.speedSq, out.SpeedSq),
		download(g.unique, out.Unique), download(g.lengths, out.Lengths), download(g.first, out.Starts),
		download(g.maxCells, out.MaxCells), download(g.maxSpeedSq, out.MaxSpeedSq),
	)
	if err != nil {
		return Grid{}, nil, err
	}
	return out, hist, nil
}

// download reads the first len(dst) elements of b into dst.
func download[T any](b *vk.Buffer, dst []T) error {
	if len(dst) == 0 {
		return nil
	}
	return vk.Download(b.Range(0, uint64(len(dst))*uint64(unsafe.Sizeof(dst[0]))), dst)
}
