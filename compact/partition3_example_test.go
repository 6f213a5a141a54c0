package compact_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/vk"
)

// Three groups in one pass: the negative keys, then of the others those
// below 10, then the rest, each in input order.
func ExamplePartition3Slice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	keys := []int32{5, -1, 12, 0, -7, 30, 9, -2}
	neg, small, rest, res, err := compact.Partition3Slice(ctx, keys, compact.Partition3{
		First:  compact.KeepIf(compact.Less, compact.Int(0)),
		Second: compact.KeepIf(compact.Less, compact.Int(10)),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(neg, small, rest, res.First, res.Second, res.Rest)
	// Output: [-1 -7 -2] [5 0 9] [12 30] 3 3 2
}
