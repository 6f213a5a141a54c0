package histogram_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// requireNumPy returns a Python interpreter that imports NumPy (the one
// VKCOMPACT_PYTHON names, else python3, else /usr/bin/python3, where
// Debian's python3-numpy goes), or skips t; in CI and under the test
// script, whose setup installs NumPy, its absence fails t.
func requireNumPy(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the NumPy comparisons run on the Linux legs")
	}
	for _, py := range []string{os.Getenv("VKCOMPACT_PYTHON"), "python3", "/usr/bin/python3"} {
		if py == "" {
			continue
		}
		if out, err := exec.Command(py, "-c", "import numpy; print(numpy.__version__)").Output(); err == nil {
			t.Logf("%s: NumPy %s", py, strings.TrimSpace(string(out)))
			return py
		}
	}
	if vktest.InCI() {
		t.Fatal("no Python with NumPy: scripts/setup.sh installs Debian's python3-numpy")
	}
	t.Skip("no Python with NumPy")
	return ""
}

// numpyCase is one np.histogram(a, bins, range=(lo, hi)) to compare.
type numpyCase struct {
	Type   string  `json:"dtype"` // uint32, int32, float32
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Bins   uint32  `json:"bins"`
	File   string  `json:"file"`
	Counts []int64 `json:"counts"` // NumPy's, filled in by the script
}

const numpyScript = `
import json, sys, numpy as np
cases = json.load(open(sys.argv[1]))
for c in cases:
    a = np.fromfile(c["file"], dtype=c["dtype"])
    lo, hi = c["lo"], c["hi"]
    if c["dtype"] != "float32":
        lo, hi = int(lo), int(hi)
    c["counts"] = np.histogram(a, bins=c["bins"], range=(lo, hi))[0].tolist()
json.dump(cases, open(sys.argv[1], "w"))
`

