package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/bench"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// uniqueKeyRuns returns n keys of t (element bits) in runs of 1 to 5
// equal ones, each run's key drawn from a few distinct ones (so that
// equal keys recur apart), with zeros of both signs and NaNs among the
// floats'.
func uniqueKeyRuns(rng *rand.Rand, t vkcompact.Type, n int) []uint64 {
	distinct := make([]uint64, 10)
	for i := range distinct {
		distinct[i] = rng.Uint64()
		if t.Size() == 4 {
			distinct[i] &= math.MaxUint32
		}
	}
	switch t {
	case vkcompact.Float32:
		distinct = append(distinct, 0, 1<<31, 0x7fc00000, 0x7f800000, uint64(math.Float32bits(1.5)))
	case vkcompact.Float64:
		distinct = append(distinct, 0, 1<<63, 0x7ff8000000000000, 0x7ff0000000000000, math.Float64bits(1.5))
	}
	keys := make([]uint64, 0, n)
	for len(keys) < n {
		k := distinct[rng.IntN(len(distinct))]
		for range min(1+rng.IntN(5), n-len(keys)) {
			keys = append(keys, k)
		}
	}
	return keys
}

// sameKey reports whether the keys a and b of t (bits) are equal under
// -equal eq: "keys" as the type compares them (-0.0 equals 0.0, a NaN
// equals nothing), "bits" by their bits.
func sameKey(t vkcompact.Type, eq string, a, b uint64) bool {
	if eq == "keys" {
		switch t {
		case vkcompact.Float32:
			return math.Float32frombits(uint32(a)) == math.Float32frombits(uint32(b))
		case vkcompact.Float64:
			return math.Float64frombits(a) == math.Float64frombits(b)
		}
	}
	return a == b
}

// TestUniqueValues runs unique -values over keys of every type unique
// takes (in runs, the floats with both zeros and NaNs), under -equal keys
// and bits, with values of every type (.npy, or raw with -values-type),
// at sizes from none to several tiles, and checks the kept keys, their
// values and the JSON against Go.
func TestUniqueValues(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(51, 1))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	sizes := []int{6000, 1, 0, 777, 40003}
	i := 0
	for _, kt := range runsTypes {
		for _, vt := range runsTypes {
			i++
			n := sizes[i%len(sizes)]
			if vktest.Short() && n > 6000 {
				n = 3000
			}
			eq := []string{"keys", "bits"}[i%2]
			keys := uniqueKeyRuns(rng, kt, n)
			values := make([]uint64, n)
			for k := range values {
				values[k] = rng.Uint64()
			}
			ks, vs := int(kt.Size()), int(vt.Size())
			kin := cliInput(t, dir, fmt.Sprintf("k%d.npy", i), npy.Dtype(kt), cliElems(keys, ks), ks)
			args := []string{"unique", "-in", kin, "-equal", eq}
			vin := cliInput(t, dir, fmt.Sprintf("v%d.npy", i), npy.Dtype(vt), cliElems(values, vs), vs)
			if i%3 == 1 { // raw values need -values-type
				vin = cliInput(t, dir, fmt.Sprintf("v%d.raw", i), "", cliElems(values, vs), vs)
				args = append(args, "-values-type", vt.String())
			}
			out, vout := filepath.Join(outDir, fmt.Sprintf("k%d.npy", i)), filepath.Join(outDir, fmt.Sprintf("v%d.raw", i))
			name := fmt.Sprintf("%d %v keys (-equal %s) with %v values", n, kt, eq, vt)
			code, stdout, stderr := runCLI(t, append(args, "-values", vin, "-out", out, "-values-out", vout, "-json")...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			var wantKeys, wantValues []uint64
			for k := range keys {
				if k == 0 || !sameKey(kt, eq, keys[k], keys[k-1]) {
					wantKeys, wantValues = append(wantKeys, keys[k]), append(wantValues, values[k])
				}
			}
			cliCheckJSON(t, name, cliJSON(t, name, stdout), map[string]any{"op": "unique", "type": kt.String(), "values_type": vt.String(),
				"runs": strconv.Itoa(len(wantKeys)), "total": strconv.Itoa(n)})
			if got := readOutput(t, out, npy.Dtype(kt), len(wantKeys)); !bytes.Equal(got, cliElems(wantKeys, ks)) {
				t.Errorf("%s: the kept keys differ from the reference", name)
			}
			if got := readOutput(t, vout, "", 0); !bytes.Equal(got, cliElems(wantValues, vs)) {
				t.Errorf("%s: the kept values differ from the reference", name)
			}
		}
	}
}

