package main

import (
	"encoding/binary"
	"encoding/json"
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
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// reduceOutput is the JSON of `vkcompact reduce -json`.
type reduceOutput struct {
	Op        string `json:"op"`                  // "reduce"
	Reduction string `json:"reduction"`           // sum, min, max, argmin or argmax
	Over      string `json:"over"`                // "all", "segments" or "keys"
	Type      string `json:"type"`                // the elements' type (with -keys, the values')
	KeysType  string `json:"keys_type,omitempty"` // -keys: the keys' type
	N         uint64 `json:"n"`
	// Value (over all) is the result: an integer, or a float; a float
	// that is not finite is the string "NaN", "+Inf" or "-Inf", which
	// JSON has no number for. Index (over all) is argmin's or argmax's
	// index, null for the other reductions and for no elements.
	Value    json.RawMessage `json:"value,omitempty"`
	Index    json.RawMessage `json:"index,omitempty"`
	Segments *uint32         `json:"segments,omitempty"`        // over segments
	Longest  *uint32         `json:"longest_segment,omitempty"` // over segments
	Runs     *uint32         `json:"runs,omitempty"`            // over keys: the runs of equal keys
	GPUms    *float64        `json:"gpu_ms"`                    // null where the device has no timestamps
	Device   string          `json:"device"`
}

// reduceTypes are the element types reduce takes, and valueTypes the
// values' types of a reduction by key.
var (
	reduceTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}
	valueTypes  = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32}
)

// reduceJob is a checked invocation of reduce.
type reduceJob struct {
	fileJob
	op       reduce.Op
	t        vkcompact.Type // the elements' (the values') type
	layout   fileio.Layout
	in, keys *fileio.Input
	keysType vkcompact.Type // -keys
	offsets  []uint32       // -offsets, -segment
	longest  uint32
	n        uint64
	res      reduce.Result // over all
	runs     uint32        // over keys
	gpuMs    *float64
}

// over names what the job reduces over: all elements, segments or runs
// of keys.
func (j *reduceJob) over() string {
	switch {
	case j.keys != nil:
		return "keys"
	case j.offsets != nil:
		return "segments"
	}
	return "all"
}

