package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// cliElems writes element bits as little-endian bytes of size 4 or 8.
func cliElems(bits []uint64, size int) []byte {
	b := make([]byte, 0, size*len(bits))
	for _, x := range bits {
		if size == 4 {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		} else {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
	}
	return b
}

// cliInput writes an input file of the elements: .npy of descr when the
// name ends in .npy, raw otherwise. It returns its path.
func cliInput(t *testing.T, dir, name, descr string, data []byte, size int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if strings.HasSuffix(name, ".npy") {
		data = append(npyHeaderBytes(descr, uint64(len(data)/size)), data...)
	}
	writeTestFile(t, p, data)
	return p
}

// cliJSON decodes a command's JSON output, numbers as json.Number.
func cliJSON(t *testing.T, name, stdout string) map[string]any {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 {
		t.Errorf("%s: want one line of JSON, got %q", name, stdout)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.UseNumber()
	var js map[string]any
	if err := dec.Decode(&js); err != nil {
		t.Fatalf("%s: output is not JSON: %v\n%s", name, err, stdout)
	}
	return js
}

// cliCheckJSON compares fields of the JSON with want (numbers as their
// decimal text), and checks gpu_ms (lavapipe has timestamps) and device.
func cliCheckJSON(t *testing.T, name string, js map[string]any, want map[string]any) {
	t.Helper()
	for k, w := range want {
		got, ok := js[k]
		if n, isNum := got.(json.Number); isNum {
			got = n.String()
		}
		if !ok || got != w {
			t.Errorf("%s: JSON %q is %v (%T), want %v", name, k, js[k], js[k], w)
		}
	}
	if ms, err := js["gpu_ms"].(json.Number).Float64(); err != nil || ms < 0 {
		t.Errorf("%s: gpu_ms %v", name, js["gpu_ms"])
	}
	if d, _ := js["device"].(string); d == "" {
		t.Errorf("%s: no device in the JSON", name)
	}
}

// cliNpyDescr is the .npy dtype an output file gets: "" (raw) unless its
// name ends in .npy.
func cliNpyDescr(path string, t vkcompact.Type) string {
	if strings.HasSuffix(path, ".npy") {
		return npy.Dtype(t)
	}
	return ""
}

// cliScanRef is the reference prefix sum of element bits: exact wrapping
// sums for integers; for float32, float64 sums and the running sum of the
// magnitudes, for the tolerance.
func cliScanRef(typ vkcompact.Type, data []uint64, inclusive bool) (sums []uint32, f64, abs []float64, total uint32, ftotal, fabs float64) {
	n := len(data)
	sums, f64, abs = make([]uint32, n), make([]float64, n), make([]float64, n)
	var run uint32
	var frun, arun float64
	for i, x := range data {
		if !inclusive {
			sums[i], f64[i], abs[i] = run, frun, arun
		}
		run += uint32(x)
		if typ == vkcompact.Float32 {
			v := float64(math.Float32frombits(uint32(x)))
			frun += v
			arun += math.Abs(v)
		}
		if inclusive {
			sums[i], f64[i], abs[i] = run, frun, arun
		}
	}
	return sums, f64, abs, run, frun, arun
}

// cliFloatClose says whether a float32 result is within rounding of the
// float64 reference want, whose summands' magnitudes sum to abs: a
// relative 1e-5 of abs (the GPU adds in a tree order, never bit-exact
// with a serial loop) plus 2^-126 for denormals a device may flush.
func cliFloatClose(got, want, abs float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= 1e-5*abs+0x1p-126
}

// cliScanData returns n elements of t: full-range wrapping integers with
// their extremes, or floats of mixed signs and magnitudes.
func cliScanData(rng *rand.Rand, t vkcompact.Type, n int) []uint64 {
	d := make([]uint64, n)
	for i := range d {
		switch t {
		case vkcompact.Uint32:
			d[i] = uint64(rng.Uint32())
			if i%97 == 5 {
				d[i] = math.MaxUint32
			}
		case vkcompact.Int32:
			v := rng.Int32N(2001) - 1000
			switch i % 101 {
			case 3:
				v = math.MinInt32
			case 4:
				v = math.MaxInt32
			}
			d[i] = uint64(uint32(v))
		default:
			v := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
			d[i] = uint64(math.Float32bits(v))
		}
	}
	return d
}

// TestScan runs scan on u32, i32 and f32, exclusive and inclusive, with
// raw and .npy inputs (with -type, or the header's dtype alone) and
// outputs, and checks the sums and the JSON against the Go reference.
func TestScan(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(3, 5))
	formats := [][2]bool{{false, false}, {true, true}, {false, true}, {true, false}} // in .npy, out .npy
	type scanRun struct {
		typ       vkcompact.Type
		n         int
		inclusive bool
		inNpy     bool
		outNpy    bool
	}
	var runs []scanRun
	i := 0
	for _, typ := range []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32} {
		for _, incl := range []bool{false, true} {
			f := formats[i%len(formats)]
			runs = append(runs, scanRun{typ, 1000 + 7*i, incl, f[0], f[1]})
			i++
		}
		// Enough elements for many chunks.
		f := formats[i%len(formats)]
		runs = append(runs, scanRun{typ, 300007, i%2 == 0, f[0], f[1]})
		i++
	}
	runs = append(runs, scanRun{vkcompact.Uint32, 0, false, true, true}, scanRun{vkcompact.Float32, 1, true, false, false})
	for _, r := range runs {
		name := fmt.Sprintf("%v n=%d inclusive=%v in.npy=%v out.npy=%v", r.typ, r.n, r.inclusive, r.inNpy, r.outNpy)
		data := cliScanData(rng, r.typ, r.n)
		dir := vktest.TempDir(t)
		inName, outName := "in.raw", "out.raw"
		if r.inNpy {
			inName = "in.npy"
		}
		if r.outNpy {
			outName = "out.npy"
		}
		in := cliInput(t, dir, inName, npy.Dtype(r.typ), cliElems(data, 4), 4)
		outDir := vktest.TempDir(t)
		out := filepath.Join(outDir, outName)
		args := []string{"scan", "-in", in, "-out", out, "-json"}
		if !r.inNpy || r.n%2 == 0 {
			args = append(args, "-type", r.typ.String()) // else the .npy header gives it
		}
		if r.inclusive {
			args = append(args, "-inclusive")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		sums, f64, abs, total, ftotal, fabs := cliScanRef(r.typ, data, r.inclusive)
		js := cliJSON(t, name, stdout)
		cliCheckJSON(t, name, js, map[string]any{"op": "scan", "type": r.typ.String(), "inclusive": r.inclusive, "n": strconv.Itoa(r.n)})
		gotTotal, _ := js["total"].(json.Number)
		switch r.typ {
		case vkcompact.Uint32:
			if gotTotal.String() != strconv.FormatUint(uint64(total), 10) {
				t.Errorf("%s: total %v, want %d", name, js["total"], total)
			}
		case vkcompact.Int32:
			if gotTotal.String() != strconv.Itoa(int(int32(total))) {
				t.Errorf("%s: total %v, want %d", name, js["total"], int32(total))
			}
		default:
			if f, err := gotTotal.Float64(); err != nil || !cliFloatClose(f, ftotal, fabs) {
				t.Errorf("%s: total %v, want %g (magnitudes %g)", name, js["total"], ftotal, fabs)
			}
		}
		got := readOutput(t, out, cliNpyDescr(out, r.typ), r.n)
		if len(got) != 4*r.n {
			t.Fatalf("%s: output of %d bytes, want %d", name, len(got), 4*r.n)
		}
		bad := 0
		for k := range r.n {
			g := binary.LittleEndian.Uint32(got[4*k:])
			ok := g == sums[k]
			if r.typ == vkcompact.Float32 {
				ok = cliFloatClose(float64(math.Float32frombits(g)), f64[k], abs[k])
			}
			if !ok {
				if bad++; bad <= 5 {
					t.Errorf("%s: element %d is %#x (%g), want %#x (%g)", name, k, g, math.Float32frombits(g), sums[k], f64[k])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d sums wrong", name, bad, r.n)
		}
		if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
			t.Errorf("%s: the output directory holds %d files", name, len(entries))
		}
	}
}

// TestScanSummary checks the summary line, a float total's form, and a
// total JSON has no number for.
func TestScanSummary(t *testing.T) {
	requireDevice(t)
	dir := vktest.TempDir(t)
	out := filepath.Join(dir, "out")
	i32 := cliInput(t, dir, "i32.raw", "", cliElems([]uint64{uint64(uint32(1)), uint64(uint32(0xfffffffd)), 4, uint64(uint32(0xfffffffc))}, 4), 4)
	line := regexp.MustCompile(`^scan: 4 i32 inclusive, total -2, in [0-9]+\.[0-9]{3} ms GPU time on .+\n$`)
	if code, stdout, stderr := runCLI(t, "scan", "-in", i32, "-out", out, "-type", "i32", "-inclusive"); code != 0 || !line.MatchString(stdout) {
		t.Errorf("exit %d, summary %q (%s)", code, stdout, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, cliElems([]uint64{1, uint64(uint32(0xfffffffe)), 2, uint64(uint32(0xfffffffe))}, 4)) {
		t.Errorf("output % x", got)
	}
	f32 := func(v ...float32) string {
		b := make([]uint64, len(v))
		for i, x := range v {
			b[i] = uint64(math.Float32bits(x))
		}
		return cliInput(t, dir, "f32.npy", "<f4", cliElems(b, 4), 4)
	}
	in := f32(0.5, 1.5, 2, 2)
	line = regexp.MustCompile(`^scan: 4 f32 exclusive, total 6\.0, in .* ms GPU time on .+\n$`)
	if code, stdout, stderr := runCLI(t, "scan", "-in", in, "-out", out, "-type", "f32"); code != 0 || !line.MatchString(stdout) {
		t.Errorf("exit %d, summary %q (%s)", code, stdout, stderr)
	}
	for _, tc := range []struct {
		data []float32
		want any
	}{
		{[]float32{0.5, 1.5, 2, 2}, json.Number("6.0")},
		{[]float32{1, float32(math.Inf(1))}, "+Inf"},
		{[]float32{1, float32(math.Inf(-1))}, "-Inf"},
		{[]float32{float32(math.Inf(1)), float32(math.Inf(-1))}, "NaN"},
	} {
		in := f32(tc.data...)
		code, stdout, stderr := runCLI(t, "scan", "-in", in, "-out", out, "-type", "f32", "-json")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.data, code, stderr)
		}
		if js := cliJSON(t, fmt.Sprint(tc.data), stdout); js["total"] != tc.want {
			t.Errorf("%v: total %#v, want %#v", tc.data, js["total"], tc.want)
		}
	}
}

// cliMapped is the order-preserving map of a key's bits, written
// independently of the shaders: the key's value order, float32 in IEEE
// totalOrder.
func cliMapped(t vkcompact.Type, bits uint64) uint64 {
	switch t {
	case vkcompact.Int32:
		return uint64(uint32(bits) ^ 1<<31)
	case vkcompact.Float32:
		if bits&(1<<31) != 0 {
			return uint64(^uint32(bits))
		}
		return bits | 1<<31
	}
	return bits
}

// cliSortRef returns the permutation a stable sort by bits [lo, hi) of
// the mapped keys gives.
func cliSortRef(t vkcompact.Type, keys []uint64, descending bool, lo, hi uint32) []uint32 {
	mask := uint64(0)
	if hi > lo {
		mask = (math.MaxUint64 >> (64 - (hi - lo))) << lo
	}
	perm := make([]uint32, len(keys))
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortStableFunc(perm, func(a, b uint32) int {
		ka, kb := cliMapped(t, keys[a])&mask, cliMapped(t, keys[b])&mask
		if descending {
			return cmp.Compare(kb, ka)
		}
		return cmp.Compare(ka, kb)
	})
	return perm
}

// cliSortKeys returns n keys of t with many duplicates, so that
// stability shows, and each type's edge cases.
func cliSortKeys(rng *rand.Rand, t vkcompact.Type, n int) []uint64 {
	f32 := func(v float64) uint64 { return uint64(math.Float32bits(float32(v))) }
	var specials []uint64
	switch t {
	case vkcompact.Uint32:
		specials = []uint64{0, 1, math.MaxUint32, 1 << 31, 1<<31 - 1}
	case vkcompact.Int32:
		specials = []uint64{1 << 31, math.MaxInt32, 0, uint64(uint32(0xffffffff)), 1}
	case vkcompact.Float32:
		specials = []uint64{0x7fc00000, 0xffc00000, 0x7f800001, f32(math.Inf(1)), f32(math.Inf(-1)), 0, 1 << 31, 1, 0x80000001,
			f32(math.MaxFloat32), f32(-math.MaxFloat32), f32(0.5), f32(-0.5)}
	default:
		specials = []uint64{0, math.MaxUint64, 1 << 63, 1<<32 - 1, 1 << 32}
	}
	keys := make([]uint64, n)
	for i := range keys {
		switch r := rng.IntN(8); {
		case r == 0:
			keys[i] = specials[rng.IntN(len(specials))]
		case r < 4: // few distinct keys: equal keys must keep their order
			keys[i] = uint64(rng.IntN(8)) * 0x01010101
			if t == vkcompact.Float32 {
				keys[i] = f32(float64(rng.IntN(8)) - 3.5)
			}
			if t == vkcompact.Uint64 {
				keys[i] = uint64(rng.IntN(8)) << (8 * rng.IntN(8))
			}
		default:
			keys[i] = rng.Uint64()
			switch t {
			case vkcompact.Float32:
				keys[i] = f32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
			case vkcompact.Uint32, vkcompact.Int32:
				keys[i] &= math.MaxUint32
			}
		}
	}
	return keys
}

// sortRun is one run of TestSort.
type sortRun struct {
	typ        vkcompact.Type
	n          int
	descending bool
	values     bool
	bits       string // -bits, "" for none
	npy        bool   // the key and values files .npy (the outputs alternate)
}

// sortRuns are TestSort's runs: every key type, over all bits and two
// ranges, ascending and descending, then a few sizes and ranges apart.
func sortRuns() []sortRun {
	var runs []sortRun
	i := 0
	for _, typ := range []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64} {
		w := 8 * typ.Size()
		for _, bits := range []string{"", fmt.Sprintf("4:%d", w/2+3), fmt.Sprintf("%d:%d", w-9, w)} {
			for _, desc := range []bool{false, true} {
				runs = append(runs, sortRun{typ, 3000 + 13*i, desc, i%3 != 2, bits, i%2 == 1})
				i++
			}
		}
	}
	return append(runs,
		sortRun{vkcompact.Uint32, 200003, false, true, "", true},     // many chunks
		sortRun{vkcompact.Uint64, 100001, true, true, "0:64", false}, // many chunks, 8 passes
		sortRun{vkcompact.Int32, 1000, false, true, "0:0", true},     // no bits: the input order
		sortRun{vkcompact.Float32, 1000, true, true, "7:7", false},
		sortRun{vkcompact.Uint32, 0, false, true, "", true},
		sortRun{vkcompact.Float32, 1, true, false, "", false})
}

