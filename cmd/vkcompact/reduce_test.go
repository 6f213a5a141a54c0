package main

import (
	"encoding/binary"
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

// reduceData returns n elements of t: integers over their whole range
// with duplicates and extremes; float32 quarters from -64 to 64 (whose
// sums are exact in any order), with a NaN, infinities and signed zeros
// where specials is set.
func reduceData(rng *rand.Rand, t vkcompact.Type, n int, specials bool) []uint64 {
	d := make([]uint64, n)
	for i := range d {
		switch t {
		case vkcompact.Float32:
			d[i] = uint64(math.Float32bits(float32(rng.IntN(513)-256) / 4))
		case vkcompact.Uint64:
			d[i] = rng.Uint64()
		default:
			d[i] = uint64(rng.Uint32())
		}
		if rng.IntN(50) == 0 { // a repeat of an earlier one: ties
			d[i] = d[rng.IntN(i+1)]
		}
	}
	if specials && t == vkcompact.Float32 && n > 10 {
		for _, v := range []uint64{0x80000000, 0, 0x7f800000, 0xff800000} {
			d[rng.IntN(n)] = v
		}
		if rng.IntN(2) == 0 {
			d[rng.IntN(n)] = 0x7fc00000 // a NaN
		}
	}
	return d
}

// reduceLess reports whether a is below b in t's order as the reduction
// compares (-0.0 equals 0.0; NaN is handled by the caller).
func reduceLess(t vkcompact.Type, a, b uint64) bool {
	switch t {
	case vkcompact.Int32:
		return int32(a) < int32(b)
	case vkcompact.Float32:
		return math.Float32frombits(uint32(a)) < math.Float32frombits(uint32(b))
	}
	return a < b
}

// isNaN32 reports whether bits of t are a float32 NaN.
func isNaN32(t vkcompact.Type, bits uint64) bool {
	f := math.Float32frombits(uint32(bits))
	return t == vkcompact.Float32 && f != f
}

// reduceIdentity is the value of an empty reduction.
func reduceIdentity(t vkcompact.Type, op string) uint64 {
	switch {
	case op == "sum":
		return 0
	case op == "min" || op == "argmin":
		return map[vkcompact.Type]uint64{vkcompact.Uint32: math.MaxUint32, vkcompact.Int32: math.MaxInt32, vkcompact.Float32: 0x7f800000, vkcompact.Uint64: math.MaxUint64}[t]
	}
	return map[vkcompact.Type]uint64{vkcompact.Uint32: 0, vkcompact.Int32: 1 << 31, vkcompact.Float32: 0xff800000, vkcompact.Uint64: 0}[t]
}

// reduceRef reduces d as the library documents it: wrapping integer
// sums; the first NaN for float min and max (and its index for the arg
// ops); else the first of the least (greatest) elements. It returns the
// value's bits and the index (-1 for none).
func reduceRef(t vkcompact.Type, op string, d []uint64) (uint64, int) {
	if op == "sum" {
		var s uint64
		var f float32
		for _, x := range d {
			s += x
			f += math.Float32frombits(uint32(x))
		}
		switch t {
		case vkcompact.Float32:
			return uint64(math.Float32bits(f)), -1
		case vkcompact.Uint64:
			return s, -1
		}
		return s & math.MaxUint32, -1
	}
	best := -1
	for i, x := range d {
		if isNaN32(t, x) {
			best = i
			break
		}
		if best < 0 || (op == "min" || op == "argmin") && reduceLess(t, x, d[best]) || (op == "max" || op == "argmax") && reduceLess(t, d[best], x) {
			best = i
		}
	}
	if best < 0 {
		return reduceIdentity(t, op), -1
	}
	if op == "min" || op == "max" {
		return d[best], -1
	}
	return d[best], best
}

// TestReduce reduces random elements of every type with every operation,
// over all of them (sizes from none to several workgroups' worth), and
// checks the value and the index in the output file and the JSON against
// a Go reduction.
func TestReduce(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(49, 1))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	sizes := []int{0, 1, 1000, 70001}
	if vktest.Short() {
		sizes = []int{0, 3000}
	}
	for _, typ := range reduceTypes {
		size := int(typ.Size())
		for _, n := range sizes {
			d := reduceData(rng, typ, n, true)
			in := cliInput(t, dir, fmt.Sprintf("%v-%d.npy", typ, n), npy.Dtype(typ), cliElems(d, size), size)
			for _, op := range []string{"sum", "min", "max", "argmin", "argmax"} {
				name := fmt.Sprintf("%s of %d %v", op, n, typ)
				data, file := d, in
				if op == "sum" && typ == vkcompact.Float32 { // finite: the sum is exact
					data = reduceData(rand.New(rand.NewPCG(uint64(n), 2)), typ, n, false)
					file = cliInput(t, dir, fmt.Sprintf("%v-%d-finite.npy", typ, n), npy.Dtype(typ), cliElems(data, size), size)
				}
				out := filepath.Join(outDir, "r.npy")
				code, stdout, stderr := runCLI(t, "reduce", "-in", file, "-op", op, "-out", out, "-json")
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", name, code, stderr)
				}
				want, idx := reduceRef(typ, op, data)
				js := cliJSON(t, name, stdout)
				wantIndex := "<nil>"
				if idx >= 0 {
					wantIndex = strconv.Itoa(idx)
				}
				cliCheckJSON(t, name, js, map[string]any{"op": "reduce", "reduction": op, "over": "all", "type": typ.String(), "n": strconv.Itoa(n)})
				if got := fmt.Sprint(js["index"]); got != wantIndex {
					t.Errorf("%s: JSON index %s, want %s", name, got, wantIndex)
				}
				if got, w := fmt.Sprint(js["value"]), string(jsonValue(typ, want)); got != w && strconv.Quote(got) != w {
					t.Errorf("%s: JSON value %s, want %s", name, got, w)
				}
				if op == "argmin" || op == "argmax" {
					got := binary.LittleEndian.Uint32(readOutput(t, out, "<u4", 1))
					if wi := uint32(idx); idx < 0 && got != math.MaxUint32 || idx >= 0 && got != wi {
						t.Errorf("%s: -out holds index %d, want %d", name, got, idx)
					}
					continue
				}
				got := readOutput(t, out, npy.Dtype(typ), 1)
				if w := cliElems([]uint64{want}, size); string(got) != string(w) {
					t.Errorf("%s: -out holds % x, want % x", name, got, w)
				}
			}
		}
	}
}

