package compact_test

import (
	"fmt"
	"log"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Particle is a 32-byte particle: position, velocity, age and lifetime.
type Particle struct {
	Pos  [3]float32
	Vel  [3]float32
	Age  float32
	Life float32 // seconds left; the particle is dead at 0 or below
}

// The particle case, as an engine embeds it: the engine owns the device
// and the particle buffer; vkcompact borrows both, removes the dead
// particles in place, and leaves the kept count and the next pass's
// dispatch arguments on the GPU. Here vk.Open stands in for the engine's
// own device creation (which would merge vk.DeviceRequirements into its
// VkDeviceCreateInfo), and the read-backs at the end only show the
// result: a frame loop reads nothing back.
func Example_particles() {
	engine, err := vk.Open(vk.Options{}) // the engine's device
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Release()
	h := engine.Handles()
	req, err := vk.DeviceRequirements(h.Instance, h.PhysicalDevice, h.APIVersion)
	if err != nil || len(req.Missing) > 0 {
		log.Fatal(err, req.Missing)
	}

	ps := make([]Particle, 1000)
	for i := range ps {
		ps[i].Age = float32(i)
		ps[i].Life = float32(i%4) - 1 // every fourth particle has 2 s left, ...
	}
	engineBuf, err := engine.NewBuffer(uint64(len(ps))*32, vk.DeviceLocal) // the engine's VkBuffer
	if err != nil {
		log.Fatal(err)
	}
	if err := vk.Upload(engineBuf.All(), ps); err != nil {
		log.Fatal(err)
	}

	// vkcompact on the engine's device and buffer: its Release destroys
	// only what vkcompact created.
	ctx, err := vk.Borrow(h)
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	particles, err := ctx.WrapBuffer(engineBuf.Handle(), engineBuf.Size())
	if err != nil {
		log.Fatal(err)
	}

	// Keep particles whose Life (byte 28, float32) is above 0; in place.
	sel := compact.Selection{
		Elem:    vkcompact.Struct(32, 28, vkcompact.Float32),
		Keep:    compact.KeepIf(compact.Greater, compact.Float(0)),
		InPlace: true,
		Options: compact.Options{GroupSize: 64}, // the next pass's workgroup size
	}
	plan, err := compact.NewPlan(ctx, uint64(len(ps)), sel)
	if err != nil {
		log.Fatal(err)
	}
	result, err := ctx.NewBuffer(compact.ResultSize, vk.DeviceLocal)
	if err != nil {
		log.Fatal(err)
	}
	scratch, err := ctx.NewBuffer(plan.ScratchSize(), vk.DeviceLocal)
	if err != nil {
		log.Fatal(err)
	}

	// One submission: the compaction, then whatever the engine records
	// next, sized by result.Range(compact.ResultDispatchOffset, 12). An
	// engine records into its own command buffer instead:
	// plan.Record(pipeline.Record(ctx.Wrap(cmd)), ...), and calls
	// ctx.Completed(cmd) once that command buffer's fence has signalled.
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		plan.Record(r, compact.Buffers{Src: particles.All(), Result: result.All(), Scratch: scratch.All()})
	})
	if err != nil {
		log.Fatal(err)
	}

	res, err := compact.ReadResult(result.All())
	if err != nil {
		log.Fatal(err)
	}
	var dispatch [3]uint32
	if err := vk.Download(result.Range(compact.ResultDispatchOffset, 12), dispatch[:]); err != nil {
		log.Fatal(err)
	}
	alive := make([]Particle, res.Kept)
	if err := vk.Download(particles.Range(0, uint64(res.Kept)*32), alive); err != nil {
		log.Fatal(err)
	}
	fmt.Println("alive:", res.Kept, "of", res.Total)
	fmt.Println("next dispatch:", dispatch)
	fmt.Println("first survivors' ages:", alive[0].Age, alive[1].Age, alive[2].Age)
	// Output:
	// alive: 500 of 1000
	// next dispatch: [8 1 1]
	// first survivors' ages: 2 3 6
}

// Compacting a host slice: the kept values come back in input order.
func ExampleSlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	data := []float32{0.5, -1, 0, 2, float32(0) * -1, 3.25}
	kept, res, err := compact.SelectSlice(ctx, data, compact.Selection{Elem: vkcompact.Plain(vkcompact.Float32), Keep: compact.KeepNonZero()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(kept, res.Kept, res.Total)
	// Output: [0.5 -1 2 3.25] 4 6
}

// Unique by key on host slices: sorted cell indices and a particle index
// beside each; each cell's first particle comes back.
func ExampleUniqueByKeySlice() {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Release()
	cells := []uint32{3, 3, 5, 8, 8, 8, 9}
	particles := []uint32{12, 4, 7, 0, 9, 2, 5}
	keys, values, res, err := compact.UniqueByKeySlice(ctx, cells, particles, compact.Selection{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(keys, values, res.Kept)
	// Output: [3 5 8 9] [12 7 0 5] 4
}
