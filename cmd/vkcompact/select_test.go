package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/compact"
)

// selectCase is one input for compact and split: a file, the flags that
// describe it, and the Go reference of the predicate.
type selectCase struct {
	name   string
	in     []byte   // the input file
	inName string   // its name; .npy names get .npy contents from the test
	args   []string // element and predicate flags
	size   int      // bytes per element
	flags  []byte   // the -flags file, if any
	flName string
	keep   func(i int, el []byte) bool
	outNpy string // the output's dtype when it is written as .npy; "" for raw
}

func u32le(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// reference returns the output of compact (or split) and the kept count.
func (c *selectCase) reference(split bool) ([]byte, int) {
	var kept, rejected []byte
	for i := 0; i < len(c.in)/c.size; i++ {
		el := c.in[i*c.size : (i+1)*c.size]
		if c.keep(i, el) {
			kept = append(kept, el...)
		} else {
			rejected = append(rejected, el...)
		}
	}
	k := len(kept) / c.size
	if split {
		kept = append(kept, rejected...)
	}
	return kept, k
}

// selectCases builds the inputs. Keys mix random values with the edge
// cases of each type.
func selectCases() []*selectCase {
	rng := rand.New(rand.NewPCG(7, 11))
	var cases []*selectCase

	u32 := make([]byte, 0, 4*5000)
	for range 5000 {
		v := rng.Uint32()
		if rng.IntN(4) == 0 {
			v = 0
		}
		u32 = binary.LittleEndian.AppendUint32(u32, v)
	}
	cases = append(cases, &selectCase{name: "u32 raw", in: u32, inName: "in.u32", args: []string{"-type", "u32", "-keep", "x >= 0x80000000"},
		size: 4, keep: func(_ int, el []byte) bool { return u32le(el) >= 0x80000000 }})

	var f32 []byte
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.5, float32(math.Nextafter32(0.5, 1)), 0, float32(math.Copysign(0, -1))}
	for i := range 3001 {
		v := rng.Float32()
		if i < len(specials) {
			v = specials[i]
		}
		f32 = binary.LittleEndian.AppendUint32(f32, math.Float32bits(v))
	}
	cases = append(cases, &selectCase{name: "f32 npy", in: f32, inName: "in.npy", args: []string{"-type", "f32", "-keep", "x > 0.5"},
		size: 4, keep: func(_ int, el []byte) bool { return math.Float32frombits(u32le(el)) > 0.5 }, outNpy: "<f4"})

	var i64 []byte
	for i := range 2049 {
		v := rng.Int64N(41) - 20
		switch i {
		case 0:
			v = math.MinInt64
		case 1:
			v = math.MaxInt64
		case 2:
			v = -5
		case 3:
			v = -6
		}
		i64 = binary.LittleEndian.AppendUint64(i64, uint64(v))
	}
	cases = append(cases, &selectCase{name: "i64 raw", in: i64, inName: "in.i64", args: []string{"-type", "i64", "-keep", "x < -5"},
		size: 8, keep: func(_ int, el []byte) bool { return int64(binary.LittleEndian.Uint64(el)) < -5 }})

	// Structs of 32 bytes with a float key at byte 28, as raw bytes, as
	// '|V32' and as rows of '|u1'.
	structs := make([]byte, 32*1500)
	for i := range 1500 {
		for j := range 7 {
			binary.LittleEndian.PutUint32(structs[32*i+4*j:], rng.Uint32())
		}
		binary.LittleEndian.PutUint32(structs[32*i+28:], math.Float32bits(rng.Float32()))
	}
	structKeep := func(_ int, el []byte) bool { return math.Float32frombits(u32le(el[28:])) > 0.5 }
	structArgs := []string{"-stride", "32", "-key", "28:f32", "-keep", "x > 0.5"}
	cases = append(cases,
		&selectCase{name: "struct raw", in: structs, inName: "in.bin", args: structArgs, size: 32, keep: structKeep, outNpy: "|V32"},
		&selectCase{name: "struct npy void", in: structs, inName: "in.npy", args: structArgs, size: 32, keep: structKeep},
		&selectCase{name: "struct npy bytes", in: structs, inName: "rows.npy", args: structArgs, size: 32, keep: structKeep})

	// Flags: 1001 elements, not a multiple of 4, so the byte flags need
	// their padding.
	var flagBytes, boolFlags []byte
	for range 1001 {
		flagBytes = append(flagBytes, []byte{0, 0, 1, 0x80, 0xff}[rng.IntN(5)])
		boolFlags = append(boolFlags, byte(rng.IntN(2)))
	}
	byFlag := func(fl []byte) func(int, []byte) bool { return func(i int, _ []byte) bool { return fl[i] != 0 } }
	cases = append(cases,
		&selectCase{name: "flags raw", in: u32[:4*1001], inName: "in.u32", args: []string{"-type", "u32"},
			size: 4, flags: flagBytes, flName: "flags.raw", keep: byFlag(flagBytes)},
		&selectCase{name: "flags npy bool", in: i64[:8*1001], inName: "in.npy", args: []string{"-type", "i64"},
			size: 8, flags: npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (1001,), }", boolFlags), flName: "flags.npy",
			keep: byFlag(boolFlags), outNpy: "<i8"})
	// uint32 flags whose low byte is often zero: read as bytes they would
	// keep the wrong elements.
	var wordFlags []byte
	var words []uint32
	for range 777 {
		w := []uint32{0, 0x100, 0x80000000, 1, 0}[rng.IntN(5)]
		words = append(words, w)
		wordFlags = binary.LittleEndian.AppendUint32(wordFlags, w)
	}
	cases = append(cases, &selectCase{name: "flags npy uint32", in: structs[:32*777], inName: "in.bin", args: []string{"-stride", "32", "-key", "0:u64"},
		size: 32, flags: npyFile("{'descr': '<u4', 'fortran_order': False, 'shape': (777,), }", wordFlags), flName: "flags.npy",
		keep: func(i int, _ []byte) bool { return words[i] != 0 }})

	// Enough elements for many chunks, and none at all.
	big := make([]byte, 4*300000)
	for i := range 300000 {
		binary.LittleEndian.PutUint32(big[4*i:], uint32(i*2654435761))
	}
	cases = append(cases,
		&selectCase{name: "u32 many chunks", in: big, inName: "in.u32", args: []string{"-type", "u32", "-keep", "x & 0x30"},
			size: 4, keep: func(_ int, el []byte) bool { return u32le(el)&0x30 != 0 }, outNpy: "<u4"},
		&selectCase{name: "empty", in: nil, inName: "in.u32", args: []string{"-type", "u32", "-keep", "nonzero"},
			size: 4, keep: func(int, []byte) bool { return true }, outNpy: "<u4"})
	return cases
}

