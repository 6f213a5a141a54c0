package scan_test

import (
	"bytes"
	"encoding/binary"
	"errors"
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

// scanCase is one prefix sum to run and check.
type scanCase struct {
	scan           scan.Scan
	data           []uint32 // element bits
	srcOff, dstOff uint64
	// gpuCount passes count through ScanBuffers.Count.
	gpuCount bool
	count    uint32
	// windowLimit, when not zero, is the bytes the single pass holds in
	// one binding (scan.NewPlanWindowLimit).
	windowLimit uint64
}

func (c scanCase) String() string {
	s := fmt.Sprintf("n=%d %v inplace=%v %+v", len(c.data), c.scan, c.scan.InPlace, c.scan.Options)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

// refScan is the reference: exact wrapping sums for integers; for float32,
// float64 sums with the running sum of magnitudes, for the tolerance.
func refScan(c scanCase) (sums []uint32, f64, abs []float64, total uint32, ftotal float64) {
	n := len(c.data)
	sums = make([]uint32, n)
	f64, abs = make([]float64, n), make([]float64, n)
	var run uint32
	var frun, arun float64
	for i, x := range c.data {
		if !c.scan.Inclusive {
			sums[i], f64[i], abs[i] = run, frun, arun
		}
		run += x
		v := float64(math.Float32frombits(x))
		frun += v
		arun += math.Abs(v)
		if c.scan.Inclusive {
			sums[i], f64[i], abs[i] = run, frun, arun
		}
	}
	if c.scan.Elem.Key == vkcompact.Float32 {
		sums, run = refFloatBits(c.data, c.scan.Inclusive)
	}
	return sums, f64, abs, run, frun
}

// refFloatBits is a serial float32 prefix sum, as bits: where every sum
// is exact (exactSums) it is what any order of additions gives, the sign
// of zero included. IEEE 754 gives -0.0 for a sum of nothing but -0.0
// and +0.0 for any other zero sum; the sum of nothing (the first
// exclusive element, the total of no elements) is +0.0.
func refFloatBits(data []uint32, inclusive bool) (sums []uint32, total uint32) {
	sums = make([]uint32, len(data))
	run := float32(math.Copysign(0, -1))
	for i, x := range data {
		if !inclusive {
			sums[i] = math.Float32bits(run)
		}
		run += math.Float32frombits(x)
		if inclusive {
			sums[i] = math.Float32bits(run)
		}
	}
	if len(data) == 0 {
		return sums, 0
	}
	if !inclusive {
		sums[0] = 0
	}
	return sums, math.Float32bits(run)
}

// exactSums reports whether every float32 sum of data, in any order and
// grouping, is exact: every element is an integer and their magnitudes
// sum to at most 2^24, so that every partial sum is an integer of at most
// 24 bits, which float32 holds exactly. The sums of such data must then
// equal the reference exactly.
func exactSums(data []uint32) bool {
	var abs float64
	for _, x := range data {
		v := float64(math.Float32frombits(x))
		if math.IsInf(v, 0) || math.IsNaN(v) || v != math.Trunc(v) {
			return false
		}
		abs += math.Abs(v)
	}
	return abs <= 1<<24
}

// floatBound is the rounding allowed to a float32 sum of mixed magnitudes
// by a plan that adds at most depth times along any element's way into a
// sum: a sum computed with depth float32 additions differs from the exact
// one by at most gamma(depth) = depth*u/(1-depth*u) times the sum of the
// summands' magnitudes, u = 2^-24 (Higham, Accuracy and Stability of
// Numerical Algorithms, 4.2), plus 2^-126 per addition for a denormal a
// device flushes to zero. The three phases' depth: a processor adds its
// chunk's elements one after another (at most Chunk additions), the
// processors' totals are summed in a tree (log2 Processors), and the
// carry and the element meet in two more.
func floatBound(tn scan.Tuning) (gamma, denormal float64) {
	depth := float64(tn.Chunk) + math.Ceil(math.Log2(float64(max(tn.Processors, 1)))) + 2
	u := 0x1p-24
	return depth * u / (1 - depth*u), depth * 0x1p-126
}

// floatClose says whether the float32 got is the float64 reference want,
// whose summands' magnitudes sum to abs, within the bound (floatBound), or
// exactly where exact is set.
func floatClose(got uint32, want, abs float64, exact bool, gamma, denormal float64) bool {
	g := float64(math.Float32frombits(got))
	switch {
	case math.IsNaN(want):
		return math.IsNaN(g)
	case math.IsInf(want, 0) || exact:
		return g == want
	}
	return math.Abs(g-want) <= gamma*abs+denormal
}

func runScan(t *testing.T, ctx *vk.Context, c scanCase) {
	t.Helper()
	if err := tryRunScan(ctx, c, t); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

func tryRunScan(ctx *vk.Context, c scanCase, t testing.TB) error {
	n := uint64(len(c.data))
	p, err := scan.NewPlanWindowLimit(ctx, n, c.scan, c.windowLimit)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	const guard = 64
	src := vktest.NewPoisoned(t, ctx, c.srcOff+4*n+guard)
	b := scan.Buffers{Src: src.Range(c.srcOff, 4*n)}
	if err := vk.Upload(b.Src, c.data); err != nil {
		return err
	}
	dst, off := src, c.srcOff
	if !c.scan.InPlace {
		dst, off = vktest.NewPoisoned(t, ctx, c.dstOff+4*n+guard), c.dstOff
		b.Dst = dst.Range(off, 4*n)
	}
	total := vktest.NewPoisoned(t, ctx, 16)
	b.Total = total.Range(0, scan.TotalSize)
	b.Scratch = vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
	nEff := n // the elements the prefix sum covers
	if c.gpuCount {
		nEff = min(n, uint64(c.count))
		cb := vktest.NewPoisoned(t, ctx, 16)
		if err := vk.Upload(cb.Range(0, 4), []uint32{c.count}); err != nil {
			return err
		}
		b.Count = cb.Range(0, 4)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return err
	}
	raw := make([]byte, dst.Size())
	if err := vk.Download(dst.All(), raw); err != nil {
		return err
	}
	var tot [1]uint32
	if err := vk.Download(b.Total, tot[:]); err != nil {
		return err
	}
	counted := c
	counted.data = c.data[:nEff]
	if c.scan.Op != scan.Sum {
		if err := checkOpScan(counted, raw[off:off+4*nEff], tot[0]); err != nil {
			return err
		}
	} else if err := checkSums(p, counted, raw[off:off+4*nEff], tot[0]); err != nil {
		return err
	}
	// Past the count: the input in place, vktest.Poison otherwise.
	tail := vktest.PoisonBytes(4 * (n - nEff))
	if c.scan.InPlace {
		tail = tail[:0]
		for _, x := range c.data[nEff:] {
			tail = binary.LittleEndian.AppendUint32(tail, x)
		}
	}
	if !bytes.Equal(raw[off+4*nEff:off+4*n], tail) {
		return fmt.Errorf("elements past the count of %d were written", nEff)
	}
	if !bytes.Equal(raw[:off], vktest.PoisonBytes(off)) || !bytes.Equal(raw[off+4*n:], vktest.PoisonBytes(uint64(len(raw))-off-4*n)) {
		return fmt.Errorf("bytes around the output were written")
	}
	return nil
}

// checkSums checks the sums got4 (the covered elements' bytes) and the
// total tot of a prefix sum against the reference.
func checkSums(p *scan.Plan, counted scanCase, got4 []byte, tot uint32) error {
	want, f64, abs, wantTotal, fTotal := refScan(counted)
	float := counted.scan.Elem.Key == vkcompact.Float32
	exact := exactSums(counted.data)
	gamma, denormal := floatBound(p.Tuning())
	for i := range uint64(len(counted.data)) {
		got := binary.LittleEndian.Uint32(got4[4*i:])
		if float && (!floatClose(got, f64[i], abs[i], exact, gamma, denormal) || exact && got != want[i]) || !float && got != want[i] {
			if float {
				return fmt.Errorf("element %d: got %#x (%g), want %g (magnitudes %g, exact %v: bits %#x)", i, got, math.Float32frombits(got), f64[i], abs[i], exact, want[i])
			}
			return fmt.Errorf("element %d: got %#x, want %#x", i, got, want[i])
		}
	}
	absAll := math.Abs(fTotal)
	for _, x := range counted.data {
		absAll += math.Abs(float64(math.Float32frombits(x)))
	}
	if float && (!floatClose(tot, fTotal, absAll, exact, gamma, denormal) || exact && tot != wantTotal) || !float && tot != wantTotal {
		return fmt.Errorf("total %#x (%g), want %#x (%g)", tot, math.Float32frombits(tot), wantTotal, fTotal)
	}
	return nil
}

// scanData draws n elements of type t: integers over the whole range, or
// float32 values that are small integers (so that every order of adding
// them is exact), or of mixed magnitudes and signs.
func scanData(rng *rand.Rand, t vkcompact.Type, n int, exact bool) []uint32 {
	d := make([]uint32, n)
	for i := range d {
		switch {
		case t != vkcompact.Float32:
			d[i] = rng.Uint32()
		case exact:
			d[i] = math.Float32bits(float32(rng.IntN(5) - 2))
			if d[i] == 0 && rng.IntN(2) == 0 {
				d[i] = 1 << 31 // -0.0
			}
		default:
			d[i] = math.Float32bits(float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))))
		}
	}
	return d
}

var scanTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32}

// TestScanSizes runs the sizes for every type, exclusive and
// inclusive, in place and out of place. The float32 data are small
// integers, so the sums are exact in any order and are compared bit for
// bit (as numbers).
func TestScanSizes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, n := range []int{0, 1, 2, 3, 31, 32, 33, 127, 128, 129, 4095, 4097, 65537, 1<<20 + 12345} {
		for _, typ := range scanTypes {
			for _, mode := range []int{0, 1, 2, 3} {
				s := scan.Scan{Elem: vkcompact.Plain(typ), Inclusive: mode&1 != 0, InPlace: mode&2 != 0}
				runScan(t, ctx, scanCase{scan: s, data: scanData(rng, typ, n, true)})
			}
		}
	}
}

// TestScanFloat checks float32 sums of mixed magnitudes against float64
// within rounding, and the special values: ±0, ±Inf (an Inf propagates,
// +Inf + -Inf is NaN), NaN, denormals.
func TestScanFloat(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, n := range []int{1000, 100003, 1<<20 + 7} {
		for _, incl := range []bool{false, true} {
			runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32), Inclusive: incl}, data: scanData(rng, vkcompact.Float32, n, false)})
		}
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), 1e-40, -1e-40, 1.5, -2.25}
	for _, tail := range [][]float32{
		nil,
		{float32(math.Inf(1))},
		{float32(math.Inf(-1))},
		{float32(math.Inf(1)), float32(math.Inf(-1))},
		{float32(math.NaN())},
	} {
		for _, incl := range []bool{false, true} {
			n := 5000
			d := make([]uint32, n)
			for i := range d {
				d[i] = math.Float32bits(specials[rng.IntN(len(specials))])
			}
			// The special tail values land in the middle, so that both
			// sides of them are checked.
			for j, v := range tail {
				d[n/2+j*97] = math.Float32bits(v)
			}
			runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32), Inclusive: incl}, data: d})
		}
	}
}

