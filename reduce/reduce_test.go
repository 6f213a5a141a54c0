package reduce_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// reduceCase is one reduction to run and check.
type reduceCase struct {
	r      reduce.Reduce
	bits   []uint64
	srcOff uint64
	// gpuCount passes count through Buffers.Count.
	gpuCount bool
	count    uint32
	// windowLimit, when not zero, is the bytes one binding holds
	// (reduce.NewPlanWindowLimit).
	windowLimit uint64
}

func (c reduceCase) String() string {
	s := fmt.Sprintf("%v n=%d %+v", c.r, len(c.bits), c.r.Options)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	if c.windowLimit != 0 {
		s += fmt.Sprintf(" windows of %d bytes", c.windowLimit)
	}
	return s
}

// depth bounds the float32 additions along any element's way into a
// plan's sum: its units in turn per invocation (each a tree of 2), the
// subgroup and workgroup trees (7 levels each at most, and the
// subgroups' results in turn), then the partials in turn per invocation
// and the same trees again.
func depth(tn reduce.Tuning) float64 {
	steps := float64(tn.Chunk) / float64(tn.WorkgroupSize*tn.LoadsPerLane*4)
	groups := math.Ceil(float64(tn.Workgroups) / float64(tn.WorkgroupSize))
	return steps*float64(tn.LoadsPerLane) + 2 + 2*(14+float64(tn.WorkgroupSize)/4) + groups
}

// runReduce runs c with poisoned result and scratch and checks the result
// block against the reference; it returns the result for the callers
// that compare runs.
func runReduce(t testing.TB, ctx *vk.Context, c reduceCase) reduce.Result {
	t.Helper()
	res, err := tryReduce(t, ctx, c)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	return res
}

func tryReduce(t testing.TB, ctx *vk.Context, c reduceCase) (reduce.Result, error) {
	typ := c.r.Elem.Key.OrUint32()
	n := uint64(len(c.bits))
	p, err := reduce.NewPlanWindowLimit(ctx, n, c.r, c.windowLimit)
	if err != nil {
		return reduce.Result{}, fmt.Errorf("plan: %w", err)
	}
	size := uint64(typ.Size()) * n
	src := vktest.NewPoisoned(t, ctx, c.srcOff+size+64)
	b := reduce.Buffers{Src: src.Range(c.srcOff, size)}
	if n > 0 {
		if err := vk.Upload(b.Src, words(typ, c.bits)); err != nil {
			return reduce.Result{}, err
		}
	}
	b.Result = vktest.NewPoisoned(t, ctx, reduce.ResultSize).Range(0, reduce.ResultSize)
	b.Scratch = vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
	covered := c.bits
	if c.gpuCount {
		covered = c.bits[:min(n, uint64(c.count))]
		cb := vktest.NewPoisoned(t, ctx, 16)
		if err := vk.Upload(cb.Range(0, 4), []uint32{c.count}); err != nil {
			return reduce.Result{}, err
		}
		b.Count = cb.Range(0, 4)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return reduce.Result{}, err
	}
	res, err := reduce.ReadResult(b.Result)
	if err != nil {
		return res, err
	}
	return res, checkResult(c.r.Op, typ, covered, res, depth(p.Tuning()))
}

// checkResult compares a result block with the reference over bits.
func checkResult(op reduce.Op, typ vkcompact.Type, bits []uint64, res reduce.Result, d float64) error {
	wantBits, wantIdx := refReduce(typ, op, bits)
	if res.Count != uint32(len(bits)) {
		return fmt.Errorf("count %d, want %d", res.Count, len(bits))
	}
	if res.Index != wantIdx {
		return fmt.Errorf("index %d, want %d (value %#x, want %#x)", res.Index, wantIdx, res.Bits, wantBits)
	}
	if typ != vkcompact.Uint64 && res.Bits>>32 != 0 {
		return fmt.Errorf("value %#x: the high word of a 32-bit value is not zero", res.Bits)
	}
	if op == reduce.Sum && typ == vkcompact.Float32 {
		sum, abs, exact := floatSum(bits)
		if !floatOK(res.Bits, sum, abs, exact, wantBits, d) {
			return fmt.Errorf("float sum %#x (%g), want %g (magnitudes %g, exact %v: %#x)", res.Bits, f32(res.Bits), sum, abs, exact, wantBits)
		}
		return nil
	}
	if res.Bits != wantBits {
		return fmt.Errorf("value %#x, want %#x", res.Bits, wantBits)
	}
	return nil
}

// smallGroups, on a CPU device, makes the workgroups as small as they go
// (one subgroup, one load per lane) and many, so that modest inputs
// cross many partials.
func smallGroups(info vk.DeviceInfo, o reduce.Options) reduce.Options {
	o.WorkgroupSize, o.LoadsPerLane = info.MaxSubgroupSize, 1
	o.Workgroups = 1 << 12
	return o
}

// TestReduce runs every op on every type, on both paths, default and
// small workgroups, at sizes around the steps' and chunks' edges and at
// buffer offsets, on fresh random data with the special float values.
// The short form runs each (type, op) on one path, the paths taking
// turns.
func TestReduce(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	sizes := []int{0, 1, 2, 3, 5, 31, 100, 1023, 4096, 4097, 65537, 1<<20 + 12345}
	if vktest.Short() {
		sizes = []int{0, 1, 3, 31, 1023, 4097, 65537}
	}
	paths := []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase}
	for ti, typ := range types {
		for oi, op := range ops {
			for pi, path := range paths {
				if vktest.Short() && (ti+oi)%2 != pi {
					continue
				}
				for i, n := range sizes {
					o := reduce.Options{Path: path}
					if i%2 == 1 {
						o = smallGroups(info, o)
					}
					r := reduce.Reduce{Elem: vkcompact.Plain(typ), Op: op, Options: o}
					c := reduceCase{r: r, bits: randBits(rng, typ, n, i%3 == 0, true), srcOff: info.MinStorageBufferOffsetAlignment * uint64(rng.IntN(3))}
					runReduce(t, ctx, c)
				}
			}
		}
	}
}
