package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// histogramEvenRef counts samples (bits of t) into even bins over [lo,
// hi) as the histogram package documents it: integers by the exact
// floor((x - lo) * bins / (hi - lo)); float32 by CUB's float32
// arithmetic, int(float32(x - lo) * scale) with scale = float32(bins) /
// float32(hi - lo), at most bins-1. With upper, x == hi counts in the
// last bin.
func histogramEvenRef(t vkcompact.Type, samples []uint64, bins uint32, lo, hi float64, upper bool) []uint32 {
	counts := make([]uint32, bins)
	for _, x := range samples {
		switch t {
		case vkcompact.Float32:
			f, l, h := math.Float32frombits(uint32(x)), float32(lo), float32(hi)
			switch {
			case f >= l && f < h:
				scale := float32(bins) / (h - l)
				d := f - l
				counts[min(uint32(d*scale), bins-1)]++
			case upper && f == h:
				counts[bins-1]++
			}
		default:
			v := float64(uint32(x))
			if t == vkcompact.Int32 {
				v = float64(int32(x))
			}
			switch {
			case v >= lo && v < hi:
				counts[uint64(v-lo)*uint64(bins)/uint64(hi-lo)]++
			case upper && v == hi:
				counts[bins-1]++
			}
		}
	}
	return counts
}

// histogramEdgesRef counts samples into the bins between edges (values
// as float64, exact for the three types): edges[i] <= x < edges[i+1],
// and with upper x == the last edge in the last bin.
func histogramEdgesRef(t vkcompact.Type, samples []uint64, edges []float64, upper bool) []uint32 {
	counts := make([]uint32, len(edges)-1)
	for _, x := range samples {
		v := sampleValue(t, x)
		for i := range counts {
			if edges[i] <= v && v < edges[i+1] || upper && i == len(counts)-1 && v == edges[i+1] {
				counts[i]++
				break
			}
		}
	}
	return counts
}

// sampleValue is the value of a sample's bits of t.
func sampleValue(t vkcompact.Type, x uint64) float64 {
	switch t {
	case vkcompact.Float32:
		return float64(math.Float32frombits(uint32(x)))
	case vkcompact.Int32:
		return float64(int32(x))
	}
	return float64(uint32(x))
}

// histogramSamples returns n samples of t around [lo, hi): some below,
// some above, some on the bounds, and for float32 a NaN and signed
// zeros.
func histogramSamples(rng *rand.Rand, t vkcompact.Type, n int, lo, hi float64) []uint64 {
	s := make([]uint64, n)
	w := hi - lo
	for i := range s {
		v := lo - w/8 + rng.Float64()*w*1.25
		switch rng.IntN(20) {
		case 0:
			v = lo
		case 1:
			v = hi
		}
		switch t {
		case vkcompact.Float32:
			s[i] = uint64(math.Float32bits(float32(v)))
		case vkcompact.Int32:
			s[i] = uint64(uint32(int32(min(max(math.Floor(v), math.MinInt32), math.MaxInt32))))
		default:
			s[i] = uint64(uint32(min(max(math.Floor(v), 0), math.MaxUint32)))
		}
	}
	if t == vkcompact.Float32 && n > 3 {
		s[0], s[1], s[2] = 0x7fc00000, 0x80000000, 0
	}
	return s
}