// TestScanSignedZeros: float32 sums keep the sign of zero as IEEE 754 and
// NumPy's cumsum do: a prefix of nothing but -0.0 sums to -0.0, across
// lanes, subgroups, chunks and processors, so runs of -0.0 of every length
// lead the data; any other zero sum is +0.0, and the sum of nothing (the
// first exclusive element, an empty total) is +0.0, with a GPU count too.
func TestScanSignedZeros(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	negZero, one := uint32(1<<31), math.Float32bits(1)
	data := func(lead, n int, rest func(i int) uint32) []uint32 {
		d := make([]uint32, n)
		for i := range d {
			if i < lead {
				d[i] = negZero
			} else {
				d[i] = rest(i)
			}
		}
		return d
	}
	signedZero := func(int) uint32 { return uint32(rng.IntN(2)) << 31 }
	small := func(int) uint32 { return math.Float32bits(float32(rng.IntN(3) - 1)) }
	cases := [][]uint32{{negZero, one}, {one, math.Float32bits(-1), negZero}, {0, negZero}, {negZero, 0, negZero}}
	for _, n := range []int{1, 3, 4, 5, 33, 1000, 4097, 100003, 1<<20 + 5} {
		cases = append(cases, data(n, n, nil), data(n/2, n, signedZero), data(n-1, n, small), data(rng.IntN(n), n, small))
	}
	for i, d := range cases {
		for _, incl := range []bool{false, true} {
			c := scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32), Inclusive: incl, InPlace: i%2 == 1}, data: d}
			runScan(t, ctx, c)
			if len(d) < 5000 {
				c.gpuCount, c.count = true, uint32(i%3)
				runScan(t, ctx, c)
			}
		}
	}
	sums, total, err := scan.ScanSlice(ctx, []float32{float32(math.Copysign(0, -1)), 1}, scan.Scan{Inclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	if !math.Signbit(float64(sums[0])) || sums[1] != 1 || total != 1 {
		t.Errorf("ScanSlice of [-0, 1], inclusive: %v, total %v; want [-0 1], total 1", sums, total)
	}
}

// TestScanTuning runs the processors, loads and workgroup sizes at their
// edges, with ranges at nonzero offsets.
func TestScanTuning(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sg := ctx.Info().MaxSubgroupSize
	align := ctx.Info().MinStorageBufferOffsetAlignment
	for _, o := range []scan.Options{
		{Processors: 1},
		{Processors: 2, LoadsPerLane: 1},
		{Processors: 3000},
		{LoadsPerLane: 3},
		{LoadsPerLane: 4, WorkgroupSize: sg},
		{WorkgroupSize: min(1024, ctx.Info().MaxWorkgroupInvocations)}, // the largest the device allows, up to 1024
	} {
		for _, typ := range scanTypes {
			n := 300000 + rng.IntN(1000)
			s := scan.Scan{Elem: vkcompact.Plain(typ), Inclusive: rng.IntN(2) == 0, InPlace: rng.IntN(2) == 0, Options: o}
			runScan(t, ctx, scanCase{scan: s, data: scanData(rng, typ, n, true),
				srcOff: align * uint64(rng.IntN(4)), dstOff: align * uint64(rng.IntN(4))})
		}
	}
}

// TestScanAboveMaxRange scans more elements than one binding holds
// (lavapipe: 2^25 uint32), so the input is cut into segments.
func TestScanAboveMaxRange(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	info := ctx.Info()
	if uint64(info.MaxStorageBufferRange) > 1<<28 {
		t.Skipf("maxStorageBufferRange %d: too large to exceed here", info.MaxStorageBufferRange)
	}
	rng := vktest.Rand(t)
	n := int(info.MaxStorageBufferRange)/4 + 1234567
	runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, data: scanData(rng, vkcompact.Uint32, n, true)})
	runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Int32), Options: scan.Options{Path: vkcompact.PathSinglePass}}, data: scanData(rng, vkcompact.Int32, n, true)}) // in two windows
	runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32), Inclusive: true, InPlace: true}, data: scanData(rng, vkcompact.Float32, n, true)})
}

