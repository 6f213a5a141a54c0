package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// histogramOutput is the JSON of `vkcompact histogram -json`.
type histogramOutput struct {
	Op   string `json:"op"`   // "histogram"
	Type string `json:"type"` // u32, i32 or f32
	N    uint64 `json:"n"`
	Bins uint32 `json:"bins"`
	// BinsBy is how the bins are made: "range" (even bins, CUB's
	// HistogramEven), "numpy" (np.histogram's edges over the range) or
	// "edges" (-edges).
	BinsBy string `json:"bins_by"`
	// Lower and Upper bound the bins: the range, or the first and the
	// last edge.
	Lower        float64  `json:"lower"`
	Upper        float64  `json:"upper"`
	IncludeUpper bool     `json:"include_upper"`
	Counted      uint64   `json:"counted"` // the samples counted in some bin
	GPUms        *float64 `json:"gpu_ms"`  // null where the device has no timestamps
	Device       string   `json:"device"`
}

// histogramJob is a checked invocation of histogram.
type histogramJob struct {
	fileJob
	h       histogram.Histogram
	binsBy  string
	in      *fileio.Input
	edges   []byte   // the edges' bytes (-edges, -numpy)
	lo, hi  float64  // the bounds, for the report
	n       uint64   // samples
	counted uint64   // the counts' sum
	gpuMs   *float64 // nil where the device has no timestamps
	layout  fileio.Layout
}

