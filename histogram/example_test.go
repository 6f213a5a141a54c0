package histogram_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/vk"
)

// A luminance histogram, as auto-exposure takes it: 8 even bins over
// [0, 1), the samples outside ignored.
func ExampleHistogramSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	luminance := []float32{0.01, 0.1, 0.13, 0.3, 0.5, 0.5, 0.74, 0.99, 1, 1.5, -0.2}
	counts, err := histogram.HistogramSlice(ctx, luminance, histogram.Histogram{Bins: 8, Lower: 0, Upper: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(counts)
	// Output: [2 1 1 0 2 1 0 1]
}

// np.histogram(a, bins=3, range=(0, 10)) exactly: the bins by NumPy's own
// edges, the upper edge counted in the last bin.
func ExampleNumPyEdges() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	a := []int32{0, 3, 4, 6, 7, 9, 10, 11, -1}
	edges, err := histogram.NumPyEdges[int32](0, 10, 3)
	if err != nil {
		log.Fatal(err)
	}
	counts, err := histogram.HistogramEdgesSlice(ctx, a, edges, histogram.Histogram{IncludeUpper: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(edges, counts)
	// Output: [0 4 7 10] [2 2 3]
}
