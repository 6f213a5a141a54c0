package compact_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Unique by key (Selection.Values), checked against the Go reference of
// the neighbour tests: the kept keys as unique's, and beside them the
// values at the same positions.

// byKeyCase is one unique by key to run and check.
type byKeyCase struct {
	n        int
	sel      compact.Selection // with Values set
	repeat   float64           // the chance that a key repeats the one before it
	gpuCount bool              // pass count through Buffers.Count
	count    uint32
}

func (c byKeyCase) String() string {
	s := fmt.Sprintf("n=%d %v values=%v keep=%v path=%v loads=%d wg=%d write=%v repeat=%v", c.n, c.sel.Elem, c.sel.Values, c.sel.Keep,
		c.sel.Path, c.sel.LoadsPerLane, c.sel.WorkgroupSize, c.sel.Write, c.repeat)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

// runByKey runs c through Plan.Record on fresh random keys and values
// with every written buffer poisoned, and checks the result block, the
// kept keys and values, and that nothing past them was written.
func runByKey(t *testing.T, ctx *vk.Context, rng *rand.Rand, c byKeyCase) {
	t.Helper()
	if err := tryByKey(t, ctx, rng, c); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

func tryByKey(t *testing.T, ctx *vk.Context, rng *rand.Rand, c byKeyCase) error {
	e := c.sel.Elem
	e.Key = e.Key.OrUint32()
	size, vsize := int(e.Size()), int(c.sel.Values.Size())
	keys := runData(rng, e, c.n, c.repeat)
	values := make([]byte, c.n*vsize)
	for i := range values {
		values[i] = byte(rng.Uint32())
	}
	nEff := c.n
	if c.gpuCount {
		nEff = min(c.n, int(c.count))
	}
	var wantKeys, wantValues []byte
	kept := 0
	for i, k := range refNeighbours(keys, e, c.sel.Keep, nEff) {
		if k {
			wantKeys = append(wantKeys, keys[i*size:(i+1)*size]...)
			wantValues = append(wantValues, values[i*vsize:(i+1)*vsize]...)
			kept++
		}
	}

	p, err := compact.NewPlan(ctx, uint64(c.n), c.sel)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if c.sel.Path != vkcompact.PathAuto && p.Tuning().Path != c.sel.Path {
		return fmt.Errorf("planned on %v", p.Tuning().Path)
	}
	const guard = 64
	kb, vb := uint64(c.n*size), uint64(c.n*vsize)
	src := vktest.NewPoisoned(t, ctx, kb+guard)
	vals := vktest.NewPoisoned(t, ctx, vb+guard)
	if err := vk.Upload(src.Range(0, kb), keys); err != nil {
		return err
	}
	if err := vk.Upload(vals.Range(0, vb), values); err != nil {
		return err
	}
	dst := vktest.NewPoisoned(t, ctx, kb+guard)
	valsOut := vktest.NewPoisoned(t, ctx, vb+guard)
	b := compact.Buffers{Src: src.Range(0, kb), Dst: dst.Range(0, kb), Values: vals.Range(0, vb), ValuesOut: valsOut.Range(0, vb),
		Result:  vktest.NewPoisoned(t, ctx, compact.ResultSize).Range(0, compact.ResultSize),
		Scratch: vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())}
	if c.gpuCount {
		cb := vktest.NewPoisoned(t, ctx, 16)
		if err := vk.Upload(cb.Range(0, 4), []uint32{c.count}); err != nil {
			return err
		}
		b.Count = cb.Range(0, 4)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return err
	}
	res, err := compact.ReadResult(b.Result)
	if err != nil {
		return err
	}
	if int(res.Kept) != kept || int(res.Rejected) != nEff-kept || int(res.Total) != nEff {
		return fmt.Errorf("result block kept/rejected/total %d/%d/%d, want %d/%d/%d", res.Kept, res.Rejected, res.Total, kept, nEff-kept, nEff)
	}
	for _, o := range []struct {
		what string
		buf  *vk.Buffer
		want []byte
		size int
	}{{"key", dst, wantKeys, size}, {"value", valsOut, wantValues, vsize}} {
		got := make([]byte, o.buf.Size())
		if err := vk.Download(o.buf.All(), got); err != nil {
			return err
		}
		if out := got[:len(o.want)]; !bytes.Equal(out, o.want) {
			for i := 0; i < len(o.want); i += o.size {
				if !bytes.Equal(out[i:i+o.size], o.want[i:i+o.size]) {
					return fmt.Errorf("kept %s %d of %d: got % x, want % x", o.what, i/o.size, kept, out[i:i+o.size], o.want[i:i+o.size])
				}
			}
		}
		if !bytes.Equal(got[len(o.want):], vktest.PoisonBytes(uint64(len(got)))[len(o.want):]) {
			return fmt.Errorf("bytes after the kept %ss were written", o.what)
		}
	}
	// The inputs are read only.
	for _, in := range []struct {
		buf  *vk.Buffer
		want []byte
	}{{src, keys}, {vals, values}} {
		got := make([]byte, len(in.want))
		if err := vk.Download(in.buf.Range(0, uint64(len(got))), got); err != nil {
			return err
		}
		if !bytes.Equal(got, in.want) {
			return errors.New("an input changed")
		}
	}
	return nil
}

// valueTypes are the values' types: 4 and 8 bytes.
var valueTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Float32, vkcompact.Int32, vkcompact.Uint64, vkcompact.Float64, vkcompact.Int64}