// TestReduceText: without -out, the line names the value, or the index
// and its element.
func TestReduceText(t *testing.T) {
	requireDevice(t)
	dir := vktest.TempDir(t)
	in := cliInput(t, dir, "d.f32", "", cliElems([]uint64{uint64(math.Float32bits(2.5)), uint64(math.Float32bits(-1)), uint64(math.Float32bits(-1))}, 4), 4)
	for op, want := range map[string]string{
		"sum":    "reduce: sum of 3 f32 = 0.5, in ",
		"argmin": "reduce: argmin of 3 f32 = index 1 (-1.0), in ",
		"max":    "reduce: max of 3 f32 = 2.5, in ",
	} {
		code, stdout, stderr := runCLI(t, "reduce", "-in", in, "-type", "f32", "-op", op)
		if code != 0 || len(stdout) < len(want) || stdout[:len(want)] != want {
			t.Errorf("%s: exit %d, %q (%s), want %q...", op, code, stdout, stderr, want)
		}
	}
}

// reduceSegmentsRef reduces d within each segment of offsets, an empty
// segment to the identity.
func reduceSegmentsRef(t vkcompact.Type, op string, d []uint64, offsets []uint32) []uint64 {
	out := make([]uint64, len(offsets)-1)
	for s := range out {
		out[s], _ = reduceRef(t, op, d[offsets[s]:max(offsets[s], offsets[s+1])])
	}
	return out
}

