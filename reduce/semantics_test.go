package reduce_test

import (
	"math"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/reduce"
)

var (
	negZero = float32(math.Copysign(0, -1))
	inf     = float32(math.Inf(1))
	nan1    = math.Float32frombits(0x7fc00001) // two NaNs told apart by their bits
	nan2    = math.Float32frombits(0xffc00002)
)

// sameFloat compares got with want bit for bit, but a sum that wants NaN
// takes any NaN: which NaN an addition returns is the device's choice.
func sameFloat(op reduce.Op, got, want float32) bool {
	if op == reduce.Sum && math.IsNaN(float64(want)) {
		return math.IsNaN(float64(got))
	}
	return math.Float32bits(got) == math.Float32bits(want)
}

// TestFloatSemantics holds ReduceSlice to the float32 rules the package
// documents, NumPy's where NumPy has one: NaN propagates through sum,
// min and max (np.min, np.max), and argmin and argmax return the first
// NaN (np.argmin, np.argmax); min and max return the element argmin and
// argmax pick, so the first NaN's bits, and of zeros, which compare
// equal, the first; the sum of nothing but -0.0 is -0.0 and the sum of
// nothing +0.0; +Inf plus -Inf is NaN; an empty input gives the
// identity and no index.
func TestFloatSemantics(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, c := range []struct {
		what  string
		op    reduce.Op
		data  []float32
		want  float32 // compared bit for bit
		index uint32
	}{
		{"sum of nothing", reduce.Sum, nil, 0, reduce.NoIndex},
		{"sum of -0.0s", reduce.Sum, []float32{negZero, negZero, negZero}, negZero, reduce.NoIndex},
		{"sum of -0.0 and +0.0", reduce.Sum, []float32{negZero, 0, negZero}, 0, reduce.NoIndex},
		{"sum with a NaN", reduce.Sum, []float32{1, 2, nan1, 3}, nan1, reduce.NoIndex},
		{"+Inf plus -Inf", reduce.Sum, []float32{inf, 1, -inf}, nan1, reduce.NoIndex},
		{"sum to +Inf", reduce.Sum, []float32{1, inf, 2}, inf, reduce.NoIndex},
		{"min of nothing", reduce.Min, nil, inf, reduce.NoIndex},
		{"max of nothing", reduce.Max, nil, -inf, reduce.NoIndex},
		{"argmin of nothing", reduce.ArgMin, nil, inf, reduce.NoIndex},
		{"argmax of nothing", reduce.ArgMax, nil, -inf, reduce.NoIndex},
		{"min: +0.0 first", reduce.Min, []float32{3, 0, negZero, 1}, 0, reduce.NoIndex},
		{"min: -0.0 first", reduce.Min, []float32{3, negZero, 0, 1}, negZero, reduce.NoIndex},
		{"max: -0.0 first", reduce.Max, []float32{-3, negZero, 0, -1}, negZero, reduce.NoIndex},
		{"argmin: zeros equal", reduce.ArgMin, []float32{3, 0, negZero, 1}, 0, 1},
		{"argmax: -0.0 first", reduce.ArgMax, []float32{-3, negZero, 0}, negZero, 1},
		{"min: the first NaN", reduce.Min, []float32{-inf, nan2, 1, nan1}, nan2, reduce.NoIndex},
		{"max: the first NaN", reduce.Max, []float32{inf, 1, nan1, nan2}, nan1, reduce.NoIndex},
		{"argmin: the first NaN", reduce.ArgMin, []float32{-inf, 5, nan2, nan1}, nan2, 2},
		{"argmax: the first NaN", reduce.ArgMax, []float32{inf, nan1, nan2}, nan1, 1},
		{"argmin: -Inf", reduce.ArgMin, []float32{1, -inf, 0, -inf}, -inf, 1},
		{"argmax: the first of equals", reduce.ArgMax, []float32{7, 9, 9, 2}, 9, 1},
		{"min of denormals", reduce.Min, []float32{math.Float32frombits(3), math.Float32frombits(1), math.Float32frombits(2)}, math.Float32frombits(1), reduce.NoIndex},
	} {
		got, idx, err := reduce.ReduceSlice(ctx, c.data, reduce.Reduce{Op: c.op})
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if !sameFloat(c.op, got, c.want) {
			t.Errorf("%s: %v (%#x), want %v (%#x)", c.what, got, math.Float32bits(got), c.want, math.Float32bits(c.want))
		}
		if idx != c.index {
			t.Errorf("%s: index %d, want %d", c.what, idx, c.index)
		}
	}
}

