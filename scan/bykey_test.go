package scan_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// byKeyCase is one scan by key to run and check.
type byKeyCase struct {
	b      scan.ByKey
	keys   []uint64 // bits (a 32-bit key in the low half)
	values []uint32 // bits
	// gpuCount passes count through ByKeyBuffers.Count.
	gpuCount bool
	count    uint32
	// windowLimit, when not zero, is the bytes one binding holds
	// (scan.NewByKeyPlanWindowLimit).
	windowLimit uint64
	// keysOff, valuesOff and dstOff are the ranges' offsets in their
	// buffers.
	keysOff, valuesOff, dstOff uint64
}

func (c byKeyCase) String() string {
	s := fmt.Sprintf("%v n=%d %+v", c.b, len(c.keys), c.b.Options)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	if c.windowLimit != 0 {
		s += fmt.Sprintf(" windows of %d bytes", c.windowLimit)
	}
	return s
}

var (
	keyTypes   = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}
	valueTypes = scanTypes
	allOps     = []scan.Op{scan.Sum, scan.Min, scan.Max}
)

// keyEq is compact.EqualKeys on key bits: integers by value, floats as
// IEEE 754 (a NaN equals nothing, -0.0 equals +0.0).
func keyEq(typ vkcompact.Type, a, b uint64) bool {
	if typ == vkcompact.Float32 {
		return math.Float32frombits(uint32(a)) == math.Float32frombits(uint32(b))
	}
	return a == b
}

// runStarts returns the index of each run's first element.
func runStarts(typ vkcompact.Type, keys []uint64) []int {
	var starts []int
	for i := range keys {
		if i == 0 || !keyEq(typ, keys[i-1], keys[i]) {
			starts = append(starts, i)
		}
	}
	return starts
}

// refByKey is the reference scan by key: per run, refOpScan's serial
// scan from the op's identity (float sums in float32 from -0.0, each
// run's exclusive first element +0.0). For float sums it also returns
// the float64 sums and the sums of the magnitudes (for the bound), and
// each element's place in its run.
func refByKey(b scan.ByKey, keys []uint64, values []uint32) (want []uint32, f64, abs []float64, pos []int) {
	ktyp, vtyp := b.Elem.Key.OrUint32(), b.Value.OrUint32()
	n := len(keys)
	want, f64, abs, pos = make([]uint32, n), make([]float64, n), make([]float64, n), make([]int, n)
	starts := append(runStarts(ktyp, keys), n)
	for r := 0; r+1 < len(starts); r++ {
		s, e := starts[r], starts[r+1]
		run := refIdentity(vtyp, b.Op)
		if b.Op == scan.Sum && vtyp == vkcompact.Float32 {
			run = 1 << 31 // -0.0, the identity the sums start from
		}
		var frun, arun float64
		for i := s; i < e; i++ {
			pos[i] = i - s
			if !b.Inclusive {
				want[i], f64[i], abs[i] = run, frun, arun
				if i == s {
					want[i] = refIdentity(vtyp, b.Op)
				}
			}
			run = refCombine(vtyp, b.Op, run, values[i])
			v := float64(math.Float32frombits(values[i]))
			frun += v
			arun += math.Abs(v)
			if b.Inclusive {
				want[i], f64[i], abs[i] = run, frun, arun
			}
		}
	}
	return want, f64, abs, pos
}

// byKeyDepth bounds the float32 additions along any value's way into an
// element's sum, for an element at place pos of its run (pos+1 values
// summed), by the plan's trees: a value's lane folds its elements (ELEMS
// of them), the subgroup's and the workgroup's scans add the logarithm
// of their widths and the chain over the workgroup's subgroups, the run
// in progress comes into the tile by a fold over the tiles it crossed,
// each tile's aggregate a tree of the same depth, and the element's own
// lane folds again. Any tree of k summands has depth at most k-1.
func byKeyDepth(tu scan.ByKeyTuning, pos int) float64 {
	elems := float64(tu.LoadsPerLane * 4)
	lg := math.Ceil(math.Log2(float64(tu.WorkgroupSize)))
	tree := elems + 2*lg + float64(tu.WorkgroupSize)/4 + 4
	depth := 2*tree + elems + float64(pos)/float64(tu.Tile) + 4
	return min(depth, float64(max(pos, 1)))
}

// exactValues reports whether every float32 sum of the values in any
// order is exact (exactSums).
func exactValues(vtyp vkcompact.Type, values []uint32) bool {
	return vtyp == vkcompact.Float32 && exactSums(values)
}