// TestUniqueValuesStructs runs unique -values on 12-byte structs by a
// uint32 key at byte 4 (raw, -equal keys and elements) and on packed
// 7-byte records by their int32 field at byte 2 (which travel to the GPU
// in aligned slots), and checks the kept structs or records, whole, and
// their values against Go.
func TestUniqueValuesStructs(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(51, 2))
	dir := vktest.TempDir(t)
	const n = 3001
	var st, rec []byte
	values := make([]uint64, n)
	for i := range n {
		key := uint32(i / 3)
		st = binary.LittleEndian.AppendUint32(st, rng.Uint32N(2)) // -equal elements sees it
		st = binary.LittleEndian.AppendUint32(st, key)
		st = binary.LittleEndian.AppendUint32(st, 7)
		rec = binary.LittleEndian.AppendUint16(rec, uint16(rng.Uint32()))
		rec = binary.LittleEndian.AppendUint32(rec, uint32(int32(i/4)-300))
		rec = append(rec, byte(rng.Uint32()))
		values[i] = uint64(math.Float32bits(float32(i) / 4))
	}
	vin := cliInput(t, dir, "values.npy", "<f4", cliElems(values, 4), 4)
	recPath := filepath.Join(dir, "rec.npy")
	writeTestFile(t, recPath, npyFile(fmt.Sprintf("{'descr': [('a', '<u2'), ('k', '<i4'), ('b', '|u1')], 'fortran_order': False, 'shape': (%d,), }", n), rec))
	for _, c := range []struct {
		name, in, eq string
		data         []byte
		size, keyOff int
		args         []string
	}{
		{"structs by their key", cliInput(t, dir, "structs.raw", "", st, 12), "keys", st, 12, 4, []string{"-stride", "12", "-key", "4:u32"}},
		{"structs by every byte", filepath.Join(dir, "structs.raw"), "elements", st, 12, 4, []string{"-stride", "12", "-key", "4:u32"}},
		{"packed records by a field", recPath, "keys", rec, 7, 2, []string{"-key", "k"}},
	} {
		starts, _ := runsRef(c.data, c.size, c.keyOff, 4, false, c.eq)
		var want, wantValues []byte
		for _, s := range starts {
			want = append(want, c.data[int(s)*c.size:(int(s)+1)*c.size]...)
			wantValues = binary.LittleEndian.AppendUint32(wantValues, uint32(values[s]))
		}
		out, vout := filepath.Join(dir, "out"), filepath.Join(dir, "vout.npy")
		args := append([]string{"unique", "-in", c.in, "-equal", c.eq, "-values", vin, "-out", out, "-values-out", vout}, c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		if w := fmt.Sprintf("kept %d unique of %d with their f32 values ", len(starts), n); !strings.HasPrefix(stdout, w) {
			t.Errorf("%s: %q, want %q...", c.name, stdout, w)
		}
		if got := readOutput(t, out, "", 0); !bytes.Equal(got, want) { // raw: the records packed as they came
			t.Errorf("%s: the kept elements differ from the reference", c.name)
		}
		if got := readOutput(t, vout, "<f4", len(starts)); !bytes.Equal(got, wantValues) {
			t.Errorf("%s: the kept values differ from the reference", c.name)
		}
	}
}

