package permute_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/vk"
)

// Particles reordered by cell, as a particle engine does after its sort:
// the sort's order (here written out; radix sort of (cell, index) pairs
// gives it on the GPU) applied to each attribute buffer with a gather.
func ExampleGatherSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	cells := []uint32{7, 2, 9, 2}
	positions := [][2]float32{{0.7, 0}, {0.2, 1}, {0.9, 2}, {0.25, 3}}
	order := []uint32{1, 3, 0, 2} // the stable argsort of cells
	sortedCells, err := permute.GatherSlice(ctx, cells, order, permute.Permutation{})
	if err != nil {
		log.Fatal(err)
	}
	sortedPositions, err := permute.GatherSlice(ctx, positions, order, permute.Permutation{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sortedCells, sortedPositions)
	// Output: [2 2 7 9] [[0.2 1] [0.25 3] [0.7 0] [0.9 2]]
}

// A scatter by a permutation undoes the gather by it.
func ExampleScatterSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	sorted := []int32{20, 25, 70, 90}
	order := []uint32{1, 3, 0, 2}
	back, err := permute.ScatterSlice(ctx, make([]int32, 4), sorted, order, permute.Permutation{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back)
	// Output: [70 20 90 25]
}
