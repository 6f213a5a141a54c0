package runs_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// The particle grid's pattern: the live particles' sorted cell indices
// come out of a compaction whose kept count stays on the GPU; Encode
// turns them into each occupied cell and its particle count, with the
// count of cells on the GPU too, in the same command buffer. The
// read-backs at the end only show the result.
func Example_cells() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	// Sorted cell indices; 0 marks a dead particle.
	cells := []uint32{0, 3, 3, 0, 3, 8, 8, 9, 0, 9, 9, 9}
	n := uint64(len(cells))
	alive, err := compact.NewPlan(ctx, n, compact.Selection{Keep: compact.KeepNonZero()})
	if err != nil {
		log.Fatal(err)
	}
	enc, err := runs.NewPlan(ctx, n, runs.Encoding{Op: runs.Encode})
	if err != nil {
		log.Fatal(err)
	}
	buf := func(size uint64) vk.Range {
		b, err := ctx.NewBuffer(size, vk.DeviceLocal)
		if err != nil {
			log.Fatal(err)
		}
		return b.All()
	}
	all, live, keys, counts := buf(4*n), buf(4*n), buf(4*n), buf(4*n)
	aliveBlock, block := buf(compact.ResultSize), buf(runs.ResultSize)
	scratch := buf(max(alive.ScratchSize(), enc.ScratchSize()))
	if err := vk.Upload(all, cells); err != nil {
		log.Fatal(err)
	}
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		alive.Record(r, compact.Buffers{Src: all, Dst: live, Result: aliveBlock, Scratch: scratch.Sub(0, alive.ScratchSize())})
		enc.Record(r, runs.Buffers{Src: live, Keys: keys, Lengths: counts, Result: block, Scratch: scratch.Sub(0, enc.ScratchSize()),
			Count: aliveBlock.Sub(compact.ResultKeptOffset, 4)}) // the live particles, counted on the GPU
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := runs.ReadResult(block)
	if err != nil {
		log.Fatal(err)
	}
	k, c := make([]uint32, res.Runs), make([]uint32, res.Runs)
	if err := vk.Download(keys.Sub(0, 4*uint64(res.Runs)), k); err != nil {
		log.Fatal(err)
	}
	if err := vk.Download(counts.Sub(0, 4*uint64(res.Runs)), c); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Runs, "cells of", res.Total, "live particles:", k, c)
	// Output: 3 cells of 9 live particles: [3 8 9] [3 2 4]
}

// EncodeSlice and NonTrivialSlice on Go slices.
func ExampleEncodeSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	data := []int64{5, 5, -1, -1, -1, 7}
	keys, lengths, err := runs.EncodeSlice(ctx, data, runs.Encoding{})
	if err != nil {
		log.Fatal(err)
	}
	offsets, long, err := runs.NonTrivialSlice(ctx, data, runs.Encoding{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(keys, lengths, offsets, long)
	// Output: [5 -1 7] [2 3 1] [0 2] [2 3]
}