// TestUniqueByKeyTypes runs unique by key on every key type and layout,
// under each equality, with values of 4 and 8 bytes, on both paths, with
// runs that cross tiles and chunks.
func TestUniqueByKeyTypes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	eqs := []compact.Equality{compact.EqualKeys, compact.EqualKeyBits, compact.EqualElements}
	n := 5000
	if vktest.Short() {
		n = 1500
	}
	for ei, e := range nbElems() {
		for pi, path := range nbPaths {
			for i, eq := range eqs {
				// Short: each layout on one path under one equality; on
				// SwiftShader plain uint32 and float64 keys and a struct.
				if vktest.Short() && (pi != (ei/2)%2 || i != ei%3) {
					continue
				}
				if lean(ctx) && ei != 0 && ei != 5 && ei != 8 {
					continue
				}
				sel := compact.Selection{Elem: e, Keep: compact.KeepFirstOfRun(eq), Values: valueTypes[(ei+i+pi)%len(valueTypes)], Options: compact.Options{Path: path}}
				runByKey(t, ctx, rng, byKeyCase{n: n + rng.IntN(100), sel: sel, repeat: []float64{0.5, 0.9, 0.1}[i]})
			}
		}
	}
}

// TestUniqueByKeySizes runs unique by key around tile and chunk
// boundaries: all keys distinct, runs, runs longer than a tile, all
// equal, one element and none, and with the count on the GPU.
func TestUniqueByKeySizes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{0, 1, 2, 3, 4, 5, 31, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4097, 16385, 70001}
	if vktest.Short() {
		sizes = []int{0, 1, 2, 3, 5, 33, 256, 257, 1025, 4097, 16385}
	}
	if lean(ctx) {
		sizes = []int{0, 1, 2, 33, 257, 4097}
	}
	for si, n := range sizes {
		for pi, path := range nbPaths {
			for ri, repeat := range []float64{-1, 0.7, 0.999, 1} { // all distinct, runs, long runs, all equal
				if lean(ctx) && pi == 1 && ri > 1 {
					continue
				}
				vt := []vkcompact.Type{vkcompact.Uint32, vkcompact.Uint64}[(si+ri)%2]
				sel := compact.Selection{Keep: compact.KeepUnique(), Values: vt, Options: compact.Options{Path: path}}
				runByKey(t, ctx, rng, byKeyCase{n: n, sel: sel, repeat: repeat})
			}
			for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n), uint32(n) + 5} {
				sel := compact.Selection{Keep: compact.KeepUnique(), Values: vkcompact.Float32, Options: compact.Options{Path: path}}
				runByKey(t, ctx, rng, byKeyCase{n: n, sel: sel, repeat: 0.6, gpuCount: true, count: count})
			}
		}
	}
}

// TestUniqueByKeyTunings runs unique by key with small and large tiles
// and chunks, several loads per lane and both writes of the three
// phases, so that tiles, segments of a load and chunks all cut runs.
func TestUniqueByKeyTunings(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sg := ctx.Info().MaxSubgroupSize
	elems := []vkcompact.Elem{vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Uint64), vkcompact.Struct(12, 8, vkcompact.Uint32)}
	for ei, e := range elems {
		for li, loads := range []uint32{1, 2, 3, 4} {
			if vktest.Short() && !(ei == 0 && li == 0) && !(ei == 2 && li == 3) && !(ei == 1 && li == 1) {
				continue
			}
			for oi, o := range []compact.Options{
				{Path: vkcompact.PathSinglePass, WorkgroupSize: sg, LoadsPerLane: loads},
				{Path: vkcompact.PathSinglePass, WorkgroupSize: 4 * sg, LoadsPerLane: loads},
				{Path: vkcompact.PathThreePhase, LoadsPerLane: loads, Processors: 7, Write: compact.WriteStaged},
				{Path: vkcompact.PathThreePhase, LoadsPerLane: loads, Processors: 64, Write: compact.WriteScattered},
			} {
				if o.WorkgroupSize > ctx.Info().MaxWorkgroupInvocations || (lean(ctx) && ei != 0 && oi != 3) {
					continue
				}
				sel := compact.Selection{Elem: e, Keep: compact.KeepUnique(), Values: valueTypes[(ei+li+oi)%len(valueTypes)], Options: o}
				runByKey(t, ctx, rng, byKeyCase{n: 3000 + rng.IntN(2000), sel: sel, repeat: []float64{0.8, 0.3}[li%2]})
			}
		}
	}
}

