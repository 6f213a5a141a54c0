package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
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
	scan   compact.Scan
	in     *inputFile
	n      uint64
	out    string
	device string
	asJSON bool
}

// scanResult is what a prefix sum on the GPU produced.
type scanResult struct {
	total  uint32   // the total's bits
	gpuMs  *float64 // nil where the device has no timestamps
	device string
	out    []byte // the sums
}

// runScan runs `vkcompact scan`: the checks first, then the GPU, then the
// output, as compact does.
func runScan(args []string, stdout, stderr io.Writer) (err error) {
	j, err := parseScan(args, stderr)
	if err != nil {
		return err
	}
	defer j.in.f.Close()
	out, err := createOutput(j.out)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			out.abort()
		}
	}()
	res, err := j.run(stderr)
	if err != nil {
		return err
	}
	if err := out.commit(npyHeaderFor(j.out, j.scan.Type, j.n), res.out); err != nil {
		return err
	}
	total := formatTotal(j.scan.Type, res.total)
	if j.asJSON {
		raw := total
		if f := float64(math.Float32frombits(res.total)); j.scan.Type == compact.Float32 && (math.IsInf(f, 0) || math.IsNaN(f)) {
			raw = strconv.Quote(total)
		}
		return encodeJSON(stdout, scanOutput{
			Op: "scan", Type: j.scan.Type.String(), Inclusive: j.scan.Inclusive, N: j.n,
			Total: json.RawMessage(raw), GPUms: res.gpuMs, Device: res.device,
		})
	}
	kind := "exclusive"
	if j.scan.Inclusive {
		kind = "inclusive"
	}
	fmt.Fprintf(stdout, "scan: %d %s %s, total %s, %s\n", j.n, j.scan.Type, kind, total, gpuTimeText(res.gpuMs, res.device))
	return nil
}

// parseScan parses and checks the flags, and opens and checks the input.
func parseScan(args []string, stderr io.Writer) (*scanJob, error) {
	fs := newFlags("scan", stderr)
	in := fs.String("in", "", "input `FILE`: raw little-endian elements, or a .npy array")
	out := fs.String("out", "", "output `FILE` of the sums: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "element type `T`: u32, i32 or f32")
	inclusive := fs.Bool("inclusive", false, "inclusive sums (element i is the sum of elements 0..i); default exclusive (0..i-1)")
	device := fs.String("device", "", "device index or name substring (default: VKCOMPACT_DEVICE, else the best GPU)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	switch {
	case *in == "":
		return nil, usagef("missing -in FILE")
	case *out == "":
		return nil, usagef("missing -out FILE")
	case *typ == "":
		return nil, usagef("missing -type T: u32, i32 or f32")
	}
	t, err := parseTypeOf("scan", *typ, compact.Uint32, compact.Int32, compact.Float32)
	if err != nil {
		return nil, err
	}
	j := &scanJob{scan: compact.Scan{Type: t, Inclusive: *inclusive}, out: *out, device: *device, asJSON: *asJSON}
	if j.in, err = openInput("-in", *in); err != nil {
		return nil, err
	}
	if j.n, err = j.in.elements(compact.Plain(t)); err != nil {
		j.in.f.Close()
		return nil, err
	}
	return j, nil
}

// parseTypeOf parses the -type of the command op: one of the types
// allowed.
func parseTypeOf(op, s string, allowed ...compact.Type) (compact.Type, error) {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = a.String()
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	t, err := compact.ParseType(s)
	if err != nil {
		return 0, usagef("-type: unknown type %q (want %s)", s, want)
	}
	for _, a := range allowed {
		if t == a {
			return t, nil
		}
	}
	return 0, usagef("-type %s: %s takes %s", s, op, want)
}

// run runs the prefix sum on the device -device names.
func (j *scanJob) run(stderr io.Writer) (r scanResult, err error) {
	ctx, err := vk.Open(vk.Options{Device: j.device})
	if err != nil {
		return r, err
	}
	defer func() { err = releaseChecked(ctx, err, stderr) }()
	r.device = ctx.Info().Name
	plan, err := compact.NewScanPlan(ctx, j.n, j.scan)
	if err != nil {
		return r, err
	}
	// Device memory first: a file too large for the device fails here,
	// before it is read into host memory.
	a := &allocator{ctx: ctx}
	defer a.release()
	size := 4 * j.n
	b := compact.ScanBuffers{Src: a.alloc(size), Dst: a.alloc(size), Total: a.alloc(compact.ScanTotalSize), Scratch: a.alloc(plan.ScratchSize())}
	if a.err != nil {
		return r, a.err
	}
	data, err := j.in.read(size)
	if err != nil {
		return r, err
	}
	if err := vk.Upload(b.Src, data); err != nil {
		return r, err
	}
	if r.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return r, err
	}
	var total [1]uint32
	if err := vk.Download(b.Total, total[:]); err != nil {
		return r, err
	}
	r.total = total[0]
	r.out = data[:size] // the input's memory, no longer needed
	return r, vk.Download(b.Dst, r.out)
}

// formatTotal writes a total's bits as its type's value: a float32 in
// its shortest form, always with a point or an exponent ("6.0", "1e+06").
func formatTotal(t compact.Type, bits uint32) string {
	switch t {
	case compact.Int32:
		return strconv.FormatInt(int64(int32(bits)), 10)
	case compact.Float32:
		f := math.Float32frombits(bits)
		s := strconv.FormatFloat(float64(f), 'g', -1, 32)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return s
	}
	return strconv.FormatUint(uint64(bits), 10)
}
