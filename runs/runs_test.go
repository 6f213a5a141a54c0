package runs_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// keyBits reads element i's key bits.
func keyBits(data []byte, e vkcompact.Elem, i int) uint64 {
	off := i*int(e.Size()) + int(e.KeyOffset)
	if e.Key.Size() == 4 {
		return uint64(binary.LittleEndian.Uint32(data[off:]))
	}
	return binary.LittleEndian.Uint64(data[off:])
}

// keyPool draws key bits for type t from a few values (so that equal
// keys meet by chance), among them for floats both zeros and NaNs.
func keyPool(rng *rand.Rand, t vkcompact.Type) uint64 {
	switch t {
	case vkcompact.Float32:
		v := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), 1.5, -2, float32(math.Inf(1))}
		return uint64(math.Float32bits(v[rng.IntN(len(v))]))
	case vkcompact.Float64:
		v := []float64{0, math.Copysign(0, -1), math.NaN(), 1.5, -2, math.Inf(-1)}
		return math.Float64bits(v[rng.IntN(len(v))])
	}
	return uint64(rng.IntN(5)) * 0x100000001 // both words of a 64-bit key
}

// runsData returns n elements of layout e, each repeating the one before
// it (wholly, or its key alone) with probability repeat; a negative
// repeat gives distinct keys 1, 2, 3, ... (integer keys): no run longer
// than one.
func runsData(rng *rand.Rand, e vkcompact.Elem, n int, repeat float64) []byte {
	size := int(e.Size())
	data := make([]byte, n*size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for i := 0; i < n; i++ {
		bits := keyPool(rng, e.Key)
		if repeat < 0 {
			bits = uint64(i + 1)
		} else if i > 0 && rng.Float64() < repeat {
			if rng.IntN(2) == 0 {
				copy(data[i*size:], data[(i-1)*size:i*size])
			}
			bits = keyBits(data, e, i-1)
		}
		off := i*size + int(e.KeyOffset)
		if e.Key.Size() == 4 {
			binary.LittleEndian.PutUint32(data[off:], uint32(bits))
		} else {
			binary.LittleEndian.PutUint64(data[off:], bits)
		}
	}
	return data
}

// same says whether elements i and j are equal under eq, by Go's
// comparisons.
func same(data []byte, e vkcompact.Elem, eq compact.Equality, i, j int) bool {
	size := int(e.Size())
	a, b := keyBits(data, e, i), keyBits(data, e, j)
	switch {
	case eq == compact.EqualElements:
		return bytes.Equal(data[i*size:(i+1)*size], data[j*size:(j+1)*size])
	case eq == compact.EqualKeyBits:
		return a == b
	case e.Key == vkcompact.Float32:
		return math.Float32frombits(uint32(a)) == math.Float32frombits(uint32(b))
	case e.Key == vkcompact.Float64:
		return math.Float64frombits(a) == math.Float64frombits(b)
	}
	return a == b
}

// reference returns the runs of the first n elements: each run's first
// index and length.
func reference(data []byte, e vkcompact.Elem, eq compact.Equality, n int) (starts, lengths []uint32) {
	for i := 0; i < n; i++ {
		if i == 0 || !same(data, e, eq, i, i-1) {
			starts = append(starts, uint32(i))
			lengths = append(lengths, 0)
		}
		lengths[len(lengths)-1]++
	}
	return starts, lengths
}

// rlCase is one plan to run and check.
type rlCase struct {
	n        int
	enc      runs.Encoding
	repeat   float64
	gpuCount bool
	count    uint32
}

func (c rlCase) String() string {
	s := fmt.Sprintf("n=%d %v %v equal=%v path=%v lengths=%v repeat=%v", c.n, c.enc.Op, c.enc.Elem, c.enc.Equal, c.enc.Options.Path, c.enc.Lengths, c.repeat)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

func runCase(t *testing.T, ctx *vk.Context, rng *rand.Rand, c rlCase) {
	t.Helper()
	if err := tryCase(t, ctx, rng, c); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

// tryCase runs c through Plan.Record with every written buffer poisoned
// and checks the result block, the outputs, and that nothing past them
// was written.
func tryCase(t *testing.T, ctx *vk.Context, rng *rand.Rand, c rlCase) error {
	e := c.enc.Elem
	e.Key = e.Key.OrUint32()
	size := int(e.Size())
	data := runsData(rng, e, c.n, c.repeat)
	nEff := c.n
	if c.gpuCount {
		nEff = min(c.n, int(c.count))
	}
	starts, lens := reference(data, e, c.enc.Equal, nEff)
	var wantOut, wantLen []byte
	for j, s := range starts {
		switch {
		case c.enc.Op == runs.Encode:
			wantOut = append(wantOut, data[int(s)*size:(int(s)+1)*size]...)
		case lens[j] > 1:
			wantOut = binary.LittleEndian.AppendUint32(wantOut, s)
		default:
			continue
		}
		wantLen = binary.LittleEndian.AppendUint32(wantLen, lens[j])
	}
	wantRuns := len(wantLen) / 4

	p, err := runs.NewPlan(ctx, uint64(c.n), c.enc)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if path := c.enc.Options.Path; path != vkcompact.PathAuto && p.Tuning().Selection.Path != path {
		return fmt.Errorf("the selection planned on %v", p.Tuning().Selection.Path)
	}
	if l := c.enc.Lengths; l != runs.LengthsAuto && p.Tuning().Lengths != l {
		return fmt.Errorf("the lengths planned %v", p.Tuning().Lengths)
	}
	const guard = 64
	nb := uint64(c.n * size)
	src := vktest.NewPoisoned(t, ctx, nb+guard)
	if err := vk.Upload(src.Range(0, nb), data); err != nil {
		return err
	}
	outBytes, lenBytes := nb, uint64(c.n)*4
	if c.enc.Op == runs.NonTrivial {
		outBytes, lenBytes = uint64(c.n/2)*4, uint64(c.n/2)*4
	}
	out := vktest.NewPoisoned(t, ctx, outBytes+guard)
	lengths := vktest.NewPoisoned(t, ctx, lenBytes+guard)
	b := runs.Buffers{Src: src.Range(0, max(nb, 4)), Lengths: lengths.Range(0, max(lenBytes, 4)),
		Result:  vktest.NewPoisoned(t, ctx, runs.ResultSize).Range(0, runs.ResultSize),
		Scratch: vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())}
	if c.enc.Op == runs.Encode {
		b.Keys = out.Range(0, max(outBytes, 4))
	} else {
		b.Offsets = out.Range(0, max(outBytes, 4))
	}
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
	var block [12]uint32
	if err := vk.Download(b.Result, block[:]); err != nil {
		return err
	}
	group := uint32(64)
	if c.enc.GroupSize != 0 {
		group = c.enc.GroupSize
	}
	groups := (uint32(wantRuns) + group - 1) / group
	if int(block[0]) != wantRuns || int(block[1]) != nEff-wantRuns || int(block[2]) != nEff || block[4]*block[5] < groups || block[8] != uint32(wantRuns) {
		return fmt.Errorf("result block %v, want %d runs of %d elements, %d workgroups", block, wantRuns, nEff, groups)
	}
	for _, o := range []struct {
		name string
		buf  *vk.Buffer
		want []byte
	}{{"keys or offsets", out, wantOut}, {"lengths", lengths, wantLen}} {
		got := make([]byte, o.buf.Size())
		if err := vk.Download(o.buf.All(), got); err != nil {
			return err
		}
		osize := 4
		if o.name != "lengths" && c.enc.Op == runs.Encode {
			osize = size
		}
		if !bytes.Equal(got[:len(o.want)], o.want) {
			for i := 0; i < len(o.want); i += osize {
				if !bytes.Equal(got[i:i+osize], o.want[i:i+osize]) {
					return fmt.Errorf("%s: run %d of %d: got % x, want % x", o.name, i/osize, wantRuns, got[i:i+osize], o.want[i:i+osize])
				}
			}
		}
		if !bytes.Equal(got[len(o.want):], vktest.PoisonBytes(uint64(len(got)))[len(o.want):]) {
			return errors.New(o.name + ": bytes past the runs were written")
		}
	}
	return nil
}

var paths = []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase}

// encodeLengths are Encode's two ways of finding the lengths.
var encodeLengths = []runs.Lengths{runs.LengthsInSelection, runs.LengthsFinish}

// lean says whether a short run is on SwiftShader, where each kernel
// compiled under the validation layer costs about two seconds: the tests
// then take a few shapes (lavapipe's legs run the others, and the full
// form all of them).
func lean(ctx *vk.Context) bool {
	return vktest.Short() && strings.Contains(ctx.Info().Name, "SwiftShader")
}

// elems are the layouts: plain keys of every type, and structs on the
// vector path (8 and 16 bytes) and the element path (12 and 24 bytes).
func elems() []vkcompact.Elem {
	var es []vkcompact.Elem
	for _, t := range []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64} {
		es = append(es, vkcompact.Plain(t))
	}
	return append(es, vkcompact.Struct(8, 4, vkcompact.Float32), vkcompact.Struct(12, 4, vkcompact.Int32),
		vkcompact.Struct(16, 8, vkcompact.Int64), vkcompact.Struct(24, 8, vkcompact.Float64))
}

