// Command quickstart is the README's first program: it opens a Vulkan
// device, keeps the particles in front of the camera, and sorts them
// front to back.
package main

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

func main() {
	ctx, err := vk.Open(vk.Options{}) // the best GPU, else a CPU driver (lavapipe, SwiftShader)
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()

	// Keep the particles in front of the camera (depth > 0), in order.
	depths := []float32{3.5, -1, 0.25, 8, -2, 1}
	visible, res, err := compact.SelectSlice(ctx, depths, compact.Selection{
		Keep: compact.KeepIf(compact.Greater, compact.Float(0)),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(visible, res.Kept, "of", res.Total)

	// Sort them front to back, each carrying its index.
	ids := []uint32{0, 1, 2, 3}
	front, order, err := radix.SortPairsSlice(ctx, visible, ids, radix.Sort{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(front, order)
}