// uniqueValuesBadCases are unique's -values, -values-type and
// -values-out.
func uniqueValuesBadCases(t *testing.T, dir string, p map[string]string) []badCase {
	files := map[string][]byte{
		"uv999.npy":  append(npyHeaderBytes("<u4", 999), make([]byte, 4*999)...),
		"uvf2.npy":   append(npyHeaderBytes("<f2", 1000), make([]byte, 2*1000)...),
		"uv1000.npy": append(npyHeaderBytes("<u8", 1000), make([]byte, 8*1000)...),
		"uv1000.raw": make([]byte, 4*1000),
		"uvoddraw":   make([]byte, 8*1000+4),
	}
	for name, b := range files {
		p[name] = filepath.Join(dir, name)
		writeTestFile(t, p[name], b)
	}
	with := func(args ...string) []string {
		return append([]string{"-in", p["good.u32"], "-type", "u32", "-out", "$OUT"}, args...)
	}
	vals := func(args ...string) []string { return with(append([]string{"-values-out", "$VOUT"}, args...)...) }
	return slices.Concat(forCommand("unique", []badCase{
		{name: "-values without -values-out", args: with("-values", p["uv1000.npy"]), want: "missing -values-out FILE for the kept values"},
		{name: "-values-out without -values", args: with("-values-out", "$VOUT"), want: "-values-out and -values-type need -values FILE"},
		{name: "-values-type without -values", args: with("-values-type", "u32"), want: "-values-out and -values-type need -values FILE"},
		{name: "-values in place", args: vals("-values", p["uv1000.npy"], "-inplace"), want: "-inplace: unique by key (-values) runs out of place"},
		{name: "same output twice", args: with("-values", p["uv1000.npy"], "-values-out", "$OUT"), want: "-out and -values-out name the same file"},
		{name: "values too few", args: vals("-values", p["uv999.npy"]), want: "-values " + p["uv999.npy"] + " holds 999 values for 1000 elements"},
		{name: "values f16", args: vals("-values", p["uvf2.npy"]), want: "dtype '<f2': values must be u32, i32, f32, u64, i64 or f64 ('<u4', '<i4', '<f4', '<u8', '<i8' or '<f8')"},
		{name: "values records", args: vals("-values", p["rec.npy"]), want: "values must be u32, i32, f32, u64, i64 or f64"},
		{name: "values raw without type", args: vals("-values", p["uv1000.raw"]), want: "-values " + p["uv1000.raw"] + " is a raw file: give -values-type T (u32, i32, f32, u64, i64 or f64)"},
		{name: "values type unknown", args: vals("-values", p["uv1000.raw"], "-values-type", "u16"), want: "-values-type u16: want u32, i32, f32, u64, i64 or f64"},
		{name: "values type contradicts", args: vals("-values", p["uv1000.npy"], "-values-type", "f64"), want: "dtype '<u8' (u64) contradicts -values-type f64"},
		{name: "values raw not whole", args: vals("-values", p["uvoddraw"], "-values-type", "u64"), want: "8004 bytes is not a whole number of 8-byte u64 values"},
		{name: "values raw of another count", args: vals("-values", p["uvoddraw"], "-values-type", "u32"), want: "holds 2001 values for 1000 elements"},
		{name: "values 2-D", args: vals("-values", p["v2d.npy"]), want: "shape (10, 100): want a 1-D array"},
		{name: "values fortran order", args: vals("-values", p["vfortran.npy"]), want: "fortran_order is True: save a C-order array"},
		{name: "no such values file", args: vals("-values", filepath.Join(dir, "nope")), want: "-values: open " + filepath.Join(dir, "nope")},
		{name: "values-out directory missing", args: vals("-values", p["uv1000.npy"], "-values-out", "$DIR/no/v.npy"), want: "-values-out $DIR/no/v.npy: cannot create a file in", late: true},
	}), forCommand("rle", []badCase{
		{name: "unique's -values", args: append(with("-values", p["uv1000.npy"]), "-lengths", "$VOUT"), want: "flag provided but not defined: -values"},
	}))
}

// TestBenchUniqueByKey runs bench's unique_by_key_u32 once per keep
// ratio, which checks its keys and values against Go itself, with
// -phases.
func TestBenchUniqueByKey(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "bench", "-ops", "unique_by_key_u32", "-n", "0,13", "-keep", "0,0.5,1", "-reps", "2", "-warmup-ms", "0", "-json", "-phases")
	var rows []bench.Row
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 6 {
		t.Fatalf("bench -json: exit %d, %s %s", code, out, errOut)
	}
	for i, r := range rows {
		if r.Op != "unique_by_key_u32" || r.MsMedian <= 0 || r.N != []uint64{1, 8192}[i/3] || r.KeepRatio != []float64{0, 0.5, 1}[i%3] {
			t.Errorf("row %+v", r)
		}
	}
	if want := "# unique_by_key_u32 n=8192 keep=0.500: "; !strings.Contains(errOut, want) {
		t.Errorf("no %q in the phases %q", want, errOut)
	}
}