// TestNumPy has NumPy count random samples (some on and beside NumPy's
// float edges, some at the bounds, outside them, and for float32 NaN)
// with np.histogram(a, bins, range=(lo, hi)), and compares: the GPU's
// histogram by NumPyEdges with IncludeUpper must equal NumPy's counts
// exactly, for every type and range; the even bins with IncludeUpper
// must equal them where the rules agree (integer samples in a power of
// two of bins, float32 bins of a power-of-two width from 0); elsewhere it logs
// how many samples CUB's float32 arithmetic puts in another bin. The short
// form runs five of the ranges.
func TestNumPy(t *testing.T) {
	python := requireNumPy(t)
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	dir := vktest.TempDir(t)
	type spec struct {
		typ         vkcompact.Type
		lo, hi      float64
		bins        uint32
		evenMatches bool
	}
	specs := []spec{
		{vkcompact.Uint32, 0, 1 << 24, 256, true}, {vkcompact.Uint32, 3, 1000003, 256, true},
		{vkcompact.Uint32, 0, 1000, 7, false}, {vkcompact.Uint32, 10, 20, 6, false}, {vkcompact.Uint32, 0, 14, 100, false},
		{vkcompact.Int32, -140, 140, 1000, false},
		{vkcompact.Int32, -1000, 1000, 3, false}, {vkcompact.Int32, -(1 << 31), 1<<31 - 1, 4096, true},
		{vkcompact.Float32, 0, 1, 256, true}, {vkcompact.Float32, 0, 8, 64, true}, {vkcompact.Float32, -4, 4, 64, false},
		{vkcompact.Float32, f32(0.1), f32(0.9), 10, false}, {vkcompact.Float32, -3, 7, 1000, false},
		{vkcompact.Float32, f32(-1e-3), f32(2e-3), 4095, false},
	}
	if vktest.Short() {
		// One of each kind: integer ranges where the rules agree and
		// where NumPy's float64 edges land above whole numbers, float32
		// ranges exact and rounded.
		specs = []spec{specs[0], specs[4], specs[5], specs[8], specs[11]}
	}
	cases := make([]numpyCase, len(specs))
	data := make([][]uint32, len(specs))
	for i, s := range specs {
		h := histogram.Histogram{Elem: vkcompact.Plain(s.typ), Bins: s.bins, Lower: s.lo, Upper: s.hi}
		data[i] = samples(rng, h, nil, 20000)
		numpyOnEdges(s.typ, s.lo, s.hi, s.bins, data[i][:2000])
		file := filepath.Join(dir, fmt.Sprintf("case%d.bin", i))
		if err := os.WriteFile(file, bytesOf(data[i]), 0o644); err != nil {
			t.Fatal(err)
		}
		cases[i] = numpyCase{Type: map[vkcompact.Type]string{vkcompact.Uint32: "uint32", vkcompact.Int32: "int32", vkcompact.Float32: "float32"}[s.typ],
			Lo: s.lo, Hi: s.hi, Bins: s.bins, File: file}
	}
	caseFile := filepath.Join(dir, "cases.json")
	b, _ := json.Marshal(cases)
	if err := os.WriteFile(caseFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(python, "-c", numpyScript, caseFile).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	b, err := os.ReadFile(caseFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for i, s := range specs {
		want := make([]uint32, len(cases[i].Counts))
		for j, c := range cases[i].Counts {
			want[j] = uint32(c)
		}
		h := histogram.Histogram{Elem: vkcompact.Plain(s.typ), Bins: s.bins, Lower: s.lo, Upper: s.hi, IncludeUpper: true}
		even, byEdges, err := bothWays(ctx, s.typ, data[i], h)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(byEdges, want) {
			t.Errorf("%v [%v, %v] in %d bins: the histogram by NumPyEdges differs from np.histogram's (first bin %d)", s.typ, s.lo, s.hi, s.bins, firstDiff(byEdges, want))
		}
		if s.evenMatches && !slices.Equal(even, want) {
			t.Errorf("%v [%v, %v] in %d bins: even bins differ from np.histogram's (first bin %d)", s.typ, s.lo, s.hi, s.bins, firstDiff(even, want))
		}
		moved := 0
		for j := range even {
			moved += int(max(even[j], want[j]) - min(even[j], want[j]))
		}
		t.Logf("%v [%v, %v] in %d bins: even bins differ from NumPy's by %d counts", s.typ, s.lo, s.hi, s.bins, moved)
	}
}

// numpyOnEdges puts samples on NumPy's edges and one step beside them.
func numpyOnEdges(t vkcompact.Type, lo, hi float64, bins uint32, out []uint32) {
	step := (hi - lo) / float64(bins)
	for i := range out {
		e := float64(float64(i%int(bins+1))*step) + lo
		switch {
		case t == vkcompact.Float32:
			out[i] = math.Float32bits(float32(e)) + uint32(i%3) - 1
		default:
			out[i] = clampBits(t, math.Ceil(e)+float64(i%3)-1)
		}
	}
}

// bothWays counts samples (bits) of type t in h's even bins and in the
// bins of NumPyEdges for h's range, with HistogramSlice and
// HistogramEdgesSlice.
func bothWays(ctx *vk.Context, t vkcompact.Type, data []uint32, h histogram.Histogram) (even, byEdges []uint32, err error) {
	switch t {
	case vkcompact.Int32:
		return bothWaysOf[int32](ctx, data, h)
	case vkcompact.Float32:
		return bothWaysOf[float32](ctx, data, h)
	}
	return bothWaysOf[uint32](ctx, data, h)
}

func bothWaysOf[T histogram.Sample](ctx *vk.Context, data []uint32, h histogram.Histogram) (even, byEdges []uint32, err error) {
	s := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data))), len(data))
	if even, err = histogram.HistogramSlice(ctx, s, h); err != nil {
		return nil, nil, err
	}
	edges, err := histogram.NumPyEdges[T](h.Lower, h.Upper, h.Bins)
	if err != nil {
		return nil, nil, err
	}
	h.Lower, h.Upper, h.Bins = 0, 0, 0
	byEdges, err = histogram.HistogramEdgesSlice(ctx, s, edges, h)
	return even, byEdges, err
}

func bytesOf(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return b
}

func firstDiff(a, b []uint32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
