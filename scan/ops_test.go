package scan_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// The Go reference of min and max, written from Go's min and max rather
// than from the kernels' keys: integers by value, float32 as Go's builtin
// min and max (-0.0 below +0.0), a NaN winning over any number and, of
// two NaNs, the one whose bits are the less as a uint32.

func isNaN32(x uint32) bool { return x&0x7fffffff > 0x7f800000 }

// refCombine is op (Min or Max; for Sum the wrapping or float32 sum) of
// a (earlier) and b (later), as bits of typ.
func refCombine(typ vkcompact.Type, op scan.Op, a, b uint32) uint32 {
	if op == scan.Sum {
		if typ == vkcompact.Float32 {
			return math.Float32bits(math.Float32frombits(a) + math.Float32frombits(b))
		}
		return a + b
	}
	least := op == scan.Min
	switch typ {
	case vkcompact.Int32:
		if least {
			return uint32(min(int32(a), int32(b)))
		}
		return uint32(max(int32(a), int32(b)))
	case vkcompact.Float32:
		switch an, bn := isNaN32(a), isNaN32(b); {
		case an && bn:
			return min(a, b)
		case an:
			return a
		case bn:
			return b
		}
		fa, fb := math.Float32frombits(a), math.Float32frombits(b)
		if least {
			return math.Float32bits(min(fa, fb))
		}
		return math.Float32bits(max(fa, fb))
	}
	if least {
		return min(a, b)
	}
	return max(a, b)
}

// refIdentity is op's identity as bits of typ: what an exclusive scan's
// first element and an empty total hold (+0.0 for float sums: the sum of
// nothing).
func refIdentity(typ vkcompact.Type, op scan.Op) uint32 {
	switch {
	case op == scan.Sum:
		return 0
	case typ == vkcompact.Int32:
		return map[bool]uint32{true: math.MaxInt32, false: 1 << 31}[op == scan.Min]
	case typ == vkcompact.Float32:
		return map[bool]uint32{true: 0x7f800000, false: 0xff800000}[op == scan.Min]
	}
	return map[bool]uint32{true: math.MaxUint32, false: 0}[op == scan.Min]
}

// refOpScan is the reference min or max scan of data and its total.
func refOpScan(s scan.Scan, data []uint32) ([]uint32, uint32) {
	typ := s.Elem.Key.OrUint32()
	out := make([]uint32, len(data))
	run := refIdentity(typ, s.Op)
	for i, x := range data {
		if !s.Inclusive {
			out[i] = run
		}
		run = refCombine(typ, s.Op, run, x)
		if s.Inclusive {
			out[i] = run
		}
	}
	return out, run
}

// checkOpScan checks a min or max scan's outputs got4 (the covered
// elements' bytes) and total tot bit for bit against the reference.
func checkOpScan(c scanCase, got4 []byte, tot uint32) error {
	want, wantTotal := refOpScan(c.scan, c.data)
	for i, w := range want {
		if got := binary.LittleEndian.Uint32(got4[4*i:]); got != w {
			return fmt.Errorf("element %d: got %#x, want %#x (element %#x)", i, got, w, c.data[i])
		}
	}
	if tot != wantTotal {
		return fmt.Errorf("total %#x, want %#x", tot, wantTotal)
	}
	return nil
}

