package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// fixtures is the module's testdata folder: the shared fixtures that
// testdata/make.py makes with NumPy (the root package's TestFixtures
// checks that they are what it makes).
var fixtures = filepath.Join("..", "..", "testdata")

// fixtureCase is a case of testdata/cases.json: a command on a fixture,
// and NumPy's outputs.
type fixtureCase struct {
	Name    string            `json:"name"`
	Args    []string          `json:"args"`    // the command and its flags, the files relative to testdata/
	Outputs map[string]string `json:"outputs"` // each output flag's file as NumPy writes it, relative to testdata/
	JSON    map[string]any    `json:"json"`    // what the command's JSON holds
	Short   bool              `json:"short"`   // run in the short form too
}

// fixtureCases returns the cases of testdata/cases.json whose input is in
// the folder dir (arrays, records).
func fixtureCases(t *testing.T, dir string) []fixtureCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all, cases []fixtureCase
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	for _, c := range all {
		if i := slices.Index(c.Args, "-in"); i >= 0 && strings.HasPrefix(c.Args[i+1], dir+"/") {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		t.Fatalf("cases.json has no cases on %s/", dir)
	}
	return cases
}

// runFixtureCases runs each case (in the short form, those marked short)
// with its outputs in a temporary folder and -json, and compares every
// output file with NumPy's (npyDiff), and the JSON with what NumPy
// counted.
func runFixtureCases(t *testing.T, cases []fixtureCase) {
	t.Helper()
	ran := 0
	for _, c := range cases {
		if vktest.Short() && !c.Short {
			continue
		}
		ran++
		args := slices.Clone(c.Args)
		for i, a := range args {
			if strings.HasSuffix(a, ".npy") {
				args[i] = filepath.Join(fixtures, a)
			}
		}
		dir := vktest.TempDir(t)
		flags := slices.Sorted(func(yield func(string) bool) {
			for f := range c.Outputs {
				if !yield(f) {
					return
				}
			}
		})
		for _, f := range flags {
			args = append(args, f, filepath.Join(dir, strings.TrimLeft(f, "-")+".npy"))
		}
		code, stdout, stderr := runCLI(t, append(args, "-json")...)
		if code != 0 {
			t.Errorf("%s: vkcompact %q: exit %d: %s", c.Name, args, code, stderr)
			continue
		}
		for _, f := range flags {
			compareNpy(t, c.Name+" "+f, filepath.Join(dir, strings.TrimLeft(f, "-")+".npy"), filepath.Join(fixtures, c.Outputs[f]))
		}
		js := cliJSON(t, c.Name, stdout)
		for k, want := range c.JSON {
			got := js[k]
			if n, ok := got.(json.Number); ok {
				f, err := n.Float64()
				if err != nil {
					t.Errorf("%s: JSON %q is %v", c.Name, k, n)
				}
				got = f
			}
			if got != want {
				t.Errorf("%s: JSON %q is %v, NumPy's %v", c.Name, k, js[k], want)
			}
		}
	}
	t.Logf("%d of %d cases, each output as NumPy's", ran, len(cases))
}

// compareNpy compares the .npy file got with NumPy's, want (npyDiff).
func compareNpy(t *testing.T, name, got, want string) {
	t.Helper()
	g, err := os.ReadFile(got)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if diff := npyDiff(g, w); diff != "" {
		t.Errorf("%s: %s", name, diff)
	}
}