// inputFile returns the input file's contents: the elements, under a
// header when the name ends in .npy.
func (c *selectCase) inputFile() []byte {
	n := len(c.in) / c.size
	switch {
	case !strings.HasSuffix(c.inName, ".npy"):
		return c.in
	case c.inName == "rows.npy":
		return npyFile(fmt.Sprintf("{'descr': '|u1', 'fortran_order': False, 'shape': (%d, %d), }", n, c.size), c.in)
	case c.size == 32:
		return append(npyHeaderBytes("|V32", uint64(n)), c.in...)
	}
	return append(npyHeaderBytes(npyTypes[parseTypeArg(c.args)], uint64(n)), c.in...)
}

// TestSelect runs compact and split on every case, and one of them in
// place too (compact for even cases, split for odd ones: every child
// process opens Vulkan, which is slow under the race detector), and
// checks the output file and the JSON against the Go reference.
func TestSelect(t *testing.T) {
	requireDevice(t)
	for i, c := range selectCases() {
		dir := t.TempDir()
		in := filepath.Join(dir, c.inName)
		writeTestFile(t, in, c.inputFile())
		args := append([]string{"-in", in}, c.args...)
		if c.flags != nil {
			fl := filepath.Join(dir, c.flName)
			writeTestFile(t, fl, c.flags)
			args = append(args, "-flags", fl)
		}
		for _, op := range []string{"compact", "split"} {
			want, kept := c.reference(op == "split")
			for _, inPlace := range []bool{false, true} {
				if inPlace && (op == "compact") != (i%2 == 0) {
					continue
				}
				name := fmt.Sprintf("%s %s inplace=%v", op, c.name, inPlace)
				outName := "out.raw"
				if c.outNpy != "" {
					outName = "out.npy"
				}
				out := filepath.Join(t.TempDir(), outName)
				runArgs := append([]string{op, "-out", out, "-json"}, args...)
				if inPlace {
					runArgs = append(runArgs, "-inplace")
				}
				code, stdout, stderr := runCLI(t, runArgs...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", name, code, stderr)
				}
				var js map[string]any
				if err := json.Unmarshal([]byte(stdout), &js); err != nil {
					t.Fatalf("%s: output is not JSON: %v\n%s", name, err, stdout)
				}
				n := len(c.in) / c.size
				if js["kept"] != float64(kept) || js["total"] != float64(n) || js["rejected"] != float64(n-kept) ||
					js["op"] != op || js["stride"] != float64(c.size) || js["in_place"] != inPlace {
					t.Errorf("%s: JSON %s; want kept %d of %d", name, stdout, kept, n)
				}
				if ms, ok := js["gpu_ms"].(float64); !ok || ms < 0 {
					t.Errorf("%s: gpu_ms %v (lavapipe has timestamps)", name, js["gpu_ms"])
				}
				got := readOutput(t, out, c.outNpy, len(want)/c.size)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: output of %d bytes differs from the reference's %d", name, len(got), len(want))
				}
				if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
					t.Errorf("%s: the output directory holds %d files", name, len(entries))
				}
			}
		}
	}
}

