package reduce_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// The slice helpers: a sum, the first least element's index, the
// greatest of each segment (an empty one gets the identity), and the
// mass of each cell of particles sorted by cell.
func Example() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	sum, _, err := reduce.ReduceSlice(ctx, []uint32{3, 1, 4, 1, 5, 9, 2, 6}, reduce.Reduce{Op: reduce.Sum})
	if err != nil {
		log.Fatal(err)
	}
	least, at, err := reduce.ReduceSlice(ctx, []float32{2.5, -1, 7, -1}, reduce.Reduce{Op: reduce.ArgMin})
	if err != nil {
		log.Fatal(err)
	}
	most, err := reduce.ReduceSegmentsSlice(ctx, []int32{4, -2, 9, 7, 1, 3}, []uint32{0, 3, 3, 6}, reduce.Segmented{Op: reduce.Max})
	if err != nil {
		log.Fatal(err)
	}
	cells, mass, err := reduce.ReduceByKeySlice(ctx, []uint32{2, 2, 5, 7, 7, 7}, []float32{1, 0.5, 2, 1, 1, 0.25}, reduce.ByKey{Op: reduce.Sum})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum, least, at, most, cells, mass)
	// Output: 31 -1 1 [9 -2147483648 7] [2 5 7] [1.5 2 2.25]
}

// The bounds of a particle system before a BVH build: the least and
// greatest x recorded into one command buffer, both results left on the
// GPU in one buffer (ResultSize bytes each) for a next pass to read; the
// read-back at the end only shows them.
func Example_bounds() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	x := []float32{0.5, -3.25, 8, 2, -3.25, 7.5}
	n := uint64(len(x))
	f32 := vkcompact.Plain(vkcompact.Float32) // a plan has no Go type to take it from
	lo, err := reduce.NewPlan(ctx, n, reduce.Reduce{Elem: f32, Op: reduce.ArgMin})
	if err != nil {
		log.Fatal(err)
	}
	hi, err := reduce.NewPlan(ctx, n, reduce.Reduce{Elem: f32, Op: reduce.Max})
	if err != nil {
		log.Fatal(err)
	}
	src, err := ctx.NewBuffer(4*n, vk.DeviceLocal)
	if err != nil {
		log.Fatal(err)
	}
	defer src.Release()
	align := max(ctx.Info().MinStorageBufferOffsetAlignment, reduce.ResultSize)
	results, err := ctx.NewBuffer(2*align, vk.DeviceLocal)
	if err != nil {
		log.Fatal(err)
	}
	defer results.Release()
	scratch, err := ctx.NewBuffer(max(lo.ScratchSize(), hi.ScratchSize()), vk.DeviceLocal)
	if err != nil {
		log.Fatal(err)
	}
	defer scratch.Release()
	if err := vk.Upload(src.All(), x); err != nil {
		log.Fatal(err)
	}
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		lo.Record(r, reduce.Buffers{Src: src.All(), Result: results.Range(0, reduce.ResultSize), Scratch: scratch.Range(0, lo.ScratchSize())})
		hi.Record(r, reduce.Buffers{Src: src.All(), Result: results.Range(align, reduce.ResultSize), Scratch: scratch.Range(0, hi.ScratchSize())})
	})
	if err != nil {
		log.Fatal(err)
	}
	least, err := reduce.ReadResult(results.Range(0, reduce.ResultSize))
	if err != nil {
		log.Fatal(err)
	}
	most, err := reduce.ReadResult(results.Range(align, reduce.ResultSize))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(least.Float32(), least.Index, most.Float32())
	// Output: -3.25 1 8
}
