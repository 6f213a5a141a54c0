package radix_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// Sorting each cell's list on its own: the offsets give three segments,
// the middle one empty, and the keys' values (their input positions) move
// with them.
func ExampleSortSegmentPairsSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	depth := []float32{3, 1, 2, 9, -4, 0, 9}
	index := []uint32{0, 1, 2, 3, 4, 5, 6}
	offsets := []uint32{0, 3, 3, 7}
	keys, values, err := radix.SortSegmentPairsSlice(ctx, depth, index, offsets, radix.SegmentedSort{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(keys)
	fmt.Println(values)
	// Output:
	// [1 2 3 -4 0 9 9]
	// [1 2 0 4 5 3 6]
}

// Sorting segments whose offsets are already on the GPU (written there by
// an earlier pass, say), in the caller's command buffer: the plan never
// reads them back, and the promise of at most 4 keys a segment lets one
// workgroup sort several segments in shared memory.
func ExampleSegmentedPlan_Record() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	data := []uint32{7, 5, 6, 2, 1, 9, 8, 3, 4}
	offsets := []uint32{0, 4, 5, 9}
	n, segments := uint64(len(data)), uint32(len(offsets)-1)
	plan, err := radix.NewSegmentedPlan(ctx, n, segments, radix.SegmentedSort{MaxSegment: 4})
	if err != nil {
		log.Fatal(err)
	}
	in, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	out, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	offs, _ := ctx.NewBuffer(4*uint64(len(offsets)), vk.DeviceLocal)
	defer in.Release()
	defer out.Release()
	defer offs.Release()
	if err := vk.Upload(in.All(), data); err != nil {
		log.Fatal(err)
	}
	if err := vk.Upload(offs.All(), offsets); err != nil {
		log.Fatal(err)
	}
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		plan.Record(r, radix.SegmentedBuffers{Keys: in.All(), Offsets: offs.All(), KeysOut: out.All()})
	})
	if err != nil {
		log.Fatal(err)
	}
	sorted := make([]uint32, n)
	if err := vk.Download(out.All(), sorted); err != nil {
		log.Fatal(err)
	}
	fmt.Println(sorted, plan.Tuning().Block)
	// Output:
	// [2 5 6 7 1 3 4 8 9] true
}
