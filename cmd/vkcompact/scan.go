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
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// scanOutput is the JSON of `vkcompact scan -json`.
type scanOutput struct {
	Op        string `json:"op"`                  // "scan"
	Operation string `json:"operation"`           // sum, min or max
	Type      string `json:"type"`                // u32, i32 or f32 (with -keys, the values')
	KeysType  string `json:"keys_type,omitempty"` // -keys: the keys' type
	Inclusive bool   `json:"inclusive"`
	N         uint64 `json:"n"`
	// Total (not by key) is the sum (min, max) of all n elements: an
	// integer (a sum wrapped to 32 bits) or a float; a float total that
	// is not finite is the string "NaN", "+Inf" or "-Inf", which JSON has
	// no number for.
	Total  json.RawMessage `json:"total,omitempty"`
	GPUms  *float64        `json:"gpu_ms"` // null where the device has no timestamps
	Device string          `json:"device"`
}

// scanTypes are the element types scan takes, and the values' types of a
// scan by key.
var scanTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32}

// scanJob is a checked invocation of scan.
type scanJob struct {
	fileJob
	scan     scan.Scan
	in, keys *fileio.Input
	keysType vkcompact.Type // -keys
	n        uint64
	total    uint32   // the total's bits
	gpuMs    *float64 // nil where the device has no timestamps
}

// parseScan parses and checks the flags, and opens and checks the inputs.
func parseScan(args []string, stderr io.Writer) (*scanJob, error) {
	fs := newFileFlags("scan", stderr, "input `FILE` of the elements (with -keys, the values): raw little-endian, or a .npy array",
		"output `FILE` of the scans: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "element type `T`: u32, i32 or f32 (a .npy file's dtype gives it); with -keys the values'")
	inclusive := fs.Bool("inclusive", false, "inclusive scans (element i combines elements 0..i); default exclusive (0..i-1)")
	opText := fs.String("op", "sum", "what the scan combines with, `OP`: sum, min or max")
	keys := fs.String("keys", "", "scan by key: `FILE` of one key per value (u32, i32, f32 or u64; raw, or a 1-D .npy); the scan starts again at each run of equal consecutive keys")
	keysType := fs.String("keys-type", "", "the -keys file's type `T`: u32, i32, f32 or u64 (a .npy file's dtype gives it)")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	op, err := scan.ParseOp(*opText)
	switch {
	case err != nil:
		return nil, usage.Errorf("-op: unknown operation %q (want sum, min or max)", *opText)
	case *keys == "" && *keysType != "":
		return nil, usage.Errorf("-keys-type needs -keys FILE: the keys to scan by")
	}
	ef := fileio.ElemFlags{Op: "scan", Set: map[string]bool{"type": *typ != ""}, Type: *typ, Types: scanTypes,
		Missing: "missing -type T: u32, i32 or f32 (a .npy file's dtype gives it)"}
	if *keys != "" {
		ef.Missing = "missing -type T: the values' u32, i32 or f32 (a .npy file's dtype gives it)"
	}
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
	if err == nil && *keys != "" {
		j.keys, j.keysType, err = j.OpenTyped("-keys", *keys, "-keys-type", *keysType, l.N, "keys", reduceTypes)
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	j.scan, j.n = scan.Scan{Elem: vkcompact.Plain(l.Elem.Key), Op: op, Inclusive: *inclusive}, l.N
	return j, nil
}

// run runs the scan on the device and returns the scans.
func (j *scanJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	if j.keys != nil {
		return j.runByKey(ctx, a)
	}
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

// byKey is the scan by key the job runs with -keys.
func (j *scanJob) byKey() scan.ByKey {
	return scan.ByKey{Elem: vkcompact.Plain(j.keysType), Value: j.scan.Elem.Key, Op: j.scan.Op, Inclusive: j.scan.Inclusive}
}

// runByKey scans the values by their keys (scan.ByKeyPlan) and returns
// the scans.
func (j *scanJob) runByKey(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	plan, err := scan.NewByKeyPlan(ctx, j.n, j.byKey())
	if err != nil {
		return nil, err
	}
	keySize, size := j.n*uint64(j.keysType.Size()), 4*j.n
	b := scan.ByKeyBuffers{Keys: a.alloc(keySize), Values: a.alloc(size), Dst: a.alloc(size), Scratch: a.alloc(plan.ScratchSize())}
	if a.err != nil {
		return nil, a.err
	}
	data, err := j.in.Upload(b.Values, size)
	if err != nil {
		return nil, err
	}
	if _, err := j.keys.Upload(b.Keys, keySize); err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	out := fileio.OutputData{Bytes: data[:size], Dtype: npy.Quote(npy.Dtype(j.scan.Elem.Key)), N: j.n} // the values' memory, no longer needed
	return []fileio.OutputData{out}, vk.Download(b.Dst, out.Bytes)
}

// report prints the total (not by key) and the GPU time.
func (j *scanJob) report(stdout io.Writer, device string) error {
	t := j.scan.Elem.Key
	if j.asJSON {
		o := scanOutput{Op: "scan", Operation: j.scan.Op.String(), Type: t.String(), Inclusive: j.scan.Inclusive, N: j.n, GPUms: j.gpuMs, Device: device}
		if j.keys != nil {
			o.KeysType = j.keysType.String()
		} else {
			o.Total = jsonValue(t, uint64(j.total))
		}
		return encodeJSON(stdout, o)
	}
	what := fmt.Sprintf("%d %s exclusive", j.n, t)
	if j.scan.Inclusive {
		what = fmt.Sprintf("%d %s inclusive", j.n, t)
	}
	if j.keys != nil {
		what += fmt.Sprintf(" %s by %s key", j.scan.Op, j.keysType)
	} else {
		if j.scan.Op != scan.Sum {
			what += " " + j.scan.Op.String()
		}
		what += ", total " + formatTotal(t, j.total)
	}
	fmt.Fprintf(stdout, "scan: %s, %s\n", what, gpuTimeText(j.gpuMs, device))
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