func runByKey(t testing.TB, ctx *vk.Context, c byKeyCase) []uint32 {
	t.Helper()
	got, err := tryByKey(t, ctx, c)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	return got
}

// tryByKey runs c over a poisoned output and scratch, checks the scans
// (past the count still poisoned, and the bytes around the output) and
// returns them.
func tryByKey(t testing.TB, ctx *vk.Context, c byKeyCase) ([]uint32, error) {
	ktyp, vtyp := c.b.Elem.Key.OrUint32(), c.b.Value.OrUint32()
	n := uint64(len(c.keys))
	p, err := scan.NewByKeyPlanWindowLimit(ctx, n, c.b, c.windowLimit)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	const guard = 64
	ks := uint64(ktyp.Size())
	kw := make([]uint32, 0, n*ks/4)
	for _, k := range c.keys {
		kw = append(kw, uint32(k))
		if ks == 8 {
			kw = append(kw, uint32(k>>32))
		}
	}
	keys := vktest.NewPoisoned(t, ctx, c.keysOff+n*ks+guard)
	values := vktest.NewPoisoned(t, ctx, c.valuesOff+4*n+guard)
	dst := vktest.NewPoisoned(t, ctx, c.dstOff+4*n+guard)
	b := scan.ByKeyBuffers{Keys: keys.Range(c.keysOff, n*ks), Values: values.Range(c.valuesOff, 4*n), Dst: dst.Range(c.dstOff, 4*n)}
	if err := vk.Upload(b.Keys, kw); err != nil {
		return nil, err
	}
	if err := vk.Upload(b.Values, c.values); err != nil {
		return nil, err
	}
	b.Scratch = vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
	nEff := n
	if c.gpuCount {
		nEff = min(n, uint64(c.count))
		cb := vktest.NewPoisoned(t, ctx, 16)
		if err := vk.Upload(cb.Range(4, 4), []uint32{c.count}); err != nil {
			return nil, err
		}
		b.Count = cb.Range(4, 4) // a word past the alignment
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return nil, err
	}
	raw := make([]byte, dst.Size())
	if err := vk.Download(dst.All(), raw); err != nil {
		return nil, err
	}
	off := c.dstOff
	got := make([]uint32, nEff)
	for i := range got {
		got[i] = binary.LittleEndian.Uint32(raw[off+4*uint64(i):])
	}
	want, f64, abs, pos := refByKey(c.b, c.keys[:nEff], c.values[:nEff])
	floatSum := c.b.Op == scan.Sum && vtyp == vkcompact.Float32
	exact := exactValues(vtyp, c.values[:nEff])
	tu := p.Tuning()
	for i := range got {
		ok := got[i] == want[i]
		if floatSum && !exact {
			g := float64(math.Float32frombits(got[i]))
			rel, den := gammaOf(byKeyDepth(tu, pos[i]))
			switch w := f64[i]; {
			case math.IsNaN(w):
				ok = math.IsNaN(g)
			case math.IsInf(w, 0):
				ok = g == w
			default:
				ok = math.Abs(g-w) <= rel*abs[i]+den
			}
			if !c.b.Inclusive && pos[i] == 0 {
				ok = got[i] == 0 // +0.0, the sum of nothing
			}
		}
		if !ok {
			return nil, fmt.Errorf("element %d (place %d in its run, key %#x, value %#x): got %#x, want %#x (float64 %g)", i, pos[i], c.keys[i], c.values[i], got[i], want[i], f64[i])
		}
	}
	if !bytes.Equal(raw[off+4*nEff:off+4*n], vktest.PoisonBytes(4*(n-nEff))) {
		return nil, fmt.Errorf("elements past the count of %d were written", nEff)
	}
	if !bytes.Equal(raw[:off], vktest.PoisonBytes(off)) || !bytes.Equal(raw[off+4*n:], vktest.PoisonBytes(uint64(len(raw))-off-4*n)) {
		return nil, fmt.Errorf("bytes around the output were written")
	}
	return got, nil
}

// gammaOf is the relative error bound of a float32 sum of the given
// depth (floatBound's gamma) and its allowance for flushed denormals.
func gammaOf(depth float64) (rel, denormal float64) {
	u := 0x1p-24
	return depth * u / (1 - depth*u), depth * 0x1p-126
}

