package compact_test

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
	"github.com/vkcompact/vkcompact/vk"
)

// The neighbour selections (FirstOfRun: unique; RunEdges) and
// Selection.Output, checked against a Go reference written from their
// definitions with Go's own comparisons.

// runData returns n elements of layout e in runs: each element repeats
// the one before it (its key, and half the time its other bytes too)
// with probability repeat, and otherwise draws a key from a small pool
// (so that equal keys also meet by chance) or at random. Float keys
// include NaNs and both zeros, and a repeated zero may change its sign.
// A negative repeat gives distinct keys, 1, 2, 3, ... (integer keys).
func runData(rng *rand.Rand, e vkcompact.Elem, n int, repeat float64) []byte {
	size := int(e.Size())
	data := make([]byte, n*size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	pool := specialKeys(e.Key, refConst{u: 7, i: -7, f: 1.5})
	for i := 0; i < n; i++ {
		if repeat < 0 {
			setKey(data, e, i, uint64(i+1))
			continue
		}
		if i > 0 && rng.Float64() < repeat {
			prev := keyAt(data, e, i-1)
			if rng.IntN(2) == 0 {
				copy(data[i*size:(i+1)*size], data[(i-1)*size:i*size])
			}
			if rng.IntN(8) == 0 {
				switch {
				case e.Key == vkcompact.Float32 && prev&0x7fffffff == 0:
					prev ^= 1 << 31
				case e.Key == vkcompact.Float64 && prev&^(1<<63) == 0:
					prev ^= 1 << 63
				}
			}
			setKey(data, e, i, prev)
			continue
		}
		setKey(data, e, i, pool(rng))
	}
	return data
}

// refSame says whether elements i and j of data are equal under eq, as
// Go compares them.
func refSame(data []byte, e vkcompact.Elem, eq compact.Equality, i, j int) bool {
	size := int(e.Size())
	switch eq {
	case compact.EqualElements:
		return bytes.Equal(data[i*size:(i+1)*size], data[j*size:(j+1)*size])
	case compact.EqualKeyBits:
		return keyAt(data, e, i) == keyAt(data, e, j)
	}
	a, b := keyAt(data, e, i), keyAt(data, e, j)
	switch e.Key {
	case vkcompact.Float32:
		return math.Float32frombits(uint32(a)) == math.Float32frombits(uint32(b))
	case vkcompact.Float64:
		return math.Float64frombits(a) == math.Float64frombits(b)
	}
	return a == b
}

// refNeighbours decides the first n elements of data by k (FirstOfRun or
// RunEdges).
func refNeighbours(data []byte, e vkcompact.Elem, k compact.Keep, n int) []bool {
	keep := make([]bool, n)
	for i := range keep {
		prev := i > 0 && refSame(data, e, k.Equal, i, i-1)
		if k.Op == compact.FirstOfRun {
			keep[i] = !prev
			continue
		}
		next := i+1 < n && refSame(data, e, k.Equal, i, i+1)
		keep[i] = (!prev && next) || (prev && !next)
	}
	return keep
}

// nbCase is one neighbour selection to run and check.
type nbCase struct {
	n        int
	sel      compact.Selection
	repeat   float64 // the chance that an element repeats the one before it
	gpuCount bool    // pass count through Buffers.Count
	count    uint32
}

func (c nbCase) String() string {
	s := fmt.Sprintf("n=%d %v keep=%v path=%v split=%v reversed=%v inplace=%v indices=%v repeat=%v", c.n, c.sel.Elem, c.sel.Keep,
		c.sel.Path, c.sel.Split, c.sel.ReverseRejected, c.sel.InPlace, c.sel.Output, c.repeat)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

// runNeighbours runs c through Plan.Record with every written buffer
// poisoned, and checks the result block, the output (elements or
// indices) and that nothing past the output was written.
func runNeighbours(t *testing.T, ctx *vk.Context, rng *rand.Rand, c nbCase) {
	t.Helper()
	if err := tryNeighbours(t, ctx, rng, c); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

func tryNeighbours(t *testing.T, ctx *vk.Context, rng *rand.Rand, c nbCase) error {
	e := c.sel.Elem
	e.Key = e.Key.OrUint32()
	size := int(e.Size())
	data := runData(rng, e, c.n, c.repeat)
	nEff := c.n
	if c.gpuCount {
		nEff = min(c.n, int(c.count))
	}
	keep := refNeighbours(data, e, c.sel.Keep, nEff)
	var want, rejected, wantElems []byte
	kept := 0
	indices := c.sel.Output != compact.OutputElements
	for i, k := range keep {
		el := data[i*size : (i+1)*size]
		if k {
			wantElems = append(wantElems, el...)
		}
		switch {
		case k && indices:
			want = binary.LittleEndian.AppendUint32(want, uint32(i))
		case k:
			want = append(want, el...)
		case c.sel.ReverseRejected:
			rejected = append(append([]byte{}, el...), rejected...)
		default:
			rejected = append(rejected, el...)
		}
		if k {
			kept++
		}
	}
	if c.sel.Split {
		want = append(want, rejected...)
	}

	p, err := compact.NewPlan(ctx, uint64(c.n), c.sel)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if c.sel.Path != vkcompact.PathAuto && p.Tuning().Path != c.sel.Path {
		return fmt.Errorf("planned on %v", p.Tuning().Path)
	}
	const guard = 64
	nb := uint64(c.n * size)
	outBytes := nb
	if indices {
		outBytes = uint64(c.n) * 4
	}
	src := vktest.NewPoisoned(t, ctx, nb+guard)
	if err := vk.Upload(src.Range(0, nb), data); err != nil {
		return err
	}
	b := compact.Buffers{Src: src.Range(0, nb)}
	dst := src
	if !c.sel.InPlace {
		dst = vktest.NewPoisoned(t, ctx, outBytes+guard)
		b.Dst = dst.Range(0, outBytes)
	}
	var elems *vk.Buffer
	if c.sel.Output == compact.OutputBoth {
		elems = vktest.NewPoisoned(t, ctx, nb+guard)
		b.Elements = elems.Range(0, nb)
	}
	b.Result = vktest.NewPoisoned(t, ctx, compact.ResultSize).Range(0, compact.ResultSize)
	b.Scratch = vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
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
	got := make([]byte, dst.Size())
	if err := vk.Download(dst.All(), got); err != nil {
		return err
	}
	if elems != nil {
		gotElems := make([]byte, elems.Size())
		if err := vk.Download(elems.All(), gotElems); err != nil {
			return err
		}
		if !bytes.Equal(gotElems[:len(wantElems)], wantElems) {
			return fmt.Errorf("the kept elements (OutputBoth) differ from the reference's %d", kept)
		}
		if !bytes.Equal(gotElems[len(wantElems):], vktest.PoisonBytes(uint64(len(gotElems)))[len(wantElems):]) {
			return errors.New("bytes after the kept elements (OutputBoth) were written")
		}
	}
	osize := size
	if indices {
		osize = 4
	}
	if out := got[:len(want)]; !bytes.Equal(out, want) {
		for i := 0; i < len(want); i += osize {
			if !bytes.Equal(out[i:i+osize], want[i:i+osize]) {
				return fmt.Errorf("output element %d of %d (%d kept): got % x, want % x", i/osize, len(want)/osize, kept, out[i:i+osize], want[i:i+osize])
			}
		}
	}
	rest := got[len(want):]
	if c.sel.InPlace {
		if !bytes.Equal(rest[:int(nb)-len(want)], data[len(want):]) {
			return errors.New("the in-place buffer changed after the output")
		}
		return nil
	}
	if !bytes.Equal(rest, vktest.PoisonBytes(uint64(len(got)))[len(want):]) {
		return errors.New("bytes after the output were written")
	}
	return nil
}

// nbElems are the layouts the neighbour tests take: plain keys of every
// type (the vector path of 4 and 2 per load, and 1 for none), and structs
// on the vector path (8 and 16 bytes) and the element path (12 and 24).
func nbElems() []vkcompact.Elem {
	var es []vkcompact.Elem
	for _, t := range allTypes {
		es = append(es, vkcompact.Plain(t))
	}
	return append(es, vkcompact.Struct(8, 4, vkcompact.Float32), vkcompact.Struct(12, 4, vkcompact.Int32),
		vkcompact.Struct(16, 8, vkcompact.Int64), vkcompact.Struct(24, 8, vkcompact.Float64))
}

var nbPaths = []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase}

// lean says whether a short run is on SwiftShader, where each kernel
// compiled under the validation layer costs about two seconds: the
// neighbour tests then take a few shapes (lavapipe's legs run the others,
// and the full form all of them).
func lean(ctx *vk.Context) bool {
	return vktest.Short() && strings.Contains(ctx.Info().Name, "SwiftShader")
}

// TestUniqueTypes runs unique (FirstOfRun) and RunEdges on every key type
// and layout, under each equality, on both paths, with runs that cross
// tiles and chunks.
func TestUniqueTypes(t *testing.T) {
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
				for ki, k := range []compact.Keep{compact.KeepFirstOfRun(eq), compact.KeepRunEdges(eq)} {
					// Short: each layout once, on one path with one test,
					// under one equality (each kernel compiled costs a
					// second on SwiftShader).
					if vktest.Short() && (pi != (ei/2)%2 || ki != ei%2 || i != []int{0, 0, 1, 0, 0, 2, 0, 1, 2, 0}[ei]) {
						continue
					}
					if lean(ctx) && ei != 0 && ei != 8 {
						continue // SwiftShader: plain uint32 keys and a struct of 64-bit keys
					}
					sel := compact.Selection{Elem: e, Keep: k, Options: compact.Options{Path: path}}
					if k.Op == compact.FirstOfRun && i == 1 {
						sel.Output = compact.OutputBoth // as runs.Encode takes it
					}
					runNeighbours(t, ctx, rng, nbCase{n: n + rng.IntN(100), sel: sel, repeat: []float64{0.5, 0.9, 0.1}[i]})
				}
			}
		}
	}
}