// opData draws n elements of typ for a min or max scan in one of four
// shapes, so that the running value changes often as well as rarely:
// random over the whole range (float32: of mixed magnitudes, with the
// special values), monotone against the op (every element a new min or
// max), a random walk, and few distinct values (float32: signed zeros,
// NaNs of several payloads and signs, infinities, denormals).
func opData(rng *rand.Rand, typ vkcompact.Type, op scan.Op, n, shape int) []uint32 {
	specials := []uint32{0, 1 << 31, 0x7fc00000, 0x7f800001, 0xffc00000, 0xff812345, 0x7f800000, 0xff800000, 1, 0x80000001, 0x3f800000, 0xbf800000}
	d := make([]uint32, n)
	walk := int64(0)
	for i := range d {
		switch shape % 4 {
		case 0:
			switch {
			case typ != vkcompact.Float32:
				d[i] = rng.Uint32()
			case rng.IntN(200) == 0:
				d[i] = specials[rng.IntN(len(specials))]
			default:
				d[i] = math.Float32bits(float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))))
			}
		case 1:
			// Decreasing for Min, increasing for Max, from the far end.
			v := int64(n-i) - int64(n/2)
			if op == scan.Max {
				v = -v
			}
			switch typ {
			case vkcompact.Float32:
				d[i] = math.Float32bits(float32(v))
			case vkcompact.Int32:
				d[i] = uint32(int32(v))
			default:
				d[i] = uint32(v + int64(n))
			}
		case 2:
			walk += int64(rng.IntN(7)) - 3
			if typ == vkcompact.Float32 {
				d[i] = math.Float32bits(float32(walk) * 0.5)
			} else {
				d[i] = uint32(int32(walk))
			}
		default:
			if typ == vkcompact.Float32 {
				d[i] = specials[rng.IntN(len(specials))]
			} else {
				d[i] = []uint32{0, 1, 1 << 31, math.MaxUint32, math.MaxInt32}[rng.IntN(5)]
			}
		}
	}
	return d
}

var minMax = []scan.Op{scan.Min, scan.Max}

// TestScanMinMax runs min and max scans of every type, exclusive and
// inclusive, in place and not, on every path (the single pass with its
// fallback at once too), over small tiles and the default ones, at sizes
// around the tiles' edges and of every data shape, each bit for bit
// against the Go reference with the output poisoned.
func TestScanMinMax(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{1, 2, 3, 5, 31, 33, 127, 1023, 1025, 4097, 65537, 1<<20 + 12345}
	if vktest.Short() {
		sizes = sizes[:len(sizes)-1]
	}
	for _, pc := range vktest.PathConfigs {
		t.Run(pc.Name, func(t *testing.T) {
			i := 0
			for _, n := range sizes {
				for _, typ := range scanTypes {
					for _, op := range minMax {
						o := scan.Options{Path: pc.Path, Spins: pc.Spins}
						if i%2 == 1 {
							o = smallTiles(ctx, o)
						}
						s := scan.Scan{Elem: vkcompact.Plain(typ), Op: op, Inclusive: i%3 != 0, InPlace: pc.Path == vkcompact.PathThreePhase && i%4 == 1, Options: o}
						p, err := scan.NewPlan(ctx, uint64(n), s)
						if err != nil {
							t.Fatalf("%v n=%d: %v", s, n, err)
						}
						if got := p.Tuning().Path; got != pc.Path {
							t.Fatalf("%v n=%d: path %v, want %v", s, n, got, pc.Path)
						}
						runScan(t, ctx, scanCase{scan: s, data: opData(rng, typ, op, n, i)})
						i++
					}
				}
			}
		})
	}
}