// TestReduceSegments reduces random elements of every type within
// segments, from offsets files (raw, .npy of uint32 and of int32, empty
// segments, elements outside them) and from -segment, and checks each
// segment's value against Go.
func TestReduceSegments(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(49, 3))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	runs := []struct {
		n       int
		offsets []uint32 // nil: -segment
		segment int
	}{
		{n: 5000, segment: 1024},
		{n: 3000, offsets: []uint32{7, 7, 100, 100, 1500, 2990}},
		{n: 2000, offsets: []uint32{0, 1, 2, 2000}},
		{n: 0, offsets: []uint32{0, 0, 0}},
		{n: 100, offsets: []uint32{50}},
	}
	for i, r := range runs {
		typ := reduceTypes[i%len(reduceTypes)]
		op := []string{"sum", "min", "max"}[i%3]
		size := int(typ.Size())
		d := reduceData(rng, typ, r.n, op != "sum")
		in := cliInput(t, dir, fmt.Sprintf("in%d.npy", i), npy.Dtype(typ), cliElems(d, size), size)
		out := filepath.Join(outDir, fmt.Sprintf("out%d.npy", i))
		args := []string{"reduce", "-in", in, "-op", op, "-out", out, "-json"}
		offsets := r.offsets
		if offsets == nil {
			args = append(args, "-segment", strconv.Itoa(r.segment))
			offsets = uniformOffsets(uint64(r.n), uint64(r.segment))
		} else {
			o := make([]uint64, len(offsets))
			for k, x := range offsets {
				o[k] = uint64(x)
			}
			name, descr := "offsets.npy", []string{"<u4", "<i4"}[i%2]
			if i == 2 {
				name = "offsets.raw"
			}
			args = append(args, "-offsets", cliInput(t, dir, fmt.Sprintf("%d%s", i, name), descr, cliElems(o, 4), 4))
		}
		name := fmt.Sprintf("%s of %d %v in %d segments", op, r.n, typ, len(offsets)-1)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		cliCheckJSON(t, name, cliJSON(t, name, stdout), map[string]any{"over": "segments", "segments": strconv.Itoa(len(offsets) - 1), "reduction": op})
		want := reduceSegmentsRef(typ, op, d, offsets)
		if got := readOutput(t, out, npy.Dtype(typ), len(want)); string(got) != string(cliElems(want, size)) {
			t.Errorf("%s: the values differ from the reference", name)
		}
	}
}

// keyRuns returns n keys of t in runs of 1 to 5 equal ones (float32 with
// NaNs, each a run of its own, and -0.0 beside 0.0), and the runs'
// starts as the reduction by key finds them.
func keyRuns(rng *rand.Rand, t vkcompact.Type, n int) (keys []uint64, starts []int) {
	distinct := cliSortKeys(rng, t, 12)
	if t == vkcompact.Float32 {
		distinct = append(distinct, 0x80000000, 0, 0x7fc00000)
	}
	for len(keys) < n {
		k := distinct[rng.IntN(len(distinct))]
		for range min(1+rng.IntN(5), n-len(keys)) {
			keys = append(keys, k)
		}
	}
	for i, k := range keys {
		if i == 0 || isNaN32(t, k) || isNaN32(t, keys[i-1]) || k != keys[i-1] && !(t == vkcompact.Float32 && k&0x7fffffff == 0 && keys[i-1]&0x7fffffff == 0) {
			starts = append(starts, i)
		}
	}
	return keys, starts
}

// TestReduceByKey reduces random values of each value type by random
// runs of keys of each key type, and checks each run's first key and
// value against Go.
func TestReduceByKey(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(49, 4))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	i := 0
	for _, kt := range reduceTypes {
		for _, vt := range valueTypes {
			i++
			op := []string{"sum", "min", "max"}[i%3]
			n := []int{6000, 1, 0, 777}[i%4]
			keys, starts := keyRuns(rng, kt, n)
			values := reduceData(rng, vt, n, false)
			ks, vs := int(kt.Size()), int(vt.Size())
			kin := cliInput(t, dir, fmt.Sprintf("k%d.npy", i), npy.Dtype(kt), cliElems(keys, ks), ks)
			args := []string{"reduce", "-keys", kin}
			if i%2 == 1 { // raw keys need -keys-type
				kin = cliInput(t, dir, fmt.Sprintf("k%d.raw", i), "", cliElems(keys, ks), ks)
				args = []string{"reduce", "-keys", kin, "-keys-type", kt.String()}
			}
			vin := cliInput(t, dir, fmt.Sprintf("v%d.npy", i), npy.Dtype(vt), cliElems(values, vs), vs)
			out, keysOut := filepath.Join(outDir, fmt.Sprintf("v%d.npy", i)), filepath.Join(outDir, fmt.Sprintf("k%d.raw", i))
			name := fmt.Sprintf("%s of %d %v by %v key", op, n, vt, kt)
			code, stdout, stderr := runCLI(t, append(args, "-in", vin, "-op", op, "-out", out, "-keys-out", keysOut, "-json")...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			cliCheckJSON(t, name, cliJSON(t, name, stdout), map[string]any{"over": "keys", "runs": strconv.Itoa(len(starts)), "keys_type": kt.String(), "type": vt.String()})
			var wantKeys, wantValues []uint64
			for r, s := range starts {
				e := n
				if r+1 < len(starts) {
					e = starts[r+1]
				}
				v, _ := reduceRef(vt, op, values[s:e])
				wantKeys, wantValues = append(wantKeys, keys[s]), append(wantValues, v)
			}
			if got := readOutput(t, out, npy.Dtype(vt), len(starts)); string(got) != string(cliElems(wantValues, vs)) {
				t.Errorf("%s: the values differ from the reference", name)
			}
			if got := readOutput(t, keysOut, "", 0); string(got) != string(cliElems(wantKeys, ks)) {
				t.Errorf("%s: the keys differ from the reference", name)
			}
		}
	}
}