// TestSort runs sort on u32, i32, f32 and u64 keys, alone and with
// values (each key's input index, so that stability shows in them),
// ascending and descending, over bit ranges, with raw and .npy files
// (half of the .npy inputs without -type), and checks the outputs and the JSON against a Go stable sort.
func TestSort(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(9, 13))
	for i, r := range sortRuns() {
		checkSortRun(t, rng, i, r)
	}
}

// checkSortRun runs sort for the i-th run r, on keys from rng, and checks
// its outputs and JSON.
func checkSortRun(t *testing.T, rng *rand.Rand, i int, r sortRun) {
	t.Helper()
	size := int(r.typ.Size())
	lo, hi := uint32(0), 8*r.typ.Size()
	if r.bits != "" {
		fmt.Sscanf(r.bits, "%d:%d", &lo, &hi)
	}
	name := fmt.Sprintf("%v n=%d descending=%v values=%v bits=%d:%d npy=%v", r.typ, r.n, r.descending, r.values, lo, hi, r.npy)
	keys := cliSortKeys(rng, r.typ, r.n)
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	ext, outExt := ".raw", ".raw"
	if r.npy {
		ext = ".npy"
	}
	if i%4 < 2 {
		outExt = ".npy"
	}
	in := cliInput(t, dir, "keys"+ext, npy.Dtype(r.typ), cliElems(keys, size), size)
	out := filepath.Join(outDir, "sorted"+outExt)
	args := []string{"sort", "-in", in, "-out", out, "-json"}
	if !r.npy || i%4 == 1 {
		args = append(args, "-type", r.typ.String()) // else the .npy header gives it
	}
	var valuesOut string
	if r.values {
		idx := make([]uint64, r.n)
		for k := range idx {
			idx[k] = uint64(k)
		}
		// The values' format is the other one of the keys'.
		vext, voext := ".npy", ".raw"
		if r.npy {
			vext, voext = ".raw", ".npy"
		}
		vals := cliInput(t, dir, "values"+vext, "<u4", cliElems(idx, 4), 4)
		valuesOut = filepath.Join(outDir, "values"+voext)
		args = append(args, "-values", vals, "-values-out", valuesOut)
	}
	if r.descending {
		args = append(args, "-descending")
	}
	if r.bits != "" {
		args = append(args, "-bits", r.bits)
	}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", name, code, stderr)
	}
	js := cliJSON(t, name, stdout)
	cliCheckJSON(t, name, js, map[string]any{"op": "sort", "type": r.typ.String(), "n": strconv.Itoa(r.n), "descending": r.descending,
		"begin_bit": fmt.Sprint(lo), "end_bit": fmt.Sprint(hi), "values": r.values})

	perm := cliSortRef(r.typ, keys, r.descending, lo, hi)
	want := make([]uint64, r.n)
	for k, p := range perm {
		want[k] = keys[p]
	}
	got := readOutput(t, out, cliNpyDescr(out, r.typ), r.n)
	if !bytes.Equal(got, cliElems(want, size)) {
		if len(got) != size*r.n {
			t.Fatalf("%s: %d bytes of keys, want %d", name, len(got), size*r.n)
		}
		for k := range r.n {
			if g := got[size*k : size*(k+1)]; !bytes.Equal(g, cliElems(want[k:k+1], size)) {
				t.Errorf("%s: key %d is % x, want %#x (input %d)", name, k, g, want[k], perm[k])
				break
			}
		}
	}
	wantFiles := 1
	if r.values {
		wantFiles = 2
		got := readOutput(t, valuesOut, cliNpyDescr(valuesOut, vkcompact.Uint32), r.n)
		if len(got) != 4*r.n {
			t.Fatalf("%s: %d bytes of values, want %d", name, len(got), 4*r.n)
		}
		for k, p := range perm {
			if v := binary.LittleEndian.Uint32(got[4*k:]); v != p {
				t.Errorf("%s: value %d is %d, want %d (not stable?)", name, k, v, p)
				break
			}
		}
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != wantFiles {
		t.Errorf("%s: the output directory holds %d files, want %d", name, len(entries), wantFiles)
	}
}

