package radix_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// Sorting keys with a value each (here, the keys' input positions): the
// sort is stable, so equal keys keep their input order.
func ExampleSortPairsSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	depth := []float32{2.5, -1, 0.25, 2.5, -7}
	index := []uint32{0, 1, 2, 3, 4}
	keys, values, err := radix.SortPairsSlice(ctx, depth, index, radix.Sort{Descending: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(keys)
	fmt.Println(values)
	// Output:
	// [2.5 2.5 0.25 -1 -7]
	// [0 3 2 1 4]
}

// Sorting the survivors of a compaction without reading their count back:
// the sort takes its key count from the compaction's result block.
func ExamplePlan_Record() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	data := []uint32{9, 0, 3, 0, 0, 7, 1, 0}
	n := uint64(len(data))
	keys, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	result, _ := ctx.NewBuffer(compact.ResultSize, vk.DeviceLocal)
	if err := vk.Upload(keys.All(), data); err != nil {
		log.Fatal(err)
	}
	drop, err := compact.NewPlan(ctx, n, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), InPlace: true})
	if err != nil {
		log.Fatal(err)
	}
	sort, err := radix.NewPlan(ctx, n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), InPlace: true}) // n: a capacity
	if err != nil {
		log.Fatal(err)
	}
	s1, _ := ctx.NewBuffer(drop.ScratchSize(), vk.DeviceLocal)
	s2, _ := ctx.NewBuffer(sort.ScratchSize(), vk.DeviceLocal)
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		drop.Record(r, compact.Buffers{Src: keys.All(), Result: result.All(), Scratch: s1.All()})
		sort.Record(r, radix.Buffers{Keys: keys.All(), Scratch: s2.All(),
			Count: result.Range(compact.ResultKeptOffset, 4)})
	})
	if err != nil {
		log.Fatal(err)
	}
	got := make([]uint32, n)
	if err := vk.Download(keys.All(), got); err != nil {
		log.Fatal(err)
	}
	fmt.Println(got[:4], "then untouched:", got[4:])
	// Output: [1 3 7 9] then untouched: [0 7 1 0]
}

// Sorting structs by a field: the keys are taken out of the structs on
// the GPU, sorted with the structs' indices and the structs gathered, so
// no shader of yours is needed. Equal keys keep their input order.
func ExampleSortStructsSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	type Particle struct {
		Pos   [3]float32
		Depth float32
	}
	ps := []Particle{{Depth: 2.5}, {Pos: [3]float32{1, 0, 0}, Depth: -1}, {Depth: 9}, {Pos: [3]float32{2, 0, 0}, Depth: 2.5}}
	far, err := radix.SortStructsSlice(ctx, ps, "Depth", radix.StructSort{Descending: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range far {
		fmt.Println(p.Depth, p.Pos[0])
	}
	// Output:
	// 9 0
	// 2.5 0
	// 2.5 2
	// -1 1
}