// TestScanSlice runs the host-slice helper for each type.
func TestScanSlice(t *testing.T) {
	ctx := vktest.Shared(t)
	u, tu, err := scan.ScanSlice(ctx, []uint32{1, 2, 3, math.MaxUint32}, scan.Scan{})
	if err != nil || fmt.Sprint(u, tu) != "[0 1 3 6] 5" {
		t.Errorf("uint32: %v %v %v, want [0 1 3 6] 5 (wrapping)", u, tu, err)
	}
	i, ti, err := scan.ScanSlice(ctx, []int32{-5, 2, math.MaxInt32, 1}, scan.Scan{Inclusive: true, InPlace: true})
	if err != nil || fmt.Sprint(i, ti) != "[-5 -3 2147483644 2147483645] 2147483645" {
		t.Errorf("int32: %v %v %v", i, ti, err)
	}
	f, tf, err := scan.ScanSlice(ctx, []float32{0.5, 0.25, -1}, scan.Scan{})
	if err != nil || fmt.Sprint(f, tf) != "[0 0.5 0.75] -0.25" {
		t.Errorf("float32: %v %v %v", f, tf, err)
	}
	e, te, err := scan.ScanSlice(ctx, []float32{}, scan.Scan{})
	if err != nil || len(e) != 0 || te != 0 {
		t.Errorf("empty: %v %v %v", e, te, err)
	}
}

func TestScanBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, c := range []struct {
		name string
		n    uint64
		s    scan.Scan
	}{
		{"u64 elements", 10, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint64)}},
		{"f64 elements", 10, scan.Scan{Elem: vkcompact.Plain(vkcompact.Float64)}},
		{"unknown type", 10, scan.Scan{Elem: vkcompact.Plain(vkcompact.Type(9))}},
		{"too many elements", 1 << 32, scan.Scan{}},
		{"workgroup not a subgroup multiple", 10, scan.Scan{Options: scan.Options{WorkgroupSize: ctx.Info().MaxSubgroupSize + 1}}},
		{"too many loads", 10, scan.Scan{Options: scan.Options{LoadsPerLane: 5}}},
	} {
		_, err := scan.NewPlan(ctx, c.n, c.s)
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: got %v, want an error matching vk.ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if _, err := scan.NewPlan(nil, 10, scan.Scan{}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("nil context: %v", err)
	}

	p, err := scan.NewPlan(ctx, 100, scan.Scan{})
	if err != nil {
		t.Fatal(err)
	}
	buf := vktest.NewPoisoned(t, ctx, 4096)
	other := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	good := scan.Buffers{Src: buf.Range(0, 400), Dst: buf.Range(1024, 400), Total: buf.Range(2048, 4), Scratch: other.Range(0, p.ScratchSize())}
	align := ctx.Info().MinStorageBufferOffsetAlignment
	for _, c := range []struct {
		name string
		edit func(b *scan.Buffers)
	}{
		{"no source", func(b *scan.Buffers) { b.Src = vk.Range{} }},
		{"source too small", func(b *scan.Buffers) { b.Src.Size = 396 }},
		{"no destination", func(b *scan.Buffers) { b.Dst = vk.Range{} }},
		{"destination too small", func(b *scan.Buffers) { b.Dst.Size = 100 }},
		{"no total", func(b *scan.Buffers) { b.Total = vk.Range{} }},
		{"scratch too small", func(b *scan.Buffers) { b.Scratch.Size = 4 }},
		{"overlap", func(b *scan.Buffers) { b.Dst = buf.Range(256, 400) }},
		{"total in the output", func(b *scan.Buffers) { b.Total = buf.Range(1024, 4) }},
		{"range past the end", func(b *scan.Buffers) { b.Dst = buf.Range(4000, 400) }},
		{"unaligned offset", func(b *scan.Buffers) { b.Dst = buf.Range(1024+align/2, 400) }},
	} {
		if align < 2 && c.name == "unaligned offset" {
			continue
		}
		b := good
		c.edit(&b)
		err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: got %v, want an error matching vk.ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if _, err := p.Run(good); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}
	// In place with a different destination.
	ip, err := scan.NewPlan(ctx, 100, scan.Scan{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ip.Run(good); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("in place with a destination: %v", err)
	}
}

// FuzzScan runs random prefix scans, (n, seed, type, mode), against the
// Go reference: the mode's bits 0 and 1 say inclusive and in place, bit 2
// a random processor count, bit 3 float sums of mixed magnitudes, bits 4
// and 5 the op (Sum, Min, Max, and Sum again), bits 6 and 7 the shape of
// a min or max scan's data (opData). Seeds are in testdata/fuzz/FuzzScan.
func FuzzScan(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(2), uint8(3))
	f.Add(uint32(5000), uint64(3), uint8(2), uint8(0b01010001))
	f.Add(uint32(70001), uint64(4), uint8(1), uint8(0b11100110))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, typ, mode uint8) {
		n %= 1 << 18
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		ty := scanTypes[int(typ)%len(scanTypes)]
		s := scan.Scan{Elem: vkcompact.Plain(ty), Op: []scan.Op{scan.Sum, scan.Min, scan.Max, scan.Sum}[mode>>4&3], Inclusive: mode&1 != 0, InPlace: mode&2 != 0}
		if mode&4 != 0 {
			s.Processors = 1 + rng.Uint32N(4000)
		}
		c := scanCase{scan: s, data: scanData(rng, ty, int(n), mode&8 == 0)}
		if s.Op != scan.Sum {
			c.data = opData(rng, ty, s.Op, int(n), int(mode>>6))
		}
		if err := tryRunScan(ctx, c, t); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}

// TestScanGPUCount takes the element count from a GPU buffer: below, at
// and above the plan's n, in place and not.
func TestScanGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	types := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32}
	i := 0
	for _, n := range []int{0, 1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(max(n-1, 0)), uint32(n), uint32(n + 5), 0xffffffff} {
			typ := types[i%len(types)]
			c := scanCase{scan: scan.Scan{Elem: vkcompact.Plain(typ), Inclusive: i%3 == 0, InPlace: i%2 == 1},
				data: scanData(rng, typ, n, true), gpuCount: true, count: count}
			runScan(t, ctx, c)
			i++
		}
	}
}