// TestTypes runs Encode and NonTrivial on every key type and layout, on
// both paths (one per layout in the short form), under each equality.
func TestTypes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	eqs := []compact.Equality{compact.EqualKeys, compact.EqualKeyBits, compact.EqualElements}
	for ei, e := range elems() {
		for pi, path := range paths {
			for i, eq := range eqs {
				for oi, op := range []runs.Op{runs.Encode, runs.NonTrivial} {
					// Short: four layouts (plain and structs, the vector
					// and the element paths), each once (compact's own
					// tests cover every layout's neighbour test).
					if vktest.Short() && !(ei == 3 && pi == 0 && oi == 0 && i == 0) && !(ei == 6 && pi == 1 && oi == 0 && i == 2) &&
						!(ei == 7 && pi == 1 && oi == 1 && i == 0) && !(ei == 9 && pi == 0 && oi == 0 && i == 1) {
						continue
					}
					if lean(ctx) && ei != 9 {
						continue // SwiftShader: a struct of 64-bit float keys
					}
					enc := runs.Encoding{Op: op, Elem: e, Equal: eq, Options: compact.Options{Path: path}}
					if op == runs.Encode {
						enc.Lengths = encodeLengths[(ei+i)%2]
					}
					runCase(t, ctx, rng, rlCase{n: 2000 + rng.IntN(3000), enc: enc, repeat: []float64{0.6, 0.9, 0.2}[i]})
				}
			}
		}
	}
}