// TestScanMinMaxFloatRules holds float32 min and max to their rules on
// short inputs whose answers are written out: -0.0 below +0.0, a NaN
// winning from where it stands, the least NaN bits of several, the
// infinities as identities.
func TestScanMinMaxFloatRules(t *testing.T) {
	ctx := vktest.Shared(t)
	negZero := float32(math.Copysign(0, -1))
	inf, nan := float32(math.Inf(1)), math.Float32frombits(0x7fc00000)
	bits := func(fs ...float32) []uint32 {
		out := make([]uint32, len(fs))
		for i, f := range fs {
			out[i] = math.Float32bits(f)
		}
		return out
	}
	for _, c := range []struct {
		op        scan.Op
		inclusive bool
		in, want  []uint32
	}{
		{scan.Min, true, bits(0, negZero, 0), bits(0, negZero, negZero)},
		{scan.Max, true, bits(negZero, 0, negZero), bits(negZero, 0, 0)},
		{scan.Min, false, bits(1, nan, -inf), bits(inf, 1, nan)},
		{scan.Max, false, bits(1, nan, inf), bits(-inf, 1, nan)},
		{scan.Min, true, []uint32{0x3f800000, 0xffc00000, 0x7fc00001, 0x7f800001}, []uint32{0x3f800000, 0xffc00000, 0x7fc00001, 0x7f800001}},
		{scan.Max, true, []uint32{0xff800001, 0xff800000, 0x7fffffff, 0x7f800000}, []uint32{0xff800001, 0xff800001, 0x7fffffff, 0x7fffffff}},
	} {
		s := scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32), Op: c.op, Inclusive: c.inclusive}
		for _, path := range []vkcompact.Path{vkcompact.PathThreePhase, vkcompact.PathSinglePass} {
			s.Path = path
			in := make([]float32, len(c.in))
			for i, b := range c.in {
				in[i] = math.Float32frombits(b)
			}
			got, _, err := scan.ScanSlice(ctx, in, s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if math.Float32bits(got[i]) != c.want[i] {
					t.Errorf("%v %v of %#x: element %d is %#x, want %#x", s, path, c.in, i, math.Float32bits(got[i]), c.want[i])
				}
			}
			// The reference agrees.
			if want, _ := refOpScan(s, c.in); fmt.Sprint(want) != fmt.Sprint(c.want) {
				t.Errorf("%v: the reference gives %#x, want %#x", s, want, c.want)
			}
		}
	}
}

// TestScanMinMaxEdges: a GPU count below, at and above n on both paths,
// an empty input (the total is the identity), windows past the lowered
// binding limit, and buffer offsets.
func TestScanMinMaxEdges(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	i := 0
	for _, n := range []int{0, 1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n), uint32(n + 5)} {
			for _, path := range []vkcompact.Path{vkcompact.PathThreePhase, vkcompact.PathSinglePass} {
				typ, op := scanTypes[i%3], minMax[i%2]
				s := scan.Scan{Elem: vkcompact.Plain(typ), Op: op, Inclusive: i%4 < 2, Options: smallTiles(ctx, scan.Options{Path: path, Spins: int32(-(i % 2))})}
				runScan(t, ctx, scanCase{scan: s, data: opData(rng, typ, op, n, i/2), gpuCount: true, count: count})
				i++
			}
		}
	}
	for _, typ := range scanTypes {
		for _, op := range minMax {
			for _, path := range []vkcompact.Path{vkcompact.PathAuto, vkcompact.PathThreePhase, vkcompact.PathSinglePass} {
				runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(typ), Op: op, Options: scan.Options{Path: path}}})
			}
		}
	}
	const limit = 64 << 10
	for i, n := range []int{100003, 65536, 16385} {
		o := scan.Options{Path: vkcompact.PathSinglePass, Spins: int32(-(i % 2)), WorkgroupSize: max(info.MaxSubgroupSize, 64), LoadsPerLane: 2}
		typ, op := scanTypes[i], minMax[i%2]
		s := scan.Scan{Elem: vkcompact.Plain(typ), Op: op, Inclusive: i != 1, Options: o}
		p, err := scan.NewPlanWindowLimit(ctx, uint64(n), s, limit)
		if err != nil {
			t.Fatal(err)
		}
		if tu := p.Tuning(); tu.WindowTiles == 0 || tu.Tiles <= tu.WindowTiles {
			t.Fatalf("n=%d: tuning %+v: want several windows", n, tu)
		}
		c := scanCase{scan: s, data: opData(rng, typ, op, n, i), windowLimit: limit}
		runScan(t, ctx, c)
		c.gpuCount, c.count = true, uint32(n/3)
		runScan(t, ctx, c)
	}
	align := info.MinStorageBufferOffsetAlignment
	for i, typ := range scanTypes {
		s := scan.Scan{Elem: vkcompact.Plain(typ), Op: minMax[i%2], Inclusive: true, InPlace: i == 0}
		runScan(t, ctx, scanCase{scan: s, data: opData(rng, typ, s.Op, 30001, i), srcOff: align * 3, dstOff: align})
	}
}