// TestHistogram counts random samples of each type in even bins (CUB's
// rule, with and without the upper edge), in np.histogram's bins
// (-numpy) and between edges from a file, and checks the counts and the
// JSON against Go.
func TestHistogram(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(49, 5))
	dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
	n := 20000
	if vktest.Short() {
		n = 3000
	}
	runs := []struct {
		typ    vkcompact.Type
		bins   uint32
		lo, hi float64
	}{
		{vkcompact.Uint32, 37, 100, 4000},
		{vkcompact.Int32, 4096, -1000, 2000},
		{vkcompact.Float32, 100, -20, 20},
		{vkcompact.Float32, 3, -0.5, 0.25},
		{vkcompact.Uint32, 1, 0, 4294967295},
	}
	for i, r := range runs {
		size := int(r.typ.Size())
		samples := histogramSamples(rng, r.typ, n, r.lo, r.hi)
		in := cliInput(t, dir, fmt.Sprintf("s%d.npy", i), npy.Dtype(r.typ), cliElems(samples, size), size)
		rangeText := strconv.FormatFloat(r.lo, 'g', -1, 64) + ":" + strconv.FormatFloat(r.hi, 'g', -1, 64)
		check := func(mode string, args []string, want []uint32) {
			t.Helper()
			name := fmt.Sprintf("%v %s %v", r.typ, mode, args)
			out := filepath.Join(outDir, fmt.Sprintf("h%d.npy", i))
			code, stdout, stderr := runCLI(t, append([]string{"histogram", "-in", in, "-out", out, "-json"}, args...)...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			var counted uint64
			for _, c := range want {
				counted += uint64(c)
			}
			cliCheckJSON(t, name, cliJSON(t, name, stdout), map[string]any{"op": "histogram", "type": r.typ.String(), "bins": fmt.Sprint(len(want)),
				"bins_by": mode, "counted": fmt.Sprint(counted), "n": fmt.Sprint(n)})
			got := readOutput(t, out, "<u4", len(want))
			for b, w := range want {
				if c := binary.LittleEndian.Uint32(got[4*b:]); c != w {
					t.Errorf("%s: bin %d holds %d, want %d", name, b, c, w)
					break
				}
			}
		}
		bins := strconv.Itoa(int(r.bins))
		check("range", []string{"-bins", bins, "-range", rangeText}, histogramEvenRef(r.typ, samples, r.bins, r.lo, r.hi, false))
		check("range", []string{"-bins", bins, "-range", rangeText, "-include-upper"}, histogramEvenRef(r.typ, samples, r.bins, r.lo, r.hi, true))
		var edges []float64
		switch r.typ {
		case vkcompact.Float32:
			e, err := histogram.NumPyEdges[float32](r.lo, r.hi, r.bins)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range e {
				edges = append(edges, float64(x))
			}
		case vkcompact.Int32:
			e, err := histogram.NumPyEdges[int32](r.lo, r.hi, r.bins)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range e {
				edges = append(edges, float64(x))
			}
		default:
			e, err := histogram.NumPyEdges[uint32](r.lo, r.hi, r.bins)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range e {
				edges = append(edges, float64(x))
			}
		}
		check("numpy", []string{"-bins", bins, "-range", rangeText, "-numpy"}, histogramEdgesRef(r.typ, samples, edges, true))
		// Edges from a file: NumPy's, with two equal neighbours (an empty
		// bin) where there are enough of them.
		if len(edges) > 4 {
			edges[2] = edges[1]
		}
		bits := make([]uint64, len(edges))
		for k, e := range edges {
			switch r.typ {
			case vkcompact.Float32:
				bits[k] = uint64(math.Float32bits(float32(e)))
			case vkcompact.Int32:
				bits[k] = uint64(uint32(int32(e)))
			default:
				bits[k] = uint64(uint32(e))
			}
		}
		ef := cliInput(t, dir, fmt.Sprintf("e%d.npy", i), npy.Dtype(r.typ), cliElems(bits, 4), 4)
		check("edges", []string{"-edges", ef}, histogramEdgesRef(r.typ, samples, edges, false))
		if i == 0 {
			raw := cliInput(t, dir, "e.raw", "", cliElems(bits, 4), 4)
			check("edges", []string{"-edges", raw, "-include-upper", "-type", "u32"}, histogramEdgesRef(r.typ, samples, edges, true))
		}
	}
}