// TestUniqueSizes runs unique around tile and chunk boundaries, with
// runs longer than a tile, all elements equal, all distinct, one element
// and none: as a compaction, a split, in place, as indices and with the
// count on the GPU.
func TestUniqueSizes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{0, 1, 2, 3, 4, 5, 31, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4097, 16385, 70001}
	if vktest.Short() {
		sizes = []int{0, 1, 2, 3, 5, 33, 256, 257, 1025, 4097, 16385}
	}
	if lean(ctx) {
		sizes = []int{0, 1, 2, 33, 257, 4097}
	}
	for _, n := range sizes {
		for pi, path := range nbPaths {
			for ri, repeat := range []float64{-1, 0.7, 0.999, 1} { // all distinct, runs, long runs, all equal
				if lean(ctx) && pi == 1 && ri > 1 {
					continue // SwiftShader: the three phases on two patterns
				}
				sel := compact.Selection{Keep: compact.KeepUnique(), Options: compact.Options{Path: path}}
				runNeighbours(t, ctx, rng, nbCase{n: n, sel: sel, repeat: repeat})
				edges := sel
				edges.Keep = compact.KeepRunEdges(compact.EqualKeys)
				edges.Output = compact.OutputIndices
				runNeighbours(t, ctx, rng, nbCase{n: n, sel: edges, repeat: repeat})
			}
			modes := []compact.Selection{{Split: true}, {Split: true, ReverseRejected: true}, {InPlace: true}, {Split: true, InPlace: true}, {Output: compact.OutputIndices}, {Output: compact.OutputBoth}}
			if vktest.Short() {
				modes = []compact.Selection{{Split: true, ReverseRejected: true}, {InPlace: true}, {Output: compact.OutputBoth}}
			}
			if lean(ctx) {
				modes = []compact.Selection{{InPlace: true}, {Output: compact.OutputBoth}}
			}
			for _, m := range modes {
				sel := m
				sel.Keep, sel.Path = compact.KeepUnique(), path
				if path == vkcompact.PathSinglePass && (m.InPlace || (m.Split && !m.ReverseRejected)) {
					sel.Path = vkcompact.PathThreePhase
				}
				runNeighbours(t, ctx, rng, nbCase{n: n, sel: sel, repeat: 0.6})
			}
			for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n), uint32(n) + 5} {
				sel := compact.Selection{Keep: compact.KeepRunEdges(compact.EqualKeys), Output: compact.OutputIndices, Options: compact.Options{Path: path}}
				runNeighbours(t, ctx, rng, nbCase{n: n, sel: sel, repeat: 0.6, gpuCount: true, count: count})
			}
		}
	}
}