// reduceBadCases are reduce's: operations, types, the modes' flags, keys
// and offsets.
func reduceBadCases(t *testing.T, dir string, p map[string]string) []badCase {
	files := map[string][]byte{
		"k999.npy":   append(npyHeaderBytes("<u4", 999), make([]byte, 4*999)...),
		"kf64.npy":   append(npyHeaderBytes("<f8", 1000), make([]byte, 8*1000)...),
		"ki64.npy":   append(npyHeaderBytes("<i8", 1000), make([]byte, 8*1000)...),
		"k1000.npy":  append(npyHeaderBytes("<u4", 1000), make([]byte, 4*1000)...),
		"k1000.raw":  make([]byte, 4*1000),
		"koddraw":    make([]byte, 4*1000+2),
		"offdesc.u4": cliElems([]uint64{0, 500, 400, 1000}, 4),
		"offpast.u4": cliElems([]uint64{0, 1001}, 4),
	}
	for name, b := range files {
		p[name] = filepath.Join(dir, name)
		writeTestFile(t, p[name], b)
	}
	good := p["good.u32"]
	with := func(args ...string) []string { return append([]string{"-in", good, "-type", "u32"}, args...) }
	return forCommand("reduce", []badCase{
		{name: "missing -in", args: []string{"-out", "$OUT"}, want: "missing -in FILE"},
		{name: "unknown op", args: with("-op", "mean"), want: `-op: unknown reduction "mean" (want sum, min, max, argmin or argmax)`},
		{name: "op in capitals", args: with("-op", "SUM"), want: `-op: unknown reduction "SUM"`},
		{name: "missing -type", args: []string{"-in", good}, want: "missing -type T: u32, i32, f32 or u64"},
		{name: "i64", args: []string{"-in", good, "-type", "i64"}, want: "-type i64: reduce takes u32, i32, f32 or u64"},
		{name: "f64 npy", args: []string{"-in", p["f64.npy"]}, want: "dtype '<f8' (f64): reduce takes u32, i32, f32 or u64"},
		{name: "records", args: []string{"-in", p["rec.npy"]}, want: "reduce takes a plain array of u32, i32, f32 or u64"},
		{name: "npy wrong -type", args: []string{"-in", p["f32.npy"], "-type", "u32"}, want: "dtype '<f4' does not match -type u32 (want '<u4')"},
		{name: "-segment 0", args: with("-segment", "0", "-out", "$OUT"), want: "-segment 0: want 1 to 4294967295"},
		{name: "-offsets and -segment", args: with("-segment", "4", "-offsets", p["offdesc.u4"], "-out", "$OUT"), want: "-offsets and -segment both give the segments"},
		{name: "-keys and -offsets", args: with("-keys", p["k1000.npy"], "-offsets", p["offdesc.u4"], "-out", "$OUT"), want: "-keys and -offsets (or -segment) both say what to reduce over"},
		{name: "argmin per segment", args: with("-segment", "4", "-op", "argmin", "-out", "$OUT"), want: "-op argmin: within segments and by key, reduce takes sum, min or max"},
		{name: "argmax by key", args: with("-keys", p["k1000.npy"], "-op", "argmax", "-out", "$OUT"), want: "-op argmax: within segments and by key"},
		{name: "segments without -out", args: with("-segment", "4"), want: "missing -out FILE for the reduced values"},
		{name: "keys without -out", args: with("-keys", p["k1000.npy"]), want: "missing -out FILE for the reduced values"},
		{name: "-keys-out without -keys", args: with("-keys-out", "$VOUT"), want: "-keys-out and -keys-type need -keys FILE"},
		{name: "same output twice", args: with("-keys", p["k1000.npy"], "-out", "$OUT", "-keys-out", "$OUT"), want: "-out and -keys-out name the same file"},
		{name: "offsets decrease", args: with("-offsets", p["offdesc.u4"], "-out", "$OUT"), want: "-offsets: offset 2 (400) is below offset 1 (500): offsets must not decrease"},
		{name: "offsets past the elements", args: with("-offsets", p["offpast.u4"], "-out", "$OUT"), want: "-offsets: offset 1 is 1001, past the 1000 elements"},
		{name: "offsets of floats", args: with("-offsets", p["f32.npy"], "-out", "$OUT"), want: "dtype '<f4': offsets must be uint32 ('<u4') or int32 ('<i4')"},
		{name: "values u64 by key", args: []string{"-in", p["u64.npy"], "-keys", p["k1000.npy"], "-out", "$OUT"}, want: "reduce -keys takes u32, i32 or f32"},
		{name: "keys too few", args: with("-keys", p["k999.npy"], "-out", "$OUT"), want: "-keys " + p["k999.npy"] + " holds 999 keys for 1000 elements"},
		{name: "keys f64", args: with("-keys", p["kf64.npy"], "-out", "$OUT"), want: "dtype '<f8': keys must be u32, i32, f32 or u64 ('<u4', '<i4', '<f4' or '<u8')"},
		{name: "keys i64", args: with("-keys", p["ki64.npy"], "-out", "$OUT"), want: "dtype '<i8': keys must be u32, i32, f32 or u64"},
		{name: "keys raw without type", args: with("-keys", p["k1000.raw"], "-out", "$OUT"), want: "-keys " + p["k1000.raw"] + " is a raw file: give -keys-type T (u32, i32, f32 or u64)"},
		{name: "keys type unknown", args: with("-keys", p["k1000.raw"], "-keys-type", "u16", "-out", "$OUT"), want: "-keys-type u16: want u32, i32, f32 or u64"},
		{name: "keys type contradicts", args: with("-keys", p["k1000.npy"], "-keys-type", "f32", "-out", "$OUT"), want: "dtype '<u4' (u32) contradicts -keys-type f32"},
		{name: "keys raw not whole", args: with("-keys", p["koddraw"], "-keys-type", "u32", "-out", "$OUT"), want: "4002 bytes is not a whole number of 4-byte u32 keys"},
		{name: "keys 2-D", args: with("-keys", p["v2d.npy"], "-out", "$OUT"), want: "shape (10, 100): want a 1-D array"},
		{name: "no such keys file", args: with("-keys", filepath.Join(dir, "nope"), "-out", "$OUT"), want: "-keys: open " + filepath.Join(dir, "nope")},
		{name: "scan's flag", args: with("-inclusive"), want: "flag provided but not defined: -inclusive"},
		{name: "output directory missing", args: with("-out", "$DIR/no/r.npy"), want: "-out $DIR/no/r.npy: cannot create a file in", late: true},
	})
}