// runKeys returns n keys of typ in runs: a new run starts with
// probability keep (its key differing from the last one); with special
// set, float keys mix NaNs (each a run of its own) and zeros of both
// signs (one run), and u64 keys differ in one word only.
func runKeys(rng *rand.Rand, typ vkcompact.Type, n int, keep float64, special bool) []uint64 {
	out := make([]uint64, n)
	var k uint64
	for i := range out {
		if i == 0 || rng.Float64() < keep {
			switch {
			case typ == vkcompact.Float32 && special && rng.IntN(6) == 0:
				k = []uint64{0x7fc00000, 0, 0x80000000, 0xff800000}[rng.IntN(4)]
			case typ == vkcompact.Uint64 && rng.IntN(2) == 0:
				k ^= 1 << 32 << uint(rng.IntN(32))
			case typ == vkcompact.Float32:
				k = uint64(math.Float32bits(float32(rng.IntN(1000) - 500)))
			default:
				k = rng.Uint64()
				if typ != vkcompact.Uint64 {
					k = uint64(uint32(k))
				}
			}
		}
		out[i] = k
		if typ == vkcompact.Float32 && k&0x7fffffff == 0 && rng.IntN(2) == 0 {
			out[i] = k ^ 0x80000000 // the run's zeros of both signs
		}
	}
	return out
}

// byKeyValues returns n values of typ for op: for sums, integers over
// the whole range, float32 small integers (exact sums) or of mixed
// magnitudes with the special values; for min and max, opData's shapes.
func byKeyValues(rng *rand.Rand, typ vkcompact.Type, op scan.Op, n int, exact bool, shape int) []uint32 {
	if op != scan.Sum {
		return opData(rng, typ, op, n, shape)
	}
	d := scanData(rng, typ, n, exact)
	if typ == vkcompact.Float32 && !exact {
		for i := range d {
			if rng.IntN(500) == 0 {
				d[i] = []uint32{0x7fc00000, 0x7f800000, 0xff800000, 1 << 31, 1}[rng.IntN(5)]
			}
		}
	}
	return d
}

// keepRatios are the probabilities of a new run: every element its own
// run, the anchor's 0.5, short and long runs, and one run (or a few,
// where the data start another by chance).
var keepRatios = []float64{1, 0.5, 0.1, 0.001, 0}

// TestScanByKey runs every key type, value type and op, exclusive and
// inclusive, at every keep ratio, at sizes around the tiles' edges, on
// the default and the smallest tiles, each against the Go reference with
// the output poisoned.
func TestScanByKey(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{1, 2, 3, 5, 17, 63, 64, 65, 255, 257, 1023, 4095, 4097, 30001, 200003}
	i := 0
	for _, kt := range keyTypes {
		for _, vt := range valueTypes {
			for _, op := range allOps {
				for _, n := range sizes {
					b := scan.ByKey{Elem: vkcompact.Plain(kt), Value: vt, Op: op, Inclusive: i%2 == 0}
					if i%3 == 1 {
						b.WorkgroupSize, b.LoadsPerLane = ctx.Info().MaxSubgroupSize, 1
					}
					keep := keepRatios[i%len(keepRatios)]
					runByKey(t, ctx, byKeyCase{b: b, keys: runKeys(rng, kt, n, keep, i%4 != 3), values: byKeyValues(rng, vt, op, n, i%5 != 0, i)})
					i++
				}
			}
		}
	}
}

// TestScanByKeyTiles crosses tiles with runs of every length from one
// to longer than many tiles, on the smallest tiles, with the look-back
// waiting and with its fallback at once, exclusive and inclusive, every
// op on uint32 and float32 values.
func TestScanByKeyTiles(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	small := scan.Options{WorkgroupSize: ctx.Info().MaxSubgroupSize, LoadsPerLane: 1}
	probe, err := scan.NewByKeyPlan(ctx, 1, scan.ByKey{Options: small})
	if err != nil {
		t.Fatal(err)
	}
	tile := int(probe.Tuning().Tile)
	i := 0
	for _, runLen := range []int{1, 2, tile - 1, tile, tile + 1, 3 * tile, 40 * tile} {
		for _, spins := range []int32{0, -1} {
			for _, vt := range []vkcompact.Type{vkcompact.Uint32, vkcompact.Float32} {
				for _, op := range allOps {
					n := 50*tile + 7
					keys := make([]uint64, n)
					for j := range keys {
						keys[j] = uint64(j / runLen)
					}
					o := small
					o.Spins = spins
					b := scan.ByKey{Elem: vkcompact.Plain(vkcompact.Uint32), Value: vt, Op: op, Inclusive: i%2 == 1, Options: o}
					runByKey(t, ctx, byKeyCase{b: b, keys: keys, values: byKeyValues(rng, vt, op, n, i%3 != 0, i)})
					i++
				}
			}
		}
	}
}
