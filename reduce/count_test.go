package reduce_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/reduce"
)

// TestReduceGPUCount takes a reduction's element count from a GPU
// buffer: none, one, some, all, more than n; the result must cover the
// counted elements only (the reference sees no others), on both paths.
func TestReduceGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	i := 0
	for _, n := range []int{1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n - 1), uint32(n), uint32(n + 5), 0xffffffff} {
			typ := types[i%len(types)]
			op := ops[i%len(ops)]
			o := reduce.Options{Path: []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase}[i/len(ops)%2]}
			if i%3 == 0 {
				o = smallGroups(info, o)
			}
			i++
			runReduce(t, ctx, reduceCase{r: reduce.Reduce{Elem: vkcompact.Plain(typ), Op: op, Options: o},
				bits: randBits(rng, typ, n, false, true), gpuCount: true, count: count})
		}
	}
}

// TestByKeyGPUCount takes a reduction by key's pair count from a GPU
// buffer: the runs must be those of the counted pairs, and the outputs
// past them stay poisoned, whatever the scratch held (poison or zeros).
func TestByKeyGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	i := 0
	for _, n := range []int{1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n - 1), uint32(n), uint32(n + 5), 0xffffffff} {
			ktyp, vtyp := types[i%len(types)], valueTypes[i%len(valueTypes)]
			b := reduce.ByKey{Elem: vkcompact.Plain(ktyp), Value: vtyp, Op: []reduce.Op{reduce.Sum, reduce.Min, reduce.Max}[i/2%3]}
			if i%2 == 0 {
				b.WorkgroupSize, b.LoadsPerLane = info.MaxSubgroupSize, 1
			}
			if i%3 == 0 {
				b.GroupSize = 3
			}
			i++
			runByKey(t, ctx, byKeyCase{b: b, keys: runKeys(rng, ktyp, n, []float64{0.3, 0.001}[i%2], true), values: randBits(rng, vtyp, n, false, true),
				gpuCount: true, count: count, zeroScratch: i%4 < 2})
		}
	}
}

// TestReduceWindows reduces inputs cut into windows (one dispatch per
// window of whole chunks, as past maxStorageBufferRange) by lowering the
// bytes a binding holds, on both paths, with and without a GPU count.
func TestReduceWindows(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	i := 0
	for _, typ := range types {
		for _, op := range ops {
			o := smallGroups(info, reduce.Options{Path: []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase}[i%2]})
			n := 5000 + rng.IntN(5000)
			c := reduceCase{r: reduce.Reduce{Elem: vkcompact.Plain(typ), Op: op, Options: o}, bits: randBits(rng, typ, n, false, true),
				windowLimit: uint64(typ.Size()) * 1000}
			if i%3 == 0 {
				c.gpuCount, c.count = true, uint32(rng.IntN(n+1))
			}
			i++
			p, err := reduce.NewPlanWindowLimit(ctx, uint64(n), c.r, c.windowLimit)
			if err != nil {
				t.Fatal(err)
			}
			if tn := p.Tuning(); tn.WindowWorkgroups == 0 || tn.WindowWorkgroups >= tn.Workgroups {
				t.Fatalf("%v: %d workgroups per window of %d: want several windows", c, tn.WindowWorkgroups, tn.Workgroups)
			}
			runReduce(t, ctx, c)
		}
	}
}

// TestReducePastOneBinding reduces more uint32 elements than one binding
// holds (maxStorageBufferRange), on both paths.
func TestReducePastOneBinding(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := int(ctx.Info().MaxStorageBufferRange/4) + 12345
	if uint64(n)*4 > 1<<30 {
		t.Skipf("maxStorageBufferRange %d: past one binding is %d bytes", ctx.Info().MaxStorageBufferRange, uint64(n)*4)
	}
	bits := randBits(rng, vkcompact.Uint32, n, false, false)
	for i, op := range []reduce.Op{reduce.Sum, reduce.ArgMax} {
		r := reduce.Reduce{Elem: vkcompact.Plain(vkcompact.Uint32), Op: op, Options: reduce.Options{Path: []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase}[i]}}
		p, err := reduce.NewPlan(ctx, uint64(n), r)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tuning().WindowWorkgroups == 0 {
			t.Fatalf("%v: no windows for %d elements", r, n)
		}
		runReduce(t, ctx, reduceCase{r: r, bits: bits})
	}
}