// parseHistogram parses and checks the flags, and opens and checks the
// input and the edges.
func parseHistogram(args []string, stderr io.Writer) (*histogramJob, error) {
	fs := newFileFlags("histogram", stderr, "input `FILE` of samples: raw little-endian, or a 1-D .npy array",
		"output `FILE` of the counts, a uint32 per bin: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "sample type `T`: u32, i32 or f32 (a .npy file's dtype gives it)")
	bins := fs.Uint("bins", 0, fmt.Sprintf("even bins: `N` of them, 1 to %d, over -range", histogram.MaxBins))
	rangeText := fs.String("range", "", "even bins over `LO:HI`, [LO, HI) (e.g. 0:256, -1.5:2.5): whole numbers for integer samples; rounded to float32 for f32 samples, except with -numpy")
	numpy := fs.Bool("numpy", false, "with -bins and -range, np.histogram's bins: its float64 edges over the range, the last one closed (implies -include-upper), so the counts are np.histogram(a, N, range=(LO, HI))'s")
	edgesFile := fs.String("edges", "", "bins between edges: `FILE` of bins+1 ascending edges of the samples' type (raw, or a 1-D .npy); sample x counts in bin i where edges[i] <= x < edges[i+1]")
	includeUpper := fs.Bool("include-upper", false, "count samples equal to the upper edge in the last bin (NumPy's rule; by default they count nowhere, CUB's rule)")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case *edgesFile != "" && (set["bins"] || set["range"]):
		return nil, usage.Errorf("-edges gives the bins: give -edges FILE, or -bins N and -range LO:HI, not both")
	case *edgesFile != "" && *numpy:
		return nil, usage.Errorf("-numpy makes np.histogram's edges of -bins and -range: -edges FILE is used as it is")
	case *edgesFile == "" && !set["bins"] && !set["range"]:
		return nil, usage.Errorf("missing -bins N and -range LO:HI, or -edges FILE: the bins")
	case *edgesFile == "" && !set["bins"]:
		return nil, usage.Errorf("missing -bins N: the number of even bins over -range")
	case *edgesFile == "" && !set["range"]:
		return nil, usage.Errorf("missing -range LO:HI: the range the -bins bins split")
	case set["bins"] && (*bins == 0 || *bins > histogram.MaxBins):
		return nil, usage.Errorf("-bins %d: want 1 to %d", *bins, histogram.MaxBins)
	}
	var lo, hi float64
	if set["range"] {
		if lo, hi, err = parseRange(*rangeText); err != nil {
			return nil, err
		}
	}
	ef := fileio.ElemFlags{Op: "histogram", Set: map[string]bool{"type": *typ != ""}, Type: *typ,
		Types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32},
		Missing: "missing -type T: u32, i32 or f32 (a .npy file's dtype gives it)"}
	if *typ != "" {
		if _, err := ef.ParseType(); err != nil {
			return nil, err
		}
	}
	j := &histogramJob{fileJob: files}
	if j.in, err = j.Open("-in", *fs.in); err == nil {
		j.layout, err = ef.Resolve(j.in)
	}
	if err == nil {
		t := j.layout.Elem.Key
		j.n = j.layout.N
		j.h = histogram.Histogram{Elem: vkcompact.Plain(t), Bins: uint32(*bins), IncludeUpper: *includeUpper || *numpy}
		switch {
		case *edgesFile != "":
			j.binsBy = "edges"
			err = j.readEdges(*edgesFile, t)
		case *numpy:
			j.binsBy = "numpy"
			err = j.numPyEdges(lo, hi, t)
		default:
			j.binsBy = "range"
			err = j.evenBins(lo, hi, t)
		}
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// parseRange parses -range LO:HI: two finite numbers, LO below HI.
func parseRange(s string) (lo, hi float64, err error) {
	loText, hiText, ok := strings.Cut(s, ":")
	l, err1 := strconv.ParseFloat(loText, 64)
	h, err2 := strconv.ParseFloat(hiText, 64)
	switch {
	case !ok || err1 != nil || err2 != nil || strings.Contains(hiText, ":"):
		return 0, 0, usage.Errorf("-range %q: want LO:HI, the bins' range [LO, HI) (e.g. 0:256 or -1.5:2.5)", s)
	case math.IsInf(l, 0) || math.IsInf(h, 0) || math.IsNaN(l) || math.IsNaN(h):
		return 0, 0, usage.Errorf("-range %s: want finite bounds", s)
	case !(l < h):
		return 0, 0, usage.Errorf("-range %s: want LO below HI", s)
	}
	return l, h, nil
}

// evenBins checks the range for samples of type t and sets the even
// bins: whole numbers in t's range for integers, rounded to float32 for
// float32.
func (j *histogramJob) evenBins(lo, hi float64, t vkcompact.Type) error {
	switch t {
	case vkcompact.Float32:
		l, h := float32(lo), float32(hi)
		if math.IsInf(float64(l), 0) || math.IsInf(float64(h), 0) || !(l < h) {
			return usage.Errorf("-range %v:%v: for f32 samples, want float32 bounds, LO below HI once rounded to float32 (%v:%v)", lo, hi, l, h)
		}
		lo, hi = float64(l), float64(h)
	default:
		min, max := 0.0, float64(math.MaxUint32)
		if t == vkcompact.Int32 {
			min, max = math.MinInt32, math.MaxInt32
		}
		for _, v := range []float64{lo, hi} {
			if v != math.Trunc(v) || v < min || v > max {
				return usage.Errorf("-range %v:%v: for %s samples, want whole numbers from %.0f to %.0f", lo, hi, t, min, max)
			}
		}
	}
	j.h.Lower, j.h.Upper, j.lo, j.hi = lo, hi, lo, hi
	return nil
}

// numPyEdges makes np.histogram's edges of the range for samples of type
// t (histogram.NumPyEdges).
func (j *histogramJob) numPyEdges(lo, hi float64, t vkcompact.Type) error {
	var err error
	var words []uint32
	switch t {
	case vkcompact.Float32:
		var e []float32
		if e, err = histogram.NumPyEdges[float32](lo, hi, j.h.Bins); err == nil {
			for _, x := range e {
				words = append(words, math.Float32bits(x))
			}
		}
	case vkcompact.Int32:
		var e []int32
		if e, err = histogram.NumPyEdges[int32](lo, hi, j.h.Bins); err == nil {
			for _, x := range e {
				words = append(words, uint32(x))
			}
		}
	default:
		words, err = histogram.NumPyEdges[uint32](lo, hi, j.h.Bins)
	}
	if err != nil {
		return usage.Errorf("-range %v:%v -numpy: %s", lo, hi, strings.NewReplacer("histogram: ", "", "NumPyEdges: ", "").Replace(err.Error()))
	}
	for _, w := range words {
		j.edges = binary.LittleEndian.AppendUint32(j.edges, w)
	}
	j.h.Edges, j.lo, j.hi = true, lo, hi
	return nil
}

// readEdges reads and checks -edges for samples of type t: 2 to
// MaxBins+1 edges, ascending, none NaN.
func (j *histogramJob) readEdges(path string, t vkcompact.Type) error {
	data, n, err := j.ReadValues("-edges", path, t, fmt.Sprintf("the edges must be %s, the samples' type", t))
	if err != nil {
		return err
	}
	if n < 2 || n > histogram.MaxBins+1 {
		return usage.Errorf("-edges %s: %d edges: want 2 to %d (1 to %d bins)", path, n, histogram.MaxBins+1, histogram.MaxBins)
	}
	value := func(i uint64) float64 {
		w := binary.LittleEndian.Uint32(data[4*i:])
		switch t {
		case vkcompact.Float32:
			return float64(math.Float32frombits(w))
		case vkcompact.Int32:
			return float64(int32(w))
		}
		return float64(w)
	}
	for i := range n {
		if v := value(i); math.IsNaN(v) {
			return usage.Errorf("-edges %s: edge %d is NaN", path, i)
		} else if i > 0 && v < value(i-1) {
			return usage.Errorf("-edges %s: edge %d (%v) is below edge %d (%v): the edges must ascend", path, i, v, i-1, value(i-1))
		}
	}
	j.edges, j.h.Edges, j.h.Bins = data[:4*n], true, uint32(n-1)
	j.lo, j.hi = value(0), value(n-1)
	return nil
}

// run counts the samples on the device and returns the counts.
func (j *histogramJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	plan, err := histogram.NewPlan(ctx, j.n, j.h)
	if err != nil {
		return nil, err
	}
	// Device memory first, then host memory (fileCommand.run).
	size, counts := 4*j.n, 4*uint64(j.h.Bins)
	b := histogram.Buffers{Src: a.alloc(size), Counts: a.alloc(counts)}
	if j.edges != nil {
		b.Edges = a.alloc(uint64(len(j.edges)))
	}
	if a.err != nil {
		return nil, a.err
	}
	if j.edges != nil {
		if err := vk.Upload(b.Edges, j.edges); err != nil {
			return nil, err
		}
	}
	if _, err := j.in.Upload(b.Src, size); err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	out := fileio.OutputData{Bytes: make([]byte, counts), Dtype: npy.Quote(npy.Dtype(vkcompact.Uint32)), N: uint64(j.h.Bins)}
	if err := vk.Download(b.Counts, out.Bytes); err != nil {
		return nil, err
	}
	for i := range j.h.Bins {
		j.counted += uint64(binary.LittleEndian.Uint32(out.Bytes[4*i:]))
	}
	if j.counted > j.n {
		return nil, fmt.Errorf("the GPU counted %d samples of %d", j.counted, j.n)
	}
	return []fileio.OutputData{out}, nil
}

// report prints the bins, the samples counted and the GPU time.
func (j *histogramJob) report(stdout io.Writer, device string) error {
	if j.asJSON {
		return encodeJSON(stdout, histogramOutput{Op: "histogram", Type: j.h.Elem.Key.String(), N: j.n, Bins: j.h.Bins, BinsBy: j.binsBy,
			Lower: j.lo, Upper: j.hi, IncludeUpper: j.h.IncludeUpper, Counted: j.counted, GPUms: j.gpuMs, Device: device})
	}
	closing := ")"
	if j.h.IncludeUpper {
		closing = "]"
	}
	bins := fmt.Sprintf("%d even bins over [%v, %v%s", j.h.Bins, j.lo, j.hi, closing)
	switch j.binsBy {
	case "numpy":
		bins = fmt.Sprintf("%d bins over [%v, %v] (np.histogram's edges)", j.h.Bins, j.lo, j.hi)
	case "edges":
		bins = fmt.Sprintf("%d bins between edges from %v to %v%s", j.h.Bins, j.lo, j.hi, map[bool]string{true: " (the last included)"}[j.h.IncludeUpper])
	}
	fmt.Fprintf(stdout, "histogram: %d of %d %s samples in %s, %s\n", j.counted, j.n, j.h.Elem.Key, bins, gpuTimeText(j.gpuMs, device))
	return nil
}
