package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// scanOutput is the JSON of `vkcompact scan -json`.
type scanOutput struct {
	Op        string `json:"op"`   // "scan"
	Type      string `json:"type"` // u32, i32 or f32
	Inclusive bool   `json:"inclusive"`
	N         uint64 `json:"n"`
	// Total is the sum of all n elements: an integer (wrapped to 32 bits)
	// or a float; a float total that is not finite is the string "NaN",
	// "+Inf" or "-Inf", which JSON has no number for.
	Total  json.RawMessage `json:"total"`
	GPUms  *float64        `json:"gpu_ms"` // null where the device has no timestamps
	Device string          `json:"device"`
}

// scanJob is a checked invocation of scan.
type scanJob struct {
	fileJob
	scan  scan.Scan
	in    *fileio.Input
	n     uint64
	total uint32   // the total's bits
	gpuMs *float64 // nil where the device has no timestamps
}

// parseScan parses and checks the flags, and opens and checks the input.
func parseScan(args []string, stderr io.Writer) (*scanJob, error) {
	fs := newFileFlags("scan", stderr, "input `FILE`: raw little-endian elements, or a .npy array",
		"output `FILE` of the sums: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "element type `T`: u32, i32 or f32 (a .npy file's dtype gives it)")
	inclusive := fs.Bool("inclusive", false, "inclusive sums (element i is the sum of elements 0..i); default exclusive (0..i-1)")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	ef := fileio.ElemFlags{Op: "scan", Set: map[string]bool{"type": *typ != ""}, Type: *typ,
		Types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32},
		Missing: "missing -type T: u32, i32 or f32 (a .npy file's dtype gives it)"}
	if *typ != "" {
		// A bad -type is refused before the input is opened.
		if _, err := ef.ParseType(); err != nil {
			return nil, err
		}
	}
	j := &scanJob{fileJob: files}
	var l fileio.Layout
	if j.in, err = j.Open("-in", *fs.in); err == nil {
		l, err = ef.Resolve(j.in)
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	j.scan, j.n = scan.Scan{Elem: vkcompact.Plain(l.Elem.Key), Inclusive: *inclusive}, l.N
	return j, nil
}

// run runs the prefix sum on the device and returns the sums.
func (j *scanJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	plan, err := scan.NewPlan(ctx, j.n, j.scan)
	if err != nil {
		return nil, err
	}
	// Device memory first, then host memory (fileCommand.run).
	size := 4 * j.n
	b := scan.Buffers{Src: a.alloc(size), Dst: a.alloc(size), Total: a.alloc(scan.TotalSize), Scratch: a.alloc(plan.ScratchSize())}
	if a.err != nil {
		return nil, a.err
	}
	data, err := j.in.Upload(b.Src, size)
	if err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	var total [1]uint32
	if err := vk.Download(b.Total, total[:]); err != nil {
		return nil, err
	}
	j.total = total[0]
	out := fileio.OutputData{Bytes: data[:size], Dtype: npy.Quote(npy.Dtype(j.scan.Elem.Key)), N: j.n} // the input's memory, no longer needed
	return []fileio.OutputData{out}, vk.Download(b.Dst, out.Bytes)
}

// report prints the total and the GPU time.
func (j *scanJob) report(stdout io.Writer, device string) error {
	total := formatTotal(j.scan.Elem.Key, j.total)
	if j.asJSON {
		raw := total
		if f := float64(math.Float32frombits(j.total)); j.scan.Elem.Key == vkcompact.Float32 && (math.IsInf(f, 0) || math.IsNaN(f)) {
			raw = strconv.Quote(total)
		}
		return encodeJSON(stdout, scanOutput{
			Op: "scan", Type: j.scan.Elem.Key.String(), Inclusive: j.scan.Inclusive, N: j.n,
			Total: json.RawMessage(raw), GPUms: j.gpuMs, Device: device,
		})
	}
	kind := "exclusive"
	if j.scan.Inclusive {
		kind = "inclusive"
	}
	fmt.Fprintf(stdout, "scan: %d %s %s, total %s, %s\n", j.n, j.scan.Elem.Key, kind, total, gpuTimeText(j.gpuMs, device))
	return nil
}

// formatTotal writes a total's bits as its type's value: a float32 in
// its shortest form, always with a point or an exponent ("6.0", "1e+06").
func formatTotal(t vkcompact.Type, bits uint32) string {
	switch t {
	case vkcompact.Int32:
		return strconv.FormatInt(int64(int32(bits)), 10)
	case vkcompact.Float32:
		f := math.Float32frombits(bits)
		s := strconv.FormatFloat(float64(f), 'g', -1, 32)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return s
	}
	return strconv.FormatUint(uint64(bits), 10)
}
