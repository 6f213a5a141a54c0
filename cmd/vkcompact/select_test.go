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

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
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
	noType bool   // run without the -type of args: the .npy input's header gives it
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
		size: 4, keep: func(_ int, el []byte) bool { return math.Float32frombits(u32le(el)) > 0.5 }, outNpy: "<f4", noType: true})

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
	return append(npyHeaderBytes(npy.Dtype(parseTypeArg(c.args)), uint64(n)), c.in...)
}

// TestSelect runs compact and split on every case, and one of them in
// place too (compact for even cases, split for odd ones: every child
// process opens Vulkan, which is slow under the race detector), and
// checks the output file and the JSON against the Go reference.
func TestSelect(t *testing.T) {
	requireDevice(t)
	for i, c := range selectCases() {
		dir := vktest.TempDir(t)
		in := filepath.Join(dir, c.inName)
		writeTestFile(t, in, c.inputFile())
		args := append([]string{"-in", in}, c.args...)
		if c.noType {
			i := slices.Index(args, "-type")
			args = slices.Delete(args, i, i+2)
		}
		if c.flags != nil {
			fl := filepath.Join(dir, c.flName)
			writeTestFile(t, fl, c.flags)
			args = append(args, "-flags", fl)
		}
		for oi, op := range []string{"compact", "split"} {
			if vktest.Short() && oi != i%2 {
				continue // the short form: each case one op, in turn (a process, and its pipelines, per run)
			}
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
				out := filepath.Join(vktest.TempDir(t), outName)
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
	dir := vktest.TempDir(t)
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
	if h.Descr != descr || !slices.Equal(h.Shape, []uint64{uint64(n)}) || h.Fortran {
		t.Errorf("%s: header %+v, want %s of shape (%d,)", path, *h, descr, n)
	}
	return b[h.DataOffset:]
}

// parseTypeArg returns the key type a case's -type flag names.
func parseTypeArg(args []string) vkcompact.Type {
	t, _ := vkcompact.ParseType(args[slices.Index(args, "-type")+1])
	return t
}