// parseReduce parses and checks the flags, and opens and checks the
// inputs.
func parseReduce(args []string, stderr io.Writer) (*reduceJob, error) {
	fs := newFileFlags("reduce", stderr, "input `FILE` of the elements (with -keys, the values): raw little-endian, or a 1-D .npy array",
		"output `FILE`: the value (argmin, argmax: the index, uint32) as one element (optional: it is printed too); with -offsets a value per segment; with -keys each run's value; .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "element type `T`: u32, i32, f32 or u64; with -keys the values', u32, i32 or f32 (a .npy file's dtype gives it)")
	opText := fs.String("op", "sum", "the reduction `OP`: sum, min, max, argmin or argmax (within segments and by key: sum, min or max)")
	keys := fs.String("keys", "", "reduce by key: `FILE` of one key per value (u32, i32, f32 or u64; raw, or a 1-D .npy); each run of equal consecutive keys gives its first key and its values' reduction (needs -out)")
	keysType := fs.String("keys-type", "", "the -keys file's type `T`: u32, i32, f32 or u64 (a .npy file's dtype gives it)")
	keysOut := fs.String("keys-out", "", "output `FILE` of each run's first key (with -keys)")
	offsets := fs.String("offsets", "", "reduce within segments: `FILE` of the segments' offsets, segments+1 of them (raw uint32, or a 1-D .npy of '<u4' or '<i4'); segment s is elements offsets[s] to offsets[s+1]-1 (needs -out)")
	segment := fs.Uint("segment", 0, "reduce within segments of `N` elements each (the last one shorter), in place of -offsets")
	if err := parse(fs.flags, args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	op, err := reduce.ParseOp(*opText)
	segmented := *offsets != "" || set["segment"]
	switch {
	case err != nil:
		return nil, usage.Errorf("-op: unknown reduction %q (want sum, min, max, argmin or argmax)", *opText)
	case *fs.in == "":
		return nil, usage.Errorf("missing -in FILE")
	case *keys != "" && segmented:
		return nil, usage.Errorf("-keys and -offsets (or -segment) both say what to reduce over: give one")
	case *offsets != "" && set["segment"]:
		return nil, usage.Errorf("-offsets and -segment both give the segments: give one")
	case set["segment"] && (*segment == 0 || *segment > 1<<32-1):
		return nil, usage.Errorf("-segment %d: want 1 to 4294967295 elements per segment", *segment)
	case (*keys != "" || segmented) && (op == reduce.ArgMin || op == reduce.ArgMax):
		return nil, usage.Errorf("-op %s: within segments and by key, reduce takes sum, min or max", op)
	case (*keys != "" || segmented) && *fs.out == "":
		return nil, usage.Errorf("missing -out FILE for the reduced values")
	case *keys == "" && (*keysOut != "" || *keysType != ""):
		return nil, usage.Errorf("-keys-out and -keys-type need -keys FILE: the keys to reduce by")
	case *keysOut != "" && sameFile(*fs.out, *keysOut):
		return nil, usage.Errorf("-out and -keys-out name the same file %s", *fs.out)
	}
	j := &reduceJob{fileJob: fileJob{name: "reduce", device: *fs.device, timeout: fs.timeout, asJSON: *fs.asJSON}, op: op}
	if *fs.out != "" {
		j.Outputs = append(j.Outputs, fileio.OutputName{Flag: "-out", Path: *fs.out})
	}
	if *keysOut != "" {
		j.Outputs = append(j.Outputs, fileio.OutputName{Flag: "-keys-out", Path: *keysOut})
	}
	ef := fileio.ElemFlags{Op: "reduce", Set: map[string]bool{"type": *typ != ""}, Type: *typ, Types: reduceTypes,
		Missing: "missing -type T: u32, i32, f32 or u64 (a .npy file's dtype gives it)"}
	if *keys != "" {
		ef.Op, ef.Types, ef.Missing = "reduce -keys", valueTypes, "missing -type T: the values' u32, i32 or f32 (a .npy file's dtype gives it)"
	}
	if *typ != "" {
		// A bad -type is refused before the input is opened.
		if _, err := ef.ParseType(); err != nil {
			return nil, err
		}
	}
	if j.in, err = j.Open("-in", *fs.in); err == nil {
		j.layout, err = ef.Resolve(j.in)
	}
	if err == nil {
		j.t, j.n = j.layout.Elem.Key, j.layout.N
		switch {
		case *keys != "":
			j.keys, j.keysType, err = j.OpenTyped("-keys", *keys, "-keys-type", *keysType, j.n, "keys", reduceTypes)
		case *offsets != "":
			j.offsets, err = j.ReadOffsets("-offsets", *offsets)
		case segmented:
			j.offsets = uniformOffsets(j.n, uint64(*segment))
		}
	}
	if err == nil && j.offsets != nil {
		if j.longest, err = radix.CheckOffsets(j.offsets, j.n); err != nil {
			// The check speaks of the sort's keys: here they are elements.
			err = usage.Errorf("-offsets: %v", strings.ReplaceAll(unwrapInvalid(err), " keys", " elements"))
		}
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// run runs the reduction on the device and returns its outputs.
func (j *reduceJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	switch {
	case j.keys != nil:
		return j.runByKey(ctx, a)
	case j.offsets != nil:
		return j.runSegments(ctx, a)
	}
	plan, err := reduce.NewPlan(ctx, j.n, reduce.Reduce{Elem: vkcompact.Plain(j.t), Op: j.op})
	if err != nil {
		return nil, err
	}
	// Device memory first, then host memory (fileCommand.run).
	size := j.n * uint64(j.t.Size())
	b := reduce.Buffers{Src: a.alloc(size), Result: a.alloc(reduce.ResultSize), Scratch: a.alloc(plan.ScratchSize())}
	if a.err != nil {
		return nil, a.err
	}
	if _, err := j.in.Upload(b.Src, size); err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	if j.res, err = reduce.ReadResult(b.Result); err != nil {
		return nil, err
	}
	if r := j.res; uint64(r.Count) != j.n || (r.Index != reduce.NoIndex) != (j.arg() && j.n > 0) || r.Index != reduce.NoIndex && uint64(r.Index) >= j.n {
		return nil, fmt.Errorf("the GPU reported index %d of %d elements for %d", r.Index, r.Count, j.n)
	}
	if len(j.Outputs) == 0 {
		return nil, nil
	}
	if j.arg() {
		return []fileio.OutputData{{Bytes: binary.LittleEndian.AppendUint32(nil, j.res.Index), Dtype: npy.Quote(npy.Dtype(vkcompact.Uint32)), N: 1}}, nil
	}
	value := binary.LittleEndian.AppendUint64(nil, j.res.Bits)[:j.t.Size()]
	return []fileio.OutputData{{Bytes: value, Dtype: j.layout.Dtype, N: 1}}, nil
}

// arg reports whether the reduction is argmin or argmax.
func (j *reduceJob) arg() bool { return j.op == reduce.ArgMin || j.op == reduce.ArgMax }

// runSegments reduces within the segments (reduce.SegmentedPlan) and
// returns a value per segment.
func (j *reduceJob) runSegments(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	segments := uint32(len(j.offsets) - 1)
	plan, err := reduce.NewSegmentedPlan(ctx, j.n, segments, reduce.Segmented{Elem: vkcompact.Plain(j.t), Op: j.op})
	if err != nil {
		return nil, err
	}
	size, outSize := j.n*uint64(j.t.Size()), uint64(segments)*uint64(j.t.Size())
	b := reduce.SegmentedBuffers{Src: a.alloc(size), Offsets: a.alloc(4 * uint64(len(j.offsets))), Dst: a.alloc(outSize)}
	if s := plan.ScratchSize(); s > 0 {
		b.Scratch = a.alloc(s)
	}
	if a.err != nil {
		return nil, a.err
	}
	if err := vk.Upload(b.Offsets, j.offsets); err != nil {
		return nil, err
	}
	if _, err := j.in.Upload(b.Src, size); err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	out := fileio.OutputData{Bytes: make([]byte, outSize), Dtype: j.layout.Dtype, N: uint64(segments)}
	return []fileio.OutputData{out}, vk.Download(b.Dst, out.Bytes)
}

// runByKey reduces the values by their keys (reduce.ByKeyPlan) and
// returns each run's value and, with -keys-out, its first key.
func (j *reduceJob) runByKey(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	plan, err := reduce.NewByKeyPlan(ctx, j.n, reduce.ByKey{Elem: vkcompact.Plain(j.keysType), Value: j.t, Op: j.op})
	if err != nil {
		return nil, err
	}
	keySize, valueSize := j.n*uint64(j.keysType.Size()), j.n*uint64(j.t.Size())
	b := reduce.ByKeyBuffers{Keys: a.alloc(keySize), Values: a.alloc(valueSize), KeysOut: a.alloc(keySize), ValuesOut: a.alloc(valueSize),
		Result: a.alloc(reduce.ByKeyResultSize), Scratch: a.alloc(plan.ScratchSize())}
	if a.err != nil {
		return nil, a.err
	}
	values, err := j.in.Upload(b.Values, valueSize)
	if err != nil {
		return nil, err
	}
	keys, err := j.keys.Upload(b.Keys, keySize)
	if err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	res, err := reduce.ReadByKeyResult(b.Result)
	if err != nil {
		return nil, err
	}
	if uint64(res.Total) != j.n || res.Runs > res.Total || (j.n > 0 && res.Runs == 0) {
		return nil, fmt.Errorf("the GPU reported %d runs of %d for %d elements", res.Runs, res.Total, j.n)
	}
	j.runs = res.Runs
	// The inputs' memory, no longer needed, takes the outputs.
	runs := uint64(res.Runs)
	outs := []fileio.OutputData{{Bytes: values[:runs*uint64(j.t.Size())], Dtype: j.layout.Dtype, N: runs}}
	if err := vk.Download(b.ValuesOut.Sub(0, uint64(len(outs[0].Bytes))), outs[0].Bytes); err != nil {
		return nil, err
	}
	if len(j.Outputs) > 1 {
		outs = append(outs, fileio.OutputData{Bytes: keys[:runs*uint64(j.keysType.Size())], Dtype: npy.Quote(npy.Dtype(j.keysType)), N: runs})
		if err := vk.Download(b.KeysOut.Sub(0, uint64(len(outs[1].Bytes))), outs[1].Bytes); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// formatValue writes a value's bits as its type's value (formatTotal's
// form; a uint64 whole).
func formatValue(t vkcompact.Type, bits uint64) string {
	if t == vkcompact.Uint64 {
		return strconv.FormatUint(bits, 10)
	}
	return formatTotal(t, uint32(bits))
}

// jsonValue is formatValue as JSON: a float that is not finite as a
// string.
func jsonValue(t vkcompact.Type, bits uint64) json.RawMessage {
	s := formatValue(t, bits)
	if f := float64(math.Float32frombits(uint32(bits))); t == vkcompact.Float32 && (math.IsInf(f, 0) || math.IsNaN(f)) {
		s = strconv.Quote(s)
	}
	return json.RawMessage(s)
}

// report prints the result, or what was reduced, and the GPU time.
func (j *reduceJob) report(stdout io.Writer, device string) error {
	if j.asJSON {
		o := reduceOutput{Op: "reduce", Reduction: j.op.String(), Over: j.over(), Type: j.t.String(), N: j.n, GPUms: j.gpuMs, Device: device}
		switch {
		case j.keys != nil:
			o.KeysType, o.Runs = j.keysType.String(), &j.runs
		case j.offsets != nil:
			segments := uint32(len(j.offsets) - 1)
			o.Segments, o.Longest = &segments, &j.longest
		default:
			o.Value, o.Index = jsonValue(j.t, j.res.Bits), json.RawMessage("null")
			if j.res.Index != reduce.NoIndex {
				o.Index = json.RawMessage(strconv.FormatUint(uint64(j.res.Index), 10))
			}
		}
		return encodeJSON(stdout, o)
	}
	what := fmt.Sprintf("%s of %d %s", j.op, j.n, j.t)
	switch {
	case j.keys != nil:
		what += fmt.Sprintf(" by %s key: %d runs", j.keysType, j.runs)
	case j.offsets != nil:
		what += fmt.Sprintf(" in %d segments (longest %d)", len(j.offsets)-1, j.longest)
	case j.arg() && j.res.Index == reduce.NoIndex:
		what += fmt.Sprintf(" = no index (%s)", formatValue(j.t, j.res.Bits))
	case j.arg():
		what += fmt.Sprintf(" = index %d (%s)", j.res.Index, formatValue(j.t, j.res.Bits))
	default:
		what += " = " + formatValue(j.t, j.res.Bits)
	}
	fmt.Fprintf(stdout, "reduce: %s, %s\n", what, gpuTimeText(j.gpuMs, device))
	return nil
}