// TestUniqueTunings runs unique with small and large tiles and chunks,
// several loads per lane and both writes of the three phases, so that
// tiles, segments of a load and chunks all cut runs.
func TestUniqueTunings(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sg := ctx.Info().MaxSubgroupSize
	elems := []vkcompact.Elem{vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Uint64), vkcompact.Struct(12, 8, vkcompact.Uint32)}
	loadsList := []uint32{1, 2, 3, 4}
	for ei, e := range elems {
		for li, loads := range loadsList {
			if vktest.Short() && !(ei == 0 && li == 0) && !(ei == 2 && li == 3) {
				continue // short: uint32 keys at 1 load per lane, the structs at 4
			}
			for oi, o := range []compact.Options{
				{Path: vkcompact.PathSinglePass, WorkgroupSize: sg, LoadsPerLane: loads},
				{Path: vkcompact.PathSinglePass, WorkgroupSize: 4 * sg, LoadsPerLane: loads},
				{Path: vkcompact.PathThreePhase, LoadsPerLane: loads, Processors: 7, Write: compact.WriteStaged},
				{Path: vkcompact.PathThreePhase, LoadsPerLane: loads, Processors: 64, Write: compact.WriteScattered},
			} {
				if o.WorkgroupSize > ctx.Info().MaxWorkgroupInvocations || (vktest.Short() && oi%2 != ei/2) || (lean(ctx) && (ei != 0 || oi != 0)) {
					continue // short: half the shapes for each layout; SwiftShader: the smallest tiles
				}
				for ki, k := range []compact.Keep{compact.KeepUnique(), compact.KeepRunEdges(compact.EqualKeys)} {
					if vktest.Short() && ki != (oi/2+ei/2)%2 {
						continue // short: one test per shape
					}
					sel := compact.Selection{Elem: e, Keep: k, Options: o}
					if k.Op == compact.FirstOfRun {
						sel.Output = []compact.Output{compact.OutputBoth, compact.OutputElements}[li%2]
					} else {
						sel.Output = []compact.Output{compact.OutputIndices, compact.OutputElements}[li%2]
					}
					runNeighbours(t, ctx, rng, nbCase{n: 3000 + rng.IntN(2000), sel: sel, repeat: []float64{0.8, 0.3}[li%2]})
				}
			}
		}
	}
}

