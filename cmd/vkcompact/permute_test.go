package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// permuteElems is one kind of element TestGatherScatter moves: the
// flags that describe it, its size, and the input file's header (nil:
// raw).
type permuteElems struct {
	name   string
	flags  []string
	size   int
	header func(n int) []byte
}

// permuteKinds are the elements TestGatherScatter moves: plain 4- and
// 8-byte types, raw structs, void items and packed records of 7 bytes.
func permuteKinds() []permuteElems {
	dict := func(descr string) func(n int) []byte {
		return func(n int) []byte {
			return npyFile(fmt.Sprintf("{'descr': %s, 'fortran_order': False, 'shape': (%d,), }", descr, n), nil)
		}
	}
	return []permuteElems{
		{name: "u32 raw", flags: []string{"-type", "u32"}, size: 4},
		{name: "f32", size: 4, header: dict("'<f4'")},
		{name: "i64", size: 8, header: dict("'<i8'")},
		{name: "structs of 12 bytes", flags: []string{"-stride", "12"}, size: 12},
		{name: "void items of 16 bytes", size: 16, header: dict("'|V16'")},
		{name: "records of 7 bytes", size: 7, header: dict("[('a', '|u1'), ('k', '<f4'), ('id', '<u2')]")},
		{name: "records of 20 bytes", size: 20, header: dict("[('x', '<f8'), ('y', '<f8'), ('id', '<u4')]")},
	}
}

