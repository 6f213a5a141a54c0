package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/bench"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// scanCombine combines a and b (element bits of t) as the scans document
// it: integer sums wrap; min and max by value (int32 signed), float32 as
// Go's min and max: -0.0 below +0.0, and a NaN makes the result a NaN,
// of several NaNs the one whose bits are the least as a uint32.
func scanCombine(t vkcompact.Type, op string, a, b uint64) uint64 {
	if op == "sum" {
		if t == vkcompact.Float32 {
			return uint64(math.Float32bits(math.Float32frombits(uint32(a)) + math.Float32frombits(uint32(b))))
		}
		return (a + b) & math.MaxUint32
	}
	if t == vkcompact.Float32 {
		an, bn := isNaN32(t, a), isNaN32(t, b)
		switch {
		case an && bn:
			return min(a, b)
		case an:
			return a
		case bn:
			return b
		case a&0x7fffffff == 0 && b&0x7fffffff == 0: // zeros: -0.0 is the lesser
			if (op == "min") == (a&(1<<31) != 0) {
				return a
			}
			return b
		}
	}
	if (op == "min") == reduceLess(t, b, a) {
		return b
	}
	return a
}

// scanRefRuns scans d (element bits of t) with op, starting again at each
// of starts (the runs of equal keys; []int{0} for a plain scan). An
// inclusive scan's first element of a run is that element itself (so
// that -0.0 stays -0.0), an exclusive one's the op's identity.
func scanRefRuns(t vkcompact.Type, op string, inclusive bool, d []uint64, starts []int) []uint64 {
	out := make([]uint64, len(d))
	run := 0
	var acc uint64
	for i, x := range d {
		first := run < len(starts) && starts[run] == i
		if first {
			run++
		}
		switch {
		case first && inclusive:
			acc = x
		case first:
			out[i], acc = reduceIdentity(t, op), x
			continue
		case inclusive:
			acc = scanCombine(t, op, acc, x)
		default:
			out[i], acc = acc, scanCombine(t, op, acc, x)
			continue
		}
		out[i] = acc
	}
	return out
}

// scanOpData returns n elements of t for a scan with op: reduceData's
// (float32 quarters, whose sums are exact in any order), and for min and
// max of float32 signed zeros, infinities and NaNs of several payloads
// among them.
func scanOpData(rng *rand.Rand, t vkcompact.Type, op string, n int) []uint64 {
	d := reduceData(rng, t, n, false)
	if op != "sum" && t == vkcompact.Float32 && n > 0 {
		for _, v := range []uint64{0x80000000, 0, 0x80000000, 0x7f800000, 0xff800000} {
			d[rng.IntN(n)] = v
		}
		if n > 100 {
			for _, v := range []uint64{0xffc00000, 0x7fc00001, 0x7fc00000} { // NaNs late in the input, the least bits last
				d[n-1-rng.IntN(n/10)] = v
			}
		}
	}
	return d
}

// TestScanOps runs scan -op min and max (and sum, the default, by name)
// of every type, exclusive and inclusive, at sizes from none to several
// tiles, and checks every element and the total against Go.
func TestScanOps(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(50, 1))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	sizes := []int{0, 1, 1000, 70001}
	if vktest.Short() {
		sizes = []int{1, 3000}
	}
	i := 0
	for _, typ := range scanTypes {
		for _, op := range []string{"sum", "min", "max"} {
			for _, n := range sizes {
				i++
				inclusive := i%2 == 0
				d := scanOpData(rng, typ, op, n)
				in := cliInput(t, dir, fmt.Sprintf("%d.npy", i), npy.Dtype(typ), cliElems(d, 4), 4)
				out := filepath.Join(outDir, fmt.Sprintf("%d.npy", i))
				args := []string{"scan", "-in", in, "-out", out, "-op", op, "-json"}
				if inclusive {
					args = append(args, "-inclusive")
				}
				name := fmt.Sprintf("%s of %d %v inclusive=%v", op, n, typ, inclusive)
				code, stdout, stderr := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", name, code, stderr)
				}
				want := scanRefRuns(typ, op, inclusive, d, []int{0})
				total := reduceIdentity(typ, op)
				if n > 0 {
					total = scanRefRuns(typ, op, true, d, []int{0})[n-1]
				}
				js := cliJSON(t, name, stdout)
				cliCheckJSON(t, name, js, map[string]any{"op": "scan", "operation": op, "type": typ.String(), "inclusive": inclusive, "n": strconv.Itoa(n)})
				if _, ok := js["keys_type"]; ok {
					t.Errorf("%s: JSON keys_type %v without -keys", name, js["keys_type"])
				}
				if got, w := fmt.Sprint(js["total"]), string(jsonValue(typ, total)); got != w && strconv.Quote(got) != w {
					t.Errorf("%s: JSON total %s, want %s", name, got, w)
				}
				if got := readOutput(t, out, npy.Dtype(typ), n); string(got) != string(cliElems(want, 4)) {
					t.Errorf("%s: the scans differ from the reference", name)
				}
			}
		}
	}
}