// TestScanMinMaxAboveMaxRange scans more elements than one binding holds
// with min and max: the three phases in segments, the single pass in
// windows.
func TestScanMinMaxAboveMaxRange(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	info := ctx.Info()
	if uint64(info.MaxStorageBufferRange) > 1<<28 {
		t.Skipf("maxStorageBufferRange %d: too large to exceed here", info.MaxStorageBufferRange)
	}
	rng := vktest.Rand(t)
	n := int(info.MaxStorageBufferRange)/4 + 1234567
	runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32), Op: scan.Min, Inclusive: true, Options: scan.Options{Path: vkcompact.PathSinglePass}}, data: opData(rng, vkcompact.Float32, scan.Min, n, 1)})
	runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Int32), Op: scan.Max, InPlace: true}, data: opData(rng, vkcompact.Int32, scan.Max, n, 2)})
}

// TestScanSliceMinMax runs the slice helper with min and max.
func TestScanSliceMinMax(t *testing.T) {
	ctx := vktest.Shared(t)
	u, tu, err := scan.ScanSlice(ctx, []uint32{5, 3, 9, 1}, scan.Scan{Op: scan.Min})
	if err != nil || fmt.Sprint(u, tu) != "[4294967295 5 3 3] 1" {
		t.Errorf("uint32 exclusive min: %v %v %v, want [4294967295 5 3 3] 1", u, tu, err)
	}
	i, ti, err := scan.ScanSlice(ctx, []int32{-5, 2, -7, 1}, scan.Scan{Op: scan.Max, Inclusive: true, InPlace: true})
	if err != nil || fmt.Sprint(i, ti) != "[-5 2 2 2] 2" {
		t.Errorf("int32 inclusive max: %v %v %v, want [-5 2 2 2] 2", i, ti, err)
	}
	f, tf, err := scan.ScanSlice(ctx, []float32{0.5, 0.25, -1}, scan.Scan{Op: scan.Max})
	if err != nil || fmt.Sprint(f, tf) != "[-Inf 0.5 0.5] 0.5" {
		t.Errorf("float32 exclusive max: %v %v %v, want [-Inf 0.5 0.5] 0.5", f, tf, err)
	}
	e, te, err := scan.ScanSlice(ctx, []float32{}, scan.Scan{Op: scan.Min})
	if err != nil || len(e) != 0 || !math.IsInf(float64(te), 1) {
		t.Errorf("empty min: %v %v %v, want [] +Inf", e, te, err)
	}
}

// TestParseOp parses every operation's name and refuses others.
func TestParseOp(t *testing.T) {
	for _, op := range []scan.Op{scan.Sum, scan.Min, scan.Max} {
		got, err := scan.ParseOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseOp(%q) = %v, %v", op, got, err)
		}
	}
	for _, bad := range []string{"", "Sum", "argmin", "mean"} {
		if _, err := scan.ParseOp(bad); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "unknown operation") {
			t.Errorf("ParseOp(%q): %v, want ErrInvalid naming an unknown operation", bad, err)
		}
	}
	if s := scan.Op(7).String(); s != "Op(7)" {
		t.Errorf("Op(7).String() = %q", s)
	}
	if s := (scan.Scan{Op: scan.Max, Inclusive: true, Elem: vkcompact.Plain(vkcompact.Float32)}).String(); s != "inclusive max f32" {
		t.Errorf("String() = %q, want inclusive max f32", s)
	}
	ctx := vktest.Shared(t)
	if _, err := scan.NewPlan(ctx, 10, scan.Scan{Op: 3}); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "unknown operation 3") {
		t.Errorf("Op 3: %v, want ErrInvalid naming it", err)
	}
}