// npyDiff compares a .npy file with NumPy's, want: the header's dtype,
// order and shape, and the data byte for byte. It names the first
// difference, in the header or the item; "" where there is none. The
// headers' padding may differ: NumPy from 1.2x leaves room for the shape
// to grow, which the command's header does not.
func npyDiff(got, want []byte) string {
	gh, gerr := readNpyBytes(got)
	wh, werr := readNpyBytes(want)
	switch {
	case gerr != nil || werr != nil:
		return fmt.Sprintf("the output reads as %v (NumPy's as %v)", gerr, werr)
	case gh.Descr != wh.Descr || gh.Fortran != wh.Fortran || !slices.Equal(gh.Shape, wh.Shape):
		return fmt.Sprintf("header of dtype %s, shape %s (fortran_order %v), NumPy's %s, %s (%v)",
			gh.Descr, gh.ShapeString(), gh.Fortran, wh.Descr, wh.ShapeString(), wh.Fortran)
	}
	data, wdata := got[gh.DataOffset:], want[wh.DataOffset:]
	if bytes.Equal(data, wdata) {
		return ""
	}
	i := 0
	for i < min(len(data), len(wdata)) && data[i] == wdata[i] {
		i++
	}
	size := max(wh.ItemSize, 1)
	item := uint64(i) / size
	at := func(b []byte) []byte { return b[min(item*size, uint64(len(b))):min((item+1)*size, uint64(len(b)))] }
	return fmt.Sprintf("%d bytes of data, NumPy's %d; item %d differs: % x, NumPy's % x", len(data), len(wdata), item, at(data), at(wdata))
}

// TestNumPyRecords runs compact, split, partition3, sort, unique and rle
// on the record arrays of the fixtures, which NumPy wrote (packed,
// align=True, nested, sub-arrays, titles, explicit offsets, a big-endian
// field riding along, names in Latin-1 and beyond, the empty array), by
// field name, and gather and scatter, which move records whole, and
// compares every output with NumPy's own result, written by NumPy: the
// input's dtype, the records whole (a[mask], np.concatenate([a[mask],
// a[~mask]]), a[np.argsort(key, kind='stable')], the first record of
// each run (with its value, unique -values), np.take, out[indices] = a),
// their padding included. Then it runs
// the bad inputs NumPy wrote and checks their messages. The short form
// runs one case of each kind of record.
func TestNumPyRecords(t *testing.T) {
	requireDevice(t)
	runFixtureCases(t, fixtureCases(t, "records"))

	p := func(name string) string { return filepath.Join(fixtures, name) }
	sortTypes := "sort takes keys of u32, i32, f32 or u64 ('<u4', '<i4', '<f4' or '<u8')"
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"sort", "-in", p("records/parts.npy"), "-key", "depth"}, "-key 'depth': -in " + p("records/parts.npy") + " has no field of that name; its fields: 'x': '<f4', 'y': '<f4', 'z': '<f4', 'life': '<f4'"},
		{[]string{"compact", "-in", p("records/parts.npy"), "-keep", "x > 0"}, "a record array: name the key field with -key FIELD (fields: 'x': '<f4', 'y': '<f4', 'z': '<f4', 'life': '<f4')"},
		{[]string{"split", "-in", p("records/nested.npy"), "-key", "pos", "-keep", "x > 0"}, "-key pos: field 'pos' is a struct: name one of its fields (pos.x, pos.y, pos.z)"},
		{[]string{"sort", "-in", p("records/nested.npy"), "-key", "vel"}, "-key vel: field 'vel' is a sub-array ('<f4' (3,)): a key is one value, and sub-arrays cannot be keys"},
		{[]string{"sort", "-in", p("records/nested.npy"), "-key", "be"}, "-key be: field 'be' is '>f8': " + sortTypes},
		{[]string{"compact", "-in", p("bad/bigendian.npy"), "-key", "x", "-keep", "x > 0"}, "-key x: field 'x' is big-endian ('>f4'): save the records little-endian (a.astype(a.dtype.newbyteorder('<')))"},
		{[]string{"sort", "-in", p("bad/object.npy"), "-key", "x"}, "field 'o' holds Python objects ('|O'): NumPy pickled the array, and objects cannot go to the GPU"},
		{[]string{"split", "-in", p("bad/subarray.npy"), "-key", "v", "-keep", "x > 0"}, "field 'v' is a sub-array ('<f4' (3,))"},
		{[]string{"compact", "-in", p("bad/wide.npy"), "-key", "k", "-keep", "x > 0"}, "records of 260 bytes: at most 256 (the library's MaxStride)"},
		{[]string{"sort", "-in", p("bad/types.npy"), "-key", "h"}, "-key h: field 'h' is '<f2': " + sortTypes},
		{[]string{"compact", "-in", p("bad/types.npy"), "-key", "s", "-keep", "nonzero"}, "-key s: field 's' is '|S4': compact takes keys of u32, i32, f32, u64, i64 or f64 ('<u4', '<i4', '<f4', '<u8', '<i8' or '<f8')"},
		{[]string{"sort", "-in", p("bad/types.npy"), "-key", "i"}, "-key i: field 'i' is i64 ('<i8'): " + sortTypes},
		{[]string{"sort", "-in", p("bad/2d.npy"), "-key", "x"}, "shape (2, 3): want a 1-D array of records"},
		{[]string{"sort", "-in", p("arrays/f32.npy"), "-type", "u32"}, "dtype '<f4' does not match -type u32 (want '<u4')"},
		{[]string{"sort", "-in", p("records/parts.npy"), "-key", "life", "-type", "u32"}, "-type u32 contradicts the key field 'life', which is f32 ('<f4')"},
		{[]string{"scan", "-in", p("records/parts.npy")}, "scan takes a plain array of u32, i32 or f32"},
	} {
		args := append(bad.args, "-out", filepath.Join(vktest.TempDir(t), "out.npy"))
		code, stdout, stderr := runCLI(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, bad.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("vkcompact %q: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %q", args, code, stdout, stderr, bad.want)
		}
	}
}