// TestBenchReductions runs bench's reduce_sum_u32, reduce_max_u32,
// reduce_by_key_u32 (once per keep ratio), segreduce_sum_u32 and
// histogram_u32, which check their outputs against Go themselves, with
// -phases; the rows carry the anchor's keep_ratio columns (the segments'
// 1024, the bins' 256).
func TestBenchReductions(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "bench", "-ops", "reduce_sum_u32,reduce_max_u32,reduce_by_key_u32,segreduce_sum_u32,histogram_u32",
		"-n", "0,13", "-keep", "0,0.5,1", "-reps", "2", "-warmup-ms", "0", "-json", "-phases")
	var rows []bench.Row
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 14 {
		t.Fatalf("bench -json: exit %d, %s %s", code, out, errOut)
	}
	ops := map[string]int{}
	for _, r := range rows {
		ops[r.Op]++
		keep := map[string]float64{"segreduce_sum_u32": 1024, "histogram_u32": 256}[r.Op]
		if r.MsMedian <= 0 || (r.N != 1 && r.N != 8192) || keep != 0 && r.KeepRatio != keep || r.Op == "reduce_sum_u32" && r.KeepRatio != 1 {
			t.Errorf("row %+v", r)
		}
	}
	if ops["reduce_by_key_u32"] != 6 || ops["reduce_sum_u32"] != 2 || ops["reduce_max_u32"] != 2 || ops["segreduce_sum_u32"] != 2 || ops["histogram_u32"] != 2 {
		t.Errorf("rows by operation %v", ops)
	}
	for _, want := range []string{"# reduce_by_key_u32 n=8192 keep=0.500: clear ", "# histogram_u32 n=8192: clear ", "# segreduce_sum_u32 n=8192: tiles "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no %q in the phases %q", want, errOut)
		}
	}
}