// TestUniqueByKeySlice checks UniqueByKeySlice against a Go loop: uint32
// keys with float32 values, float32 keys (NaNs, both zeros) with int64
// values under each equality, and structs by a key field with uint32
// values.
func TestUniqueByKeySlice(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := 3000 + rng.IntN(2000)
	keys := make([]uint32, n)
	values := make([]float32, n)
	for i := range keys {
		keys[i] = uint32(i / (1 + rng.IntN(9)))
		if i > 0 && rng.IntN(3) == 0 {
			keys[i] = keys[i-1]
		}
		values[i] = rng.Float32()
	}
	gotK, gotV, res, err := compact.UniqueByKeySlice(ctx, keys, values, compact.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	var wantK []uint32
	var wantV []float32
	for i := range keys {
		if i == 0 || keys[i] != keys[i-1] {
			wantK, wantV = append(wantK, keys[i]), append(wantV, values[i])
		}
	}
	if fmt.Sprint(gotK) != fmt.Sprint(wantK) || fmt.Sprint(gotV) != fmt.Sprint(wantV) || int(res.Kept) != len(wantK) || int(res.Total) != n {
		t.Errorf("uint32 keys, float32 values: %d keys and %d values (%+v), want %d", len(gotK), len(gotV), res, len(wantK))
	}

	e := vkcompact.Plain(vkcompact.Float32)
	raw := runData(rng, e, n, 0.6)
	fkeys := unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), n)
	ivals := make([]int64, n)
	for i := range ivals {
		ivals[i] = int64(rng.Uint64())
	}
	for _, eq := range []compact.Equality{compact.EqualKeys, compact.EqualKeyBits, compact.EqualElements} {
		gk, gv, _, err := compact.UniqueByKeySlice(ctx, fkeys, ivals, compact.Selection{Keep: compact.Keep{Equal: eq}})
		if err != nil {
			t.Fatalf("%v: %v", eq, err)
		}
		var wk []uint64
		var wv []int64
		for i, k := range refNeighbours(raw, e, compact.KeepFirstOfRun(eq), n) {
			if k {
				wk, wv = append(wk, keyAt(raw, e, i)), append(wv, ivals[i])
			}
		}
		if len(gk) != len(wk) || len(gv) != len(wv) {
			t.Fatalf("%v: %d keys and %d values, want %d", eq, len(gk), len(gv), len(wk))
		}
		for i := range wk {
			if uint64(math.Float32bits(gk[i])) != wk[i] || gv[i] != wv[i] {
				t.Fatalf("%v: pair %d is (%v, %d), want (%08x, %d)", eq, i, gk[i], gv[i], wk[i], wv[i])
			}
		}
	}

	type cell struct {
		Cell uint32
		X    float32
	}
	cells := []cell{{1, 0}, {1, 1}, {2, 2}, {3, 3}, {3, 4}, {1, 5}}
	elem, err := vkcompact.StructOf[cell]("Cell")
	if err != nil {
		t.Fatal(err)
	}
	gc, gv, _, err := compact.UniqueByKeySlice(ctx, cells, []uint32{10, 11, 12, 13, 14, 15}, compact.Selection{Elem: elem})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(gc, gv) != fmt.Sprint([]cell{{1, 0}, {2, 2}, {3, 3}, {1, 5}}, []uint32{10, 12, 13, 15}) {
		t.Errorf("structs by Cell: %v %v", gc, gv)
	}
	empty, emptyV, res, err := compact.UniqueByKeySlice(ctx, []uint64{}, []uint32{}, compact.Selection{})
	if err != nil || len(empty) != 0 || len(emptyV) != 0 || res != (compact.Result{}) {
		t.Errorf("no keys: %v %v %+v %v", empty, emptyV, res, err)
	}
}