// TestNumPyArrays runs every file command on the plain arrays of each key
// type of the fixtures (runs of equal values; the floats with
// infinities, signed zeros, NaNs of both signs and a denormal) and
// compares every output with NumPy's: a[mask], the split, the three
// groups, the stable sort (floats by totalOrder) with values moved along,
// and its order (np.argsort), the first of each run and the runs' lengths
// (keys equal as their type compares them), the prefix sums wrapping,
// the min and max scans (np.minimum.accumulate, np.maximum.accumulate)
// and the scans by key (per run of keys), unique by key (np.unique with
// return_index, the values taken there), the reductions (np.add.reduce,
// np.minimum.reduce, np.maximum.reduce, np.argmin, np.argmax; within
// segments np.add.reduceat; by key), the histograms (np.histogram),
// np.take and scatter. The short form runs a few.
func TestNumPyArrays(t *testing.T) {
	requireDevice(t)
	cases := fixtureCases(t, "arrays")
	ops := map[string]bool{}
	for _, c := range cases {
		ops[c.Args[0]] = true
	}
	if want := []string{"compact", "gather", "histogram", "partition3", "reduce", "rle", "scan", "scatter", "sort", "split", "unique"}; !slices.Equal(slices.Sorted(func(yield func(string) bool) {
		for op := range ops {
			if !yield(op) {
				return
			}
		}
	}), want) {
		t.Errorf("cases.json's commands on arrays: %v, want %v", ops, want)
	}
	runFixtureCases(t, cases)
}

// TestNpyDiff: a difference in the header or in an item is named, and
// equal files, or files whose headers differ in their padding alone, have
// none.
func TestNpyDiff(t *testing.T) {
	want := append(npyHeaderBytes("<u4", 3), 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0)
	for name, got := range map[string][]byte{
		"item 2 differs: 04 00 00 00, NumPy's 03 00 00 00": append(npyHeaderBytes("<u4", 3), 1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0),
		"header of dtype <i4":                              append(npyHeaderBytes("<i4", 3), 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0),
		"shape (2,)":                                       append(npyHeaderBytes("<u4", 2), 1, 0, 0, 0, 2, 0, 0, 0),
		"the output reads as":                              want[:len(want)-1],
	} {
		if diff := npyDiff(got, want); !strings.Contains(diff, name) {
			t.Errorf("%s: %q", name, diff)
		}
	}
	if diff := npyDiff(want, bytes.Clone(want)); diff != "" {
		t.Errorf("equal files: %q", diff)
	}
	// A header padded more, as NumPy pads one, is the same header.
	padded := append(npyFile("{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }"+strings.Repeat(" ", 80), nil), want[len(want)-12:]...)
	if diff := npyDiff(padded, want); diff != "" || len(padded) == len(want) {
		t.Errorf("a header padded to %d bytes: %q", len(padded)-12, diff)
	}
}