// TestUniqueSlice checks the slice helpers with the neighbour tests:
// SelectSlice on a struct by its key, SelectIndicesSlice, and SelectSlice refusing
// Indices.
func TestUniqueSlice(t *testing.T) {
	ctx := vktest.Shared(t)
	type particle struct {
		Cell uint32
		X, Y float32
	}
	data := []particle{{1, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {3, 4, 4}, {3, 5, 5}, {1, 6, 6}}
	elem, err := vkcompact.StructOf[particle]("Cell")
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := compact.SelectSlice(ctx, data, compact.Selection{Elem: elem, Keep: compact.KeepUnique()})
	if err != nil {
		t.Fatal(err)
	}
	if want := []particle{{1, 0, 0}, {2, 2, 2}, {3, 3, 3}, {1, 6, 6}}; fmt.Sprint(got) != fmt.Sprint(want) || res.Kept != 4 {
		t.Errorf("unique by Cell: %v (%+v), want %v", got, res, want)
	}
	idx, _, err := compact.SelectIndicesSlice(ctx, data, compact.Selection{Elem: elem, Keep: compact.KeepRunEdges(compact.EqualKeys)})
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{0, 1, 3, 5}; fmt.Sprint(idx) != fmt.Sprint(want) {
		t.Errorf("run edges by Cell: %v, want %v", idx, want)
	}
	if _, _, err := compact.SelectSlice(ctx, data, compact.Selection{Elem: elem, Keep: compact.KeepUnique(), Output: compact.OutputIndices}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("SelectSlice with Indices: %v, want ErrInvalid", err)
	}
}