// TestScanOpsText: the line names the op, but for sums, and the total as
// the op combines all elements.
func TestScanOpsText(t *testing.T) {
	requireDevice(t)
	dir := vktest.TempDir(t)
	in := cliInput(t, dir, "d.i32", "", cliElems([]uint64{5, uint64(uint32(0xfffffffd)), 7}, 4), 4)
	keys := cliInput(t, dir, "k.npy", "<u8", cliElems([]uint64{1, 1, 2}, 8), 8)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-op", "min"}, "scan: 3 i32 exclusive min, total -3, in "},
		{[]string{"-op", "max", "-inclusive"}, "scan: 3 i32 inclusive max, total 7, in "},
		{[]string{"-op", "sum"}, "scan: 3 i32 exclusive, total 9, in "},
		{[]string{"-keys", keys}, "scan: 3 i32 exclusive sum by u64 key, in "},
		{[]string{"-keys", keys, "-op", "max", "-inclusive"}, "scan: 3 i32 inclusive max by u64 key, in "},
	} {
		args := append([]string{"scan", "-in", in, "-type", "i32", "-out", filepath.Join(dir, "out")}, tc.args...)
		if code, stdout, stderr := runCLI(t, args...); code != 0 || !strings.HasPrefix(stdout, tc.want) {
			t.Errorf("%q: exit %d, %q (%s), want %q...", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestScanByKey scans random values of each value type by random runs of
// keys of each key type (float32 keys with NaNs, each a run of its own,
// and -0.0 beside 0.0), with each op, exclusive and inclusive, from .npy
// keys and from raw keys with -keys-type, and checks every element
// against Go.
func TestScanByKey(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(50, 2))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	sizes := []int{6000, 1, 0, 777, 40003}
	i := 0
	for _, kt := range reduceTypes {
		for _, vt := range scanTypes {
			for _, op := range []string{"sum", "min", "max"} {
				i++
				n := sizes[i%len(sizes)]
				if vktest.Short() && n > 6000 {
					n = 3000
				}
				inclusive := i%2 == 0
				keys, starts := keyRuns(rng, kt, n)
				values := scanOpData(rng, vt, op, n)
				ks := int(kt.Size())
				args := []string{"scan", "-keys", cliInput(t, dir, fmt.Sprintf("k%d.npy", i), npy.Dtype(kt), cliElems(keys, ks), ks)}
				if i%3 == 1 { // raw keys need -keys-type
					args = []string{"scan", "-keys", cliInput(t, dir, fmt.Sprintf("k%d.raw", i), "", cliElems(keys, ks), ks), "-keys-type", kt.String()}
				}
				vin := cliInput(t, dir, fmt.Sprintf("v%d.npy", i), npy.Dtype(vt), cliElems(values, 4), 4)
				out := filepath.Join(outDir, fmt.Sprintf("s%d.npy", i))
				args = append(args, "-in", vin, "-op", op, "-out", out, "-json")
				if inclusive {
					args = append(args, "-inclusive")
				}
				name := fmt.Sprintf("%s of %d %v by %v key, inclusive=%v", op, n, vt, kt, inclusive)
				code, stdout, stderr := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", name, code, stderr)
				}
				js := cliJSON(t, name, stdout)
				cliCheckJSON(t, name, js, map[string]any{"op": "scan", "operation": op, "keys_type": kt.String(), "type": vt.String(),
					"inclusive": inclusive, "n": strconv.Itoa(n)})
				if _, ok := js["total"]; ok {
					t.Errorf("%s: JSON total %v by key", name, js["total"])
				}
				want := scanRefRuns(vt, op, inclusive, values, starts)
				if got := readOutput(t, out, npy.Dtype(vt), n); string(got) != string(cliElems(want, 4)) {
					t.Errorf("%s: the scans differ from the reference", name)
				}
			}
		}
	}
}

// scanOpsBadCases are scan's -op and -keys.
func scanOpsBadCases(t *testing.T, dir string, p map[string]string) []badCase {
	files := map[string][]byte{
		"sk999.npy":  append(npyHeaderBytes("<u4", 999), make([]byte, 4*999)...),
		"skf64.npy":  append(npyHeaderBytes("<f8", 1000), make([]byte, 8*1000)...),
		"ski64.npy":  append(npyHeaderBytes("<i8", 1000), make([]byte, 8*1000)...),
		"sk1000.npy": append(npyHeaderBytes("<u4", 1000), make([]byte, 4*1000)...),
		"sk1000.raw": make([]byte, 4*1000),
		"skoddraw":   make([]byte, 4*1000+2),
	}
	for name, b := range files {
		p[name] = filepath.Join(dir, name)
		writeTestFile(t, p[name], b)
	}
	good := p["good.u32"]
	with := func(args ...string) []string {
		return append([]string{"-in", good, "-type", "u32", "-out", "$OUT"}, args...)
	}
	return forCommand("scan", []badCase{
		{name: "unknown op", args: with("-op", "mean"), want: `-op: unknown operation "mean" (want sum, min or max)`},
		{name: "op in capitals", args: with("-op", "MIN"), want: `-op: unknown operation "MIN"`},
		{name: "reduce's op", args: with("-op", "argmin"), want: `-op: unknown operation "argmin" (want sum, min or max)`},
		{name: "empty op", args: with("-op", ""), want: `-op: unknown operation ""`},
		{name: "-keys-type without -keys", args: with("-keys-type", "u32"), want: "-keys-type needs -keys FILE: the keys to scan by"},
		{name: "values u64 by key", args: []string{"-in", p["u64.npy"], "-keys", p["sk1000.npy"], "-out", "$OUT"}, want: "dtype '<u8' (u64): scan takes u32, i32 or f32"},
		{name: "values -type u64 by key", args: []string{"-in", good, "-type", "u64", "-keys", p["sk1000.npy"], "-out", "$OUT"}, want: "-type u64: scan takes u32, i32 or f32"},
		{name: "values without a type by key", args: []string{"-in", good, "-keys", p["sk1000.npy"], "-out", "$OUT"}, want: "missing -type T: the values' u32, i32 or f32"},
		{name: "values records by key", args: []string{"-in", p["rec.npy"], "-keys", p["sk1000.npy"], "-out", "$OUT"}, want: "scan takes a plain array of u32, i32 or f32"},
		{name: "keys too few", args: with("-keys", p["sk999.npy"]), want: "-keys " + p["sk999.npy"] + " holds 999 keys for 1000 elements"},
		{name: "keys f64", args: with("-keys", p["skf64.npy"]), want: "dtype '<f8': keys must be u32, i32, f32 or u64 ('<u4', '<i4', '<f4' or '<u8')"},
		{name: "keys i64", args: with("-keys", p["ski64.npy"]), want: "dtype '<i8': keys must be u32, i32, f32 or u64"},
		{name: "keys raw without type", args: with("-keys", p["sk1000.raw"]), want: "-keys " + p["sk1000.raw"] + " is a raw file: give -keys-type T (u32, i32, f32 or u64)"},
		{name: "keys type unknown", args: with("-keys", p["sk1000.raw"], "-keys-type", "u16"), want: "-keys-type u16: want u32, i32, f32 or u64"},
		{name: "keys type i64", args: with("-keys", p["sk1000.raw"], "-keys-type", "i64"), want: "-keys-type i64: want u32, i32, f32 or u64"},
		{name: "keys type contradicts", args: with("-keys", p["sk1000.npy"], "-keys-type", "f32"), want: "dtype '<u4' (u32) contradicts -keys-type f32"},
		{name: "keys raw not whole", args: with("-keys", p["skoddraw"], "-keys-type", "u32"), want: "4002 bytes is not a whole number of 4-byte u32 keys"},
		{name: "keys 2-D", args: with("-keys", p["v2d.npy"]), want: "shape (10, 100): want a 1-D array"},
		{name: "keys records", args: with("-keys", p["rec.npy"]), want: "keys must be u32, i32, f32 or u64"},
		{name: "no such keys file", args: with("-keys", filepath.Join(dir, "nope")), want: "-keys: open " + filepath.Join(dir, "nope")},
		{name: "keys a directory", args: with("-keys", dir), want: "-keys " + dir + ": not a regular file"},
		{name: "reduce's -keys-out", args: with("-keys", p["sk1000.npy"], "-keys-out", "$VOUT"), want: "flag provided but not defined: -keys-out"},
	})
}

// TestBenchScanByKey runs bench's scan_by_key_u32 once per keep ratio,
// which checks its output against Go itself, with -phases.
func TestBenchScanByKey(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "bench", "-ops", "scan_by_key_u32", "-n", "0,13", "-keep", "0,0.5,1", "-reps", "2", "-warmup-ms", "0", "-json", "-phases")
	var rows []bench.Row
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 6 {
		t.Fatalf("bench -json: exit %d, %s %s", code, out, errOut)
	}
	for i, r := range rows {
		if r.Op != "scan_by_key_u32" || r.MsMedian <= 0 || r.N != []uint64{1, 8192}[i/3] || r.KeepRatio != []float64{0, 0.5, 1}[i%3] {
			t.Errorf("row %+v", r)
		}
	}
	if want := "# scan_by_key_u32 n=8192 keep=0.500: clear "; !strings.Contains(errOut, want) {
		t.Errorf("no %q in the phases %q", want, errOut)
	}
}