// histogramBadCases are histogram's: the bins, the range, the edges and
// the samples' types.
func histogramBadCases(t *testing.T, dir string, p map[string]string) []badCase {
	f := func(v ...float32) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	files := map[string][]byte{
		"edesc.npy":  append(npyHeaderBytes("<f4", 3), f(0, 2, 1)...),
		"enan.npy":   append(npyHeaderBytes("<f4", 3), f(0, float32(math.NaN()), 1)...),
		"eone.npy":   append(npyHeaderBytes("<f4", 1), f(0)...),
		"emany.npy":  append(npyHeaderBytes("<f4", 4098), make([]byte, 4*4098)...),
		"ef64.npy":   append(npyHeaderBytes("<f8", 3), make([]byte, 24)...),
		"eu4ok.npy":  append(npyHeaderBytes("<u4", 3), cliElems([]uint64{0, 5, 9}, 4)...),
		"eu4odd.raw": make([]byte, 10),
	}
	for name, b := range files {
		p[name] = filepath.Join(dir, name)
		writeTestFile(t, p[name], b)
	}
	good, f32 := p["good.u32"], p["f32.npy"]
	u := func(args ...string) []string {
		return append([]string{"-in", good, "-out", "$OUT", "-type", "u32"}, args...)
	}
	fl := func(args ...string) []string { return append([]string{"-in", f32, "-out", "$OUT"}, args...) }
	return forCommand("histogram", []badCase{
		{name: "no bins", args: u(), want: "missing -bins N and -range LO:HI, or -edges FILE"},
		{name: "no range", args: u("-bins", "4"), want: "missing -range LO:HI"},
		{name: "no -bins", args: u("-range", "0:4"), want: "missing -bins N"},
		{name: "-bins 0", args: u("-bins", "0", "-range", "0:4"), want: "-bins 0: want 1 to 4096"},
		{name: "-bins 4097", args: u("-bins", "4097", "-range", "0:4"), want: "-bins 4097: want 1 to 4096"},
		{name: "-range without a colon", args: u("-bins", "4", "-range", "4"), want: `-range "4": want LO:HI`},
		{name: "-range letters", args: u("-bins", "4", "-range", "a:b"), want: `-range "a:b": want LO:HI`},
		{name: "-range three parts", args: u("-bins", "4", "-range", "0:1:2"), want: `-range "0:1:2": want LO:HI`},
		{name: "-range empty", args: u("-bins", "4", "-range", ""), want: `-range "": want LO:HI`},
		{name: "-range reversed", args: u("-bins", "4", "-range", "9:3"), want: "-range 9:3: want LO below HI"},
		{name: "-range empty interval", args: u("-bins", "4", "-range", "3:3"), want: "-range 3:3: want LO below HI"},
		{name: "-range infinite", args: fl("-bins", "4", "-range", "-inf:0"), want: "-range -inf:0: want finite bounds"},
		{name: "-range NaN", args: fl("-bins", "4", "-range", "0:nan"), want: "-range 0:nan: want finite bounds"},
		{name: "-range fractional for u32", args: u("-bins", "4", "-range", "0.5:4"), want: "-range 0.5:4: for u32 samples, want whole numbers from 0 to 4294967295"},
		{name: "-range negative for u32", args: u("-bins", "4", "-range", "-1:4"), want: "-range -1:4: for u32 samples, want whole numbers"},
		{name: "-range past u32", args: u("-bins", "4", "-range", "0:4294967296"), want: "for u32 samples, want whole numbers"},
		{name: "-range equal in float32", args: fl("-bins", "4", "-range", "1:1.00000001"), want: "for f32 samples, want float32 bounds, LO below HI once rounded to float32"},
		{name: "-numpy fractional for u32", args: u("-bins", "4", "-range", "0.5:4", "-numpy"), want: "-range 0.5:4 -numpy: Lower 0.5 is not a uint32"},
		{name: "-edges and -bins", args: fl("-bins", "4", "-edges", p["eu4ok.npy"]), want: "give -edges FILE, or -bins N and -range LO:HI, not both"},
		{name: "-edges and -numpy", args: fl("-edges", p["eu4ok.npy"], "-numpy"), want: "-numpy makes np.histogram's edges of -bins and -range"},
		{name: "edges descend", args: fl("-edges", p["edesc.npy"]), want: "edge 2 (1) is below edge 1 (2): the edges must ascend"},
		{name: "edge NaN", args: fl("-edges", p["enan.npy"]), want: "edge 1 is NaN"},
		{name: "one edge", args: fl("-edges", p["eone.npy"]), want: "1 edges: want 2 to 4097 (1 to 4096 bins)"},
		{name: "too many edges", args: fl("-edges", p["emany.npy"]), want: "4098 edges: want 2 to 4097"},
		{name: "edges of another type", args: fl("-edges", p["eu4ok.npy"]), want: "dtype '<u4': the edges must be f32, the samples' type ('<f4')"},
		{name: "edges f64", args: u("-edges", p["ef64.npy"]), want: "dtype '<f8': the edges must be u32, the samples' type ('<u4')"},
		{name: "edges raw not whole", args: u("-edges", p["eu4odd.raw"]), want: "10 bytes is not a whole number of 4-byte u32 values"},
		{name: "edges 2-D", args: u("-edges", p["v2d.npy"]), want: "shape (10, 100): want a 1-D array"},
		{name: "no such edges file", args: u("-edges", filepath.Join(dir, "nope")), want: "-edges: open " + filepath.Join(dir, "nope")},
		{name: "u64 samples", args: []string{"-in", p["u64.npy"], "-out", "$OUT", "-bins", "4", "-range", "0:4"}, want: "dtype '<u8' (u64): histogram takes u32, i32 or f32"},
		{name: "-type f64", args: []string{"-in", good, "-out", "$OUT", "-type", "f64", "-bins", "4", "-range", "0:4"}, want: "-type f64: histogram takes u32, i32 or f32"},
		{name: "records", args: []string{"-in", p["rec.npy"], "-out", "$OUT", "-bins", "4", "-range", "0:4"}, want: "histogram takes a plain array of u32, i32 or f32"},
		{name: "missing -out", args: []string{"-in", good, "-type", "u32", "-bins", "4", "-range", "0:4"}, want: "missing -out FILE"},
		{name: "-bins not a number", args: u("-bins", "many", "-range", "0:4"), want: `invalid value "many" for flag -bins`},
	})
}