// TestSortSummary checks the summary line with and without values.
func TestSortSummary(t *testing.T) {
	requireDevice(t)
	dir := vktest.TempDir(t)
	in := cliInput(t, dir, "in.u32", "", cliElems([]uint64{3, 1, 4, 1, 5, 9}, 4), 4)
	vals := cliInput(t, dir, "v.u32", "", cliElems([]uint64{0, 1, 2, 3, 4, 5}, 4), 4)
	out, vout := filepath.Join(dir, "out"), filepath.Join(dir, "vout")
	line := regexp.MustCompile(`^sort: 6 u32 descending with values, bits 0:8, in [0-9]+\.[0-9]{3} ms GPU time on .+\n$`)
	code, stdout, stderr := runCLI(t, "sort", "-in", in, "-out", out, "-type", "u32", "-values", vals, "-values-out", vout, "-descending", "-bits", "0:8")
	if code != 0 || !line.MatchString(stdout) {
		t.Errorf("exit %d, summary %q (%s)", code, stdout, stderr)
	}
	k, _ := os.ReadFile(out)
	v, _ := os.ReadFile(vout)
	if !bytes.Equal(k, cliElems([]uint64{9, 5, 4, 3, 1, 1}, 4)) || !bytes.Equal(v, cliElems([]uint64{5, 4, 2, 0, 1, 3}, 4)) {
		t.Errorf("keys % x, values % x", k, v)
	}
	line = regexp.MustCompile(`^sort: 6 u32 ascending, bits 0:32, in .* ms GPU time on .+\n$`)
	if code, stdout, stderr := runCLI(t, "sort", "-in", in, "-out", out, "-type", "u32"); code != 0 || !line.MatchString(stdout) {
		t.Errorf("exit %d, summary %q (%s)", code, stdout, stderr)
	}
}