// TestSizes runs uint32 keys around tile and chunk boundaries, with runs
// longer than a tile, a run at the end, one run, no run longer than one,
// one element and none, with the count on the GPU and a workgroup size
// for the next pass.
func TestSizes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{0, 1, 2, 3, 5, 33, 255, 256, 257, 1023, 1025, 4097, 16385, 70001}
	if vktest.Short() {
		sizes = []int{0, 1, 2, 3, 33, 257, 1025, 4097, 16385}
	}
	if lean(ctx) {
		sizes = []int{0, 1, 2, 33, 1025, 4097}
	}
	for _, n := range sizes {
		for pi, path := range paths {
			for oi, op := range []runs.Op{runs.Encode, runs.NonTrivial} {
				if lean(ctx) && pi == 1 && oi == 1 {
					continue // SwiftShader: NonTrivial on the single pass
				}
				for ri, repeat := range []float64{-1, 0, 0.5, 0.999, 1} { // distinct, from a pool, runs, long runs, all equal
					enc := runs.Encoding{Op: op, Options: compact.Options{Path: path}}
					if op == runs.Encode {
						enc.Lengths = encodeLengths[ri%2]
					}
					runCase(t, ctx, rng, rlCase{n: n, enc: enc, repeat: repeat})
				}
				for ci, count := range []uint32{0, 1, uint32(n / 3), uint32(n) + 7} {
					enc := runs.Encoding{Op: op, Options: compact.Options{Path: path, GroupSize: 32}}
					if op == runs.Encode {
						enc.Lengths = encodeLengths[ci%2]
					}
					runCase(t, ctx, rng, rlCase{n: n, enc: enc, repeat: 0.7, gpuCount: true, count: count})
				}
			}
		}
	}
}

// TestSlices checks EncodeSlice and NonTrivialSlice on a struct by its
// key and on plain float keys.
func TestSlices(t *testing.T) {
	ctx := vktest.Shared(t)
	type particle struct {
		Cell uint32
		X    float32
	}
	data := []particle{{4, 0}, {4, 1}, {4, 2}, {5, 3}, {7, 4}, {7, 5}}
	elem, err := vkcompact.StructOf[particle]("Cell")
	if err != nil {
		t.Fatal(err)
	}
	keys, lengths, err := runs.EncodeSlice(ctx, data, runs.Encoding{Elem: elem})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(keys, lengths) != fmt.Sprint([]particle{{4, 0}, {5, 3}, {7, 4}}, []uint32{3, 1, 2}) {
		t.Errorf("EncodeSlice: %v %v", keys, lengths)
	}
	nan := float32(math.NaN())
	offsets, lengths, err := runs.NonTrivialSlice(ctx, []float32{nan, nan, 0, float32(math.Copysign(0, -1)), 1, 2, 2}, runs.Encoding{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(offsets, lengths) != fmt.Sprint([]uint32{2, 5}, []uint32{2, 2}) {
		t.Errorf("NonTrivialSlice: %v %v, want [2 5] [2 2] (NaN equals nothing, -0 equals 0)", offsets, lengths)
	}
	keys32, lengths, err := runs.EncodeSlice(ctx, []uint32{}, runs.Encoding{})
	if err != nil || len(keys32) != 0 || len(lengths) != 0 {
		t.Errorf("EncodeSlice of nothing: %v %v %v", keys32, lengths, err)
	}
}