// TestSelectSummary checks the text summary, and that an existing
// output file is replaced.
func TestSelectSummary(t *testing.T) {
	requireDevice(t)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	writeTestFile(t, in, []byte{1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0})
	writeTestFile(t, out, []byte("old contents"))
	code, stdout, stderr := runCLI(t, "compact", "-in", in, "-out", out, "-type", "i32", "-keep", "x != 3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "kept 3 of 4 (75.00%) in ") || !strings.Contains(stdout, " ms GPU time on ") ||
		strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Errorf("summary %q", stdout)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, []byte{1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0}) {
		t.Errorf("output % x", got)
	}
	// The output gets a new file's permissions, not a temporary file's.
	fresh, err := os.Create(filepath.Join(dir, "fresh"))
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	fi, err := os.Stat(out)
	want, err2 := os.Stat(fresh.Name())
	if err != nil || err2 != nil || fi.Mode() != want.Mode() {
		t.Errorf("output mode %v (%v), want %v (%v)", fi.Mode(), err, want.Mode(), err2)
	}
}

// TestSelectBadInput: every bad invocation or input file exits 2 with one
// "vkcompact:" line and creates no output.
func TestSelectBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		writeTestFile(t, p, b)
		return p
	}
	f4 := func(n int) []byte { return make([]byte, 4*n) }
	good := file("good.u32", f4(1000))
	f32npy := file("f32.npy", append(npyHeaderBytes("<f4", 1000), f4(1000)...))
	dict := func(descr, fortran, shape string) string {
		return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fortran, shape)
	}
	huge := filepath.Join(dir, "huge.u32")
	hugeErr := os.WriteFile(huge, nil, 0o644)
	if hugeErr == nil {
		hugeErr = os.Truncate(huge, 4<<32) // sparse: 2^32 elements
	}
	type badCase struct {
		name string
		args []string
		want string
	}
	cases := []badCase{
		{"missing -in", []string{"-type", "u32", "-keep", "nonzero"}, "missing -in FILE"},
		{"missing -out", []string{"-in", good, "-type", "u32", "-keep", "nonzero", "-out", ""}, "missing -out FILE"},
		{"no keep", []string{"-in", good, "-type", "u32"}, "missing -keep EXPR or -flags FILE"},
		{"keep and flags", []string{"-in", good, "-type", "u32", "-keep", "nonzero", "-flags", good}, "not both"},
		{"no type", []string{"-in", good, "-keep", "nonzero"}, "missing -type T"},
		{"type and stride", []string{"-in", good, "-type", "u32", "-stride", "8", "-key", "0:u32", "-keep", "nonzero"}, "not both"},
		{"stride without key", []string{"-in", good, "-stride", "8", "-keep", "nonzero"}, "both -stride BYTES and -key"},
		{"unknown type", []string{"-in", good, "-type", "u16", "-keep", "nonzero"}, `-type: unknown type "u16"`},
		{"unknown key type", []string{"-in", good, "-stride", "8", "-key", "0:f16", "-keep", "nonzero"}, `unknown type "f16"`},
		{"malformed key", []string{"-in", good, "-stride", "8", "-key", "4", "-keep", "nonzero"}, "want OFFSET:T"},
		{"stride not a multiple of 4", []string{"-in", good, "-stride", "30", "-key", "0:u32", "-keep", "nonzero"}, "-stride 30: want a multiple of 4"},
		{"stride too large", []string{"-in", good, "-stride", "512", "-key", "0:u32", "-keep", "nonzero"}, "from 4 to 256"},
		{"key outside the stride", []string{"-in", good, "-stride", "32", "-key", "32:f32", "-keep", "nonzero"}, "does not fit in a 32-byte element"},
		{"wide key at the end", []string{"-in", good, "-stride", "32", "-key", "28:f64", "-keep", "nonzero"}, "does not fit"},
		{"malformed expr", []string{"-in", good, "-type", "u32", "-keep", "y > 3"}, `keep expression "y > 3"`},
		{"empty expr", []string{"-in", good, "-type", "u32", "-keep", ""}, "keep expression"},
		{"constant out of range", []string{"-in", good, "-type", "u32", "-keep", "x < -5"}, "constant -5 is out of range for u32"},
		{"float constant, integer key", []string{"-in", good, "-type", "i32", "-keep", "x > 0.5"}, "not an integer"},
		{"mask on a float key", []string{"-in", f32npy, "-type", "f32", "-keep", "x & 1"}, "needs an integer key"},
		{"input not whole elements", []string{"-in", file("odd.raw", make([]byte, 10)), "-type", "u32", "-keep", "nonzero"}, "10 bytes is not a whole number of 4-byte elements"},
		{"struct input not whole", []string{"-in", good, "-stride", "12", "-key", "0:u32", "-keep", "nonzero"}, "not a whole number of 12-byte elements"},
		{"no such input", []string{"-in", filepath.Join(dir, "nope"), "-type", "u32", "-keep", "nonzero"}, "no such file"},
		{"input is a directory", []string{"-in", dir, "-type", "u32", "-keep", "nonzero"}, "not a regular file"},
		{"npy truncated header", []string{"-in", file("trunc.npy", npyHeaderBytes("<f4", 3)[:50]), "-type", "f32", "-keep", "nonzero"}, "corrupt .npy file"},
		{"npy short data", []string{"-in", file("short.npy", append(npyHeaderBytes("<f4", 3), f4(2)...)), "-type", "f32", "-keep", "nonzero"}, "is 3 items of 4 bytes; the file has 8"},
		{"npy garbage header", []string{"-in", file("garbage.npy", npyFile("{'descr': <f4}", nil)), "-type", "f32", "-keep", "nonzero"}, "corrupt .npy header"},
		{"npy version", []string{"-in", file("v9.npy", []byte("\x93NUMPY\x09\x00\x00\x00\x00\x00")), "-type", "f32", "-keep", "nonzero"}, "version 9.0"},
		{"npy dtype mismatch", []string{"-in", f32npy, "-type", "f64", "-keep", "nonzero"}, "dtype '<f4' does not match -type f64 (want '<f8')"},
		{"npy signedness mismatch", []string{"-in", f32npy, "-type", "u32", "-keep", "nonzero"}, "want '<u4'"},
		{"npy big-endian", []string{"-in", file("be.npy", npyFile(dict(">f4", "False", "(2,)"), f4(2))), "-type", "f32", "-keep", "nonzero"}, "big-endian dtype '>f4' is not supported"},
		{"npy fortran order", []string{"-in", file("fortran.npy", npyFile(dict("<f4", "True", "(2,)"), f4(2))), "-type", "f32", "-keep", "nonzero"}, "fortran_order is True"},
		{"npy 2-D", []string{"-in", file("2d.npy", npyFile(dict("<f4", "False", "(2, 3)"), f4(6))), "-type", "f32", "-keep", "nonzero"}, "want a 1-D array"},
		{"npy structured", []string{"-in", file("st.npy", npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", f4(2))), "-stride", "4", "-key", "0:f32", "-keep", "nonzero"}, "structured dtypes are not supported"},
		{"npy void of another stride", []string{"-in", file("v16.npy", npyFile(dict("|V16", "False", "(2,)"), f4(8))), "-stride", "32", "-key", "0:f32", "-keep", "nonzero"}, "does not match -stride 32"},
		{"flags too few", []string{"-in", good, "-type", "u32", "-flags", file("999.raw", make([]byte, 999))}, "holds 999 flags for 1000 elements"},
		{"flags too many", []string{"-in", good, "-type", "u32", "-flags", file("4000.raw", make([]byte, 4000))}, "holds 4000 flags for 1000 elements"},
		{"flags npy count", []string{"-in", good, "-type", "u32", "-flags", file("f999.npy", npyFile(dict("|b1", "False", "(999,)"), make([]byte, 999)))}, "holds 999 flags"},
		{"flags npy dtype", []string{"-in", good, "-type", "u32", "-flags", f32npy}, "flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')"},
		{"output directory missing", []string{"-in", good, "-type", "u32", "-keep", "nonzero", "-out", filepath.Join(dir, "no", "out")}, "cannot create a file in"},
		{"output is a directory", []string{"-in", good, "-type", "u32", "-keep", "nonzero", "-out", dir}, "is a directory"},
		{"no such device", []string{"-in", good, "-type", "u32", "-keep", "nonzero", "-device", "no-such-gpu"}, "no device name contains"},
		{"device index", []string{"-in", good, "-type", "u32", "-keep", "nonzero", "-device", "99"}, "out of range"},
		{"unknown flag", []string{"-in", good, "-type", "u32", "-keep", "nonzero", "-bogus"}, "flag provided but not defined"},
	}
	if hugeErr == nil {
		cases = append(cases, badCase{"more than 2^32-1 elements", []string{"-in", huge, "-type", "u32", "-keep", "nonzero"}, "4294967296 elements: at most 4294967295"})
	} else {
		t.Logf("no sparse file for the 2^32-element case: %v", hugeErr)
	}
	for _, op := range []string{"compact", "split"} {
		for _, tc := range cases {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "out.npy")
			args := append([]string{op, "-out", out}, tc.args...)
			code, _, stderr := runCLI(t, args...)
			if strings.Contains(stderr, "no Vulkan loader") {
				continue // the device cases need a loader; others never reach it
			}
			if code != 2 || !strings.HasPrefix(stderr, "vkcompact: ") || !strings.Contains(stderr, tc.want) ||
				strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
				t.Errorf("%s %s: exit %d, stderr %q; want exit 2 and one line mentioning %q", op, tc.name, code, stderr, tc.want)
			}
			if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
				t.Errorf("%s %s: left %d file(s) in the output directory", op, tc.name, len(entries))
			}
		}
	}
	if code, _, stderr := runCLI(t, "compact", "-h"); code != 0 || !strings.Contains(stderr, "-inplace") {
		t.Errorf("compact -h: exit %d, %q", code, stderr)
	}
}

func writeTestFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readOutput reads an output file: raw, or a .npy file of n items of the
// dtype descr.
func readOutput(t *testing.T, path, descr string, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if descr == "" {
		return b
	}
	h, err := readNpyBytes(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if h.descr != descr || !slices.Equal(h.shape, []uint64{uint64(n)}) || h.fortran {
		t.Errorf("%s: header %+v, want %s of shape (%d,)", path, *h, descr, n)
	}
	return b[h.dataOff:]
}

// parseTypeArg returns the key type a case's -type flag names.
func parseTypeArg(args []string) compact.Type {
	t, _ := compact.ParseType(args[slices.Index(args, "-type")+1])
	return t
}