// FuzzParseBits: -bits never panics, accepts exactly LO:HI with 0 <= LO
// <= HI <= the key's width, and names -bits when it refuses.
func FuzzParseBits(f *testing.F) {
	for _, s := range []string{"", "0:32", "0:0", "8", "4:40", "9:3", "a:b", ":", "4:", "-1:4", "+1:4", "1:2:3", " 1:2", "0:64", "0x1:2", "99999999999:1"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(3))
	}
	types := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		typ := types[int(which)%len(types)]
		width := 8 * typ.Size()
		// The acceptance oracle: a valid range made from the input must
		// parse to exactly itself (a parser refusing everything fails).
		var sum uint32
		for _, c := range []byte(s) {
			sum = sum*31 + uint32(c)
		}
		a, b := uint32(len(s))%(width+1), sum%(width+1)
		valid := fmt.Sprintf("%d:%d", min(a, b), max(a, b))
		if l, h, err := parseBits(valid, typ); err != nil || l != min(a, b) || h != max(a, b) {
			t.Fatalf("%q, a valid range for %v: %d:%d, %v", valid, typ, l, h, err)
		}
		lo, hi, err := parseBits(s, typ)
		if err != nil {
			var ue usage.Error
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "-bits ") {
				t.Fatalf("%q: error %v", s, err)
			}
			return
		}
		if lo > hi || hi > width {
			t.Fatalf("%q for %v: accepted as %d:%d", s, typ, lo, hi)
		}
		if s == "" {
			if lo != 0 || hi != width {
				t.Fatalf("no -bits gives %d:%d", lo, hi)
			}
			return
		}
		var l, h uint64
		if n, err := fmt.Sscanf(s, "%d:%d", &l, &h); n != 2 || err != nil || uint64(lo) != l || uint64(hi) != h {
			t.Fatalf("%q: accepted as %d:%d", s, lo, hi)
		}
	})
}
