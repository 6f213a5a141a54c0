package reduce_test

import (
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/reduce"
)

// TestReproducibleSums runs float32 sums of mixed magnitudes (whose
// value depends on the order of the additions) several times and
// compares the bits: a reduction's on both of its paths (which combine
// the same partials in the same order), a segmented reduction's, and a
// reduction by key's with the look-back waiting and falling back at
// once (its values never go through the look-back). Each result is
// also checked against the reference within its bound.
func TestReproducibleSums(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	f := vkcompact.Plain(vkcompact.Float32)
	n := 1<<20 + 777
	if vktest.Short() {
		n = 100003
	}
	bits := randBits(rng, vkcompact.Float32, n, false, false)
	for _, o := range []reduce.Options{{}, smallGroups(info, reduce.Options{})} {
		var first reduce.Result
		for i, path := range []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase, vkcompact.PathSinglePass, vkcompact.PathThreePhase} {
			o.Path = path
			res := runReduce(t, ctx, reduceCase{r: reduce.Reduce{Elem: f, Op: reduce.Sum, Options: o}, bits: bits})
			if i == 0 {
				first = res
			} else if res.Bits != first.Bits {
				t.Errorf("%+v run %d: sum %#x, the first run's %#x", o, i, res.Bits, first.Bits)
			}
		}
	}

	seg := segCase{s: reduce.Segmented{Elem: f, Op: reduce.Sum}, bits: bits, offsets: segOffsets(rng, n, segRandom, 4096)}
	segFirst := runSegmented(t, ctx, seg)
	if again := runSegmented(t, ctx, seg); !slices.Equal(again, segFirst) {
		t.Errorf("segmented sums differ between two runs")
	}

	keys := runKeys(rng, vkcompact.Uint32, n, 0.001, false)
	var byFirst []uint64
	for i, spins := range []int32{0, -1, 0, -1} {
		b := reduce.ByKey{Elem: vkcompact.Plain(vkcompact.Uint32), Value: vkcompact.Float32, Op: reduce.Sum}
		b.Spins = spins
		got := runByKey(t, ctx, byKeyCase{b: b, keys: keys, values: bits})
		if i == 0 {
			byFirst = got
		} else if !slices.Equal(got, byFirst) {
			t.Errorf("spins %d, run %d: the sums by key differ from the first run's", spins, i)
		}
	}
}