// TestSegmentSemantics holds ReduceSegmentsSlice to the empty segment's
// value (the identity, +0.0 for float sums) and to the float rules per
// segment.
func TestSegmentSemantics(t *testing.T) {
	ctx := vktest.Shared(t)
	data := []float32{negZero, negZero, 1, nan1, 2, 0, negZero}
	off := []uint32{0, 2, 2, 4, 5, 7, 7}
	for _, c := range []struct {
		op   reduce.Op
		want []float32
	}{
		{reduce.Sum, []float32{negZero, 0, nan1, 2, 0, 0}},
		{reduce.Min, []float32{negZero, inf, nan1, 2, 0, inf}},
		{reduce.Max, []float32{negZero, -inf, nan1, 2, 0, -inf}},
	} {
		got, err := reduce.ReduceSegmentsSlice(ctx, data, off, reduce.Segmented{Op: c.op})
		if err != nil {
			t.Fatal(err)
		}
		for s := range c.want {
			if !sameFloat(c.op, got[s], c.want[s]) {
				t.Errorf("%v segment %d: %v (%#x), want %v (%#x)", c.op, s, got[s], math.Float32bits(got[s]), c.want[s], math.Float32bits(c.want[s]))
			}
		}
	}
	ints, err := reduce.ReduceSegmentsSlice(ctx, []int32{5, -7, 3}, []uint32{0, 0, 3, 3}, reduce.Segmented{Op: reduce.Min})
	if err != nil {
		t.Fatal(err)
	}
	if ints[0] != math.MaxInt32 || ints[1] != -7 || ints[2] != math.MaxInt32 {
		t.Errorf("int32 min per segment %v, want [MaxInt32 -7 MaxInt32]", ints)
	}
}

// TestByKeySemantics holds ReduceByKeySlice to the keys' equality
// (compact.EqualKeys: each NaN a run of its own, -0.0 equal to +0.0 and
// the run's first key kept) and to the float rules per run.
func TestByKeySemantics(t *testing.T) {
	ctx := vktest.Shared(t)
	keys := []float32{nan1, nan1, 0, negZero, 0, 2, 2}
	values := []float32{1, 2, negZero, negZero, negZero, 5, nan2}
	gotK, gotV, err := reduce.ReduceByKeySlice(ctx, keys, values, reduce.ByKey{Op: reduce.Sum})
	if err != nil {
		t.Fatal(err)
	}
	wantK := []float32{nan1, nan1, 0, 2}
	wantV := []float32{1, 2, negZero, nan2}
	if len(gotK) != len(wantK) || len(gotV) != len(wantV) {
		t.Fatalf("keys %v values %v, want %v %v", gotK, gotV, wantK, wantV)
	}
	for i := range wantK {
		if math.Float32bits(gotK[i]) != math.Float32bits(wantK[i]) || !sameFloat(reduce.Sum, gotV[i], wantV[i]) {
			t.Errorf("run %d: key %v value %v (%#x), want %v %v (%#x)", i, gotK[i], gotV[i], math.Float32bits(gotV[i]), wantK[i], wantV[i], math.Float32bits(wantV[i]))
		}
	}
	k64, v, err := reduce.ReduceByKeySlice(ctx, []uint64{1 << 40, 1 << 40, 1<<40 + 1, 1}, []int32{-1, -2, 7, 3}, reduce.ByKey{Op: reduce.Max})
	if err != nil {
		t.Fatal(err)
	}
	if len(k64) != 3 || k64[0] != 1<<40 || k64[1] != 1<<40+1 || k64[2] != 1 || v[0] != -1 || v[1] != 7 || v[2] != 3 {
		t.Errorf("uint64 keys: %v %v, want [2^40 2^40+1 1] [-1 7 3]", k64, v)
	}
}