// writeElems writes n random elements of k to dir/name and returns the
// path and the elements' bytes.
func writeElems(t *testing.T, rng *rand.Rand, dir, name string, k permuteElems, n int) (string, []byte) {
	data := make([]byte, n*k.size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var file []byte
	if k.header != nil {
		file = k.header(n)
		name += ".npy"
	}
	p := filepath.Join(dir, name)
	writeTestFile(t, p, append(file, data...))
	return p, data
}

// indexFile writes indices as the dtype descr (.npy; raw uint32 for "")
// and returns its path.
func indexFile(t *testing.T, dir, name, descr string, idx []uint64) string {
	switch descr {
	case "":
		return cliInput(t, dir, name+".raw", "", cliElems(idx, 4), 4)
	case "<i8", "<u8":
		return cliInput(t, dir, name+".npy", descr, cliElems(idx, 8), 8)
	}
	return cliInput(t, dir, name+".npy", descr, cliElems(idx, 4), 4)
}

// readData reads an output file's data: past the header of a .npy file.
func readData(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := readNpyBytes(b); err == nil {
		return b[h.DataOffset:]
	}
	return b
}

// TestGatherScatter gathers random elements of every kind by random
// indices (repeats, fewer and more indices than elements, every index
// dtype), and scatters them by a permutation and into a larger file
// (-into), and checks every output byte for byte against Go.
func TestGatherScatter(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(49, 6))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	descrs := []string{"", "<u4", "<i4", "<i8", "<u8"}
	for i, k := range permuteKinds() {
		n := []int{3000, 1, 777, 5000}[i%4]
		in, data := writeElems(t, rng, dir, fmt.Sprintf("in%d", i), k, n)
		ext := filepath.Ext(in)
		// Gather m positions.
		m := []int{n * 2, n, n / 2, 0}[i%4]
		idx := make([]uint64, m)
		for p := range idx {
			idx[p] = uint64(rng.IntN(n))
		}
		out := filepath.Join(outDir, fmt.Sprintf("g%d%s", i, ext))
		ifile := indexFile(t, dir, fmt.Sprintf("i%d", i), descrs[i%len(descrs)], idx)
		name := fmt.Sprintf("gather %d of %d %s", m, n, k.name)
		code, stdout, stderr := runCLI(t, append([]string{"gather", "-in", in, "-indices", ifile, "-out", out, "-json"}, k.flags...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		cliCheckJSON(t, name, cliJSON(t, name, stdout), map[string]any{"op": "gather", "n": strconv.Itoa(n), "indices": strconv.Itoa(m), "out": strconv.Itoa(m)})
		var want []byte
		for _, x := range idx {
			want = append(want, data[int(x)*k.size:(int(x)+1)*k.size]...)
		}
		if got := readData(t, out); !bytes.Equal(got, want) {
			t.Errorf("%s: the output differs from the reference", name)
		}
		// Scatter by a permutation, then into a larger file.
		perm := rng.Perm(n)
		pidx := make([]uint64, n)
		for p, x := range perm {
			pidx[p] = uint64(x)
		}
		pfile := indexFile(t, dir, fmt.Sprintf("p%d", i), descrs[(i+1)%len(descrs)], pidx)
		into, base := writeElems(t, rng, dir, fmt.Sprintf("into%d", i), k, 2*n+3)
		slots := rng.Perm(2*n + 3)[:n]
		sidx := make([]uint64, n)
		for p, x := range slots {
			sidx[p] = uint64(x)
		}
		sfile := indexFile(t, dir, fmt.Sprintf("s%d", i), descrs[(i+2)%len(descrs)], sidx)
		for _, sc := range []struct {
			args  []string
			slots []int
			base  []byte
		}{
			{[]string{"-indices", pfile}, perm, make([]byte, n*k.size)},
			{[]string{"-indices", sfile, "-into", into}, slots, base},
		} {
			name := fmt.Sprintf("scatter %d %s %v", n, k.name, sc.args)
			out := filepath.Join(outDir, fmt.Sprintf("s%d%s", i, ext))
			code, stdout, stderr := runCLI(t, append(append([]string{"scatter", "-in", in, "-out", out, "-json"}, sc.args...), k.flags...)...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			want := bytes.Clone(sc.base)
			for p, x := range sc.slots {
				copy(want[x*k.size:], data[p*k.size:(p+1)*k.size])
			}
			cliCheckJSON(t, name, cliJSON(t, name, stdout), map[string]any{"op": "scatter", "out": strconv.Itoa(len(want) / k.size)})
			if got := readData(t, out); !bytes.Equal(got, want) {
				t.Errorf("%s: the output differs from the reference", name)
			}
		}
	}
}

// TestArgsort runs sort -argsort on keys of every type, ascending,
// descending and by a bit range, and checks the order against a Go
// stable sort.
func TestArgsort(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(49, 7))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	for i, typ := range reduceTypes {
		for _, r := range []struct {
			n          int
			descending bool
			bits       string
		}{{3000, false, ""}, {1000, true, ""}, {2000, false, "3:11"}, {0, false, ""}} {
			size := int(typ.Size())
			keys := cliSortKeys(rng, typ, r.n)
			in := cliInput(t, dir, fmt.Sprintf("k%d-%d.npy", i, r.n), npy.Dtype(typ), cliElems(keys, size), size)
			out := filepath.Join(outDir, "order.npy")
			args := []string{"sort", "-argsort", "-in", in, "-out", out, "-json"}
			lo, hi := uint32(0), 8*typ.Size()
			if r.descending {
				args = append(args, "-descending")
			}
			if r.bits != "" {
				args = append(args, "-bits", r.bits)
				fmt.Sscanf(r.bits, "%d:%d", &lo, &hi)
			}
			name := fmt.Sprintf("argsort of %d %v descending=%v bits=%q", r.n, typ, r.descending, r.bits)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			cliCheckJSON(t, name, cliJSON(t, name, stdout), map[string]any{"op": "sort", "argsort": true, "values": false, "n": strconv.Itoa(r.n)})
			got := readOutput(t, out, "<u4", r.n)
			for p, w := range cliSortRef(typ, keys, r.descending, lo, hi) {
				if g := binary.LittleEndian.Uint32(got[4*p:]); g != w {
					t.Errorf("%s: position %d holds %d, want %d", name, p, g, w)
					break
				}
			}
		}
	}
}

// permuteBadCases are gather's and scatter's: the indices, the elements
// and scatter's -into.
func permuteBadCases(t *testing.T, dir string, p map[string]string) []badCase {
	idx := func(descr string, v ...uint64) []byte {
		size := 4
		if descr == "<i8" || descr == "<u8" {
			size = 8
		}
		return append(npyHeaderBytes(descr, uint64(len(v))), cliElems(v, size)...)
	}
	ascending := make([]uint64, 1000)
	for i := range ascending {
		ascending[i] = uint64(i)
	}
	twice := append([]uint64{5}, ascending[1:]...) // 5 at positions 0 and 5
	files := map[string][]byte{
		"ipast.npy":    idx("<u4", 0, 999, 1000),
		"ineg.npy":     idx("<i4", 3, 0xffffffff),
		"ineg8.npy":    idx("<i8", 2, 1, 1<<63),
		"ibig.npy":     idx("<u8", 1<<32),
		"if4.npy":      idx("<f4", 0),
		"iodd.raw":     make([]byte, 6),
		"iperm.npy":    idx("<u4", ascending...),
		"itwice.npy":   idx("<u4", twice...),
		"ishort.npy":   idx("<u4", ascending[:999]...),
		"into10.npy":   append(npyHeaderBytes("<u4", 10), make([]byte, 40)...),
		"intof4.npy":   append(npyHeaderBytes("<f4", 2000), make([]byte, 8000)...),
		"rec2.npy":     npyFile("{'descr': [('a', '|u1'), ('b', '|u1')], 'fortran_order': False, 'shape': (3,), }", make([]byte, 6)),
		"void10.npy":   npyFile("{'descr': '|V10', 'fortran_order': False, 'shape': (3,), }", make([]byte, 30)),
		"recwhole.npy": npyFile("{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (3,), }", make([]byte, 24)),
	}
	for name, b := range files {
		p[name] = filepath.Join(dir, name)
		writeTestFile(t, p[name], b)
	}
	good := p["good.u32"]
	g := func(indices string, args ...string) []string {
		return append([]string{"-in", good, "-type", "u32", "-indices", p[indices], "-out", "$OUT"}, args...)
	}
	var cases []badCase
	for _, cmd := range []string{"gather", "scatter"} {
		cases = append(cases, forCommand(cmd, []badCase{
			{name: "missing -indices", args: []string{"-in", good, "-type", "u32", "-out", "$OUT"}, want: "missing -indices FILE"},
			{name: "missing -out", args: []string{"-in", good, "-type", "u32", "-indices", p["iperm.npy"]}, want: "missing -out FILE"},
			{name: "negative index", args: g("ineg.npy"), want: "-indices " + p["ineg.npy"] + ": index 1 is negative (-1)"},
			{name: "negative int64 index", args: g("ineg8.npy"), want: "index 2 is negative (-9223372036854775808)"},
			{name: "index past uint32", args: g("ibig.npy"), want: "index 0 is 4294967296: indices are uint32, at most 4294967295"},
			{name: "float indices", args: g("if4.npy"), want: "dtype '<f4': indices must be integers: uint32 ('<u4'), int32 ('<i4'), int64 ('<i8') or uint64 ('<u8')"},
			{name: "indices not whole", args: g("iodd.raw"), want: "6 bytes is not a whole number of 4-byte indices"},
			{name: "indices 2-D", args: g("v2d.npy"), want: "shape (10, 100): want a 1-D array"},
			{name: "no such indices file", args: []string{"-in", good, "-type", "u32", "-indices", filepath.Join(dir, "nope"), "-out", "$OUT"}, want: "-indices: open " + filepath.Join(dir, "nope")},
			{name: "missing -type", args: []string{"-in", good, "-indices", p["iperm.npy"], "-out", "$OUT"}, want: "missing -type T or -stride BYTES"},
			{name: "unknown type", args: []string{"-in", good, "-type", "u16", "-indices", p["iperm.npy"], "-out", "$OUT"}, want: `-type: unknown type "u16"`},
			{name: "-stride 10", args: []string{"-in", good, "-stride", "10", "-indices", p["iperm.npy"], "-out", "$OUT"}, want: "-stride 10: want a multiple of 4 from 4 to 256"},
			{name: "-stride and -type", args: []string{"-in", good, "-stride", "8", "-type", "u32", "-indices", p["iperm.npy"], "-out", "$OUT"}, want: "give -type T for plain elements, or -stride BYTES"},
			{name: "records of 2 bytes", args: []string{"-in", p["rec2.npy"], "-indices", p["iperm.npy"], "-out", "$OUT"}, want: "records of 2 bytes: " + cmd + " moves records of 4 to 256 bytes"},
			{name: "void items of 10 bytes", args: []string{"-in", p["void10.npy"], "-indices", p["iperm.npy"], "-out", "$OUT"}, want: "dtype '|V10': " + cmd + " moves void items of a multiple of 4 bytes"},
			{name: "records and -type", args: []string{"-in", p["recwhole.npy"], "-type", "f32", "-indices", p["iperm.npy"], "-out", "$OUT"}, want: "a record array: -type is for plain arrays (the records move whole)"},
			{name: "records and another -stride", args: []string{"-in", p["recwhole.npy"], "-stride", "12", "-indices", p["iperm.npy"], "-out", "$OUT"}, want: "-stride 12 contradicts the records' 8 bytes"},
		})...)
	}
	cases = append(cases, forCommand("gather", []badCase{
		{name: "index past the input", args: g("ipast.npy"), want: "-indices " + p["ipast.npy"] + ": index 2 is 1000: past the input's 1000 elements"},
		{name: "-into is scatter's", args: g("iperm.npy", "-into", good), want: "flag provided but not defined: -into"},
	})...)
	cases = append(cases, forCommand("scatter", []badCase{
		{name: "fewer indices than elements", args: g("ishort.npy"), want: "holds 999 indices for 1000 elements: a scatter takes one per element"},
		{name: "indices of another count", args: g("ipast.npy"), want: "holds 3 indices for 1000 elements: a scatter takes one per element"},
		{name: "an index twice", args: g("itwice.npy"), want: "index 5 is 5 again: a scatter writes each slot once"},
		{name: "index past the output", args: g("iperm.npy", "-into", p["into10.npy"]), want: "index 10 is 10: past the output's 10 elements"},
		{name: "-into of another type", args: g("iperm.npy", "-into", p["intof4.npy"]), want: "dtype '<f4' does not match -type u32 (want '<u4')"},
		{name: "-into of another dtype", args: []string{"-in", p["f32.npy"], "-indices", p["iperm.npy"], "-into", p["v1000.npy"], "-out", "$OUT"}, want: "its elements ('<u4') are not the input's ('<f4')"},
		{name: "no such -into file", args: g("iperm.npy", "-into", filepath.Join(dir, "nope")), want: "-into: open " + filepath.Join(dir, "nope")},
	})...)
	return cases
}

// argsortBadCases are sort -argsort's.
func argsortBadCases(p map[string]string) []badCase {
	good := p["good.u32"]
	return forCommand("sort", []badCase{
		{name: "-argsort with values", args: []string{"-in", good, "-type", "u32", "-out", "$OUT", "-argsort", "-values", p["v1000.npy"], "-values-out", "$VOUT"}, want: "-argsort writes the keys' order as -out: it takes no -values"},
		{name: "-argsort of structs", args: []string{"-in", good, "-stride", "8", "-key", "0:u32", "-out", "$OUT", "-argsort"}, want: "-argsort orders plain keys"},
		{name: "-argsort of records", args: []string{"-in", p["rec.npy"], "-key", "x", "-out", "$OUT", "-argsort"}, want: "-argsort orders plain keys"},
		{name: "-argsort bad boolean", args: []string{"-in", good, "-type", "u32", "-out", "$OUT", "-argsort=perhaps"}, want: `invalid boolean value "perhaps" for -argsort`},
	})
}
