package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// selectOutput is the JSON of `vkcompact compact -json` and `split -json`.
type selectOutput struct {
	Op        string   `json:"op"`              // "compact" or "split"
	Type      string   `json:"type"`            // the key type: u32, i32, f32, u64, i64 or f64
	Stride    uint32   `json:"stride"`          // bytes per element (a record's itemsize)
	KeyOffset uint32   `json:"key_offset"`      // the key's byte offset in the element
	Field     string   `json:"field,omitempty"` // a record's key field, by name
	Keep      string   `json:"keep"`            // the predicate, e.g. "x > 0.5" or "flagged (1-byte flags)"
	InPlace   bool     `json:"in_place"`        // -inplace
	Kept      uint32   `json:"kept"`
	Rejected  uint32   `json:"rejected"`
	Total     uint32   `json:"total"`
	GPUms     *float64 `json:"gpu_ms"` // null where the device has no timestamps
	Device    string   `json:"device"`
}

// selectJob is a checked invocation of compact or split.
type selectJob struct {
	fileJob
	op        string // "compact" or "split"
	sel       compact.Selection
	in, flags *fileio.Input // flags is nil with -keep
	layout    fileio.Layout // the input's elements
	n         uint64        // elements
	res       compact.Result
	gpuMs     *float64 // nil where the device has no timestamps
}

// parseCompact parses and checks an invocation of compact (parseSelect).
func parseCompact(args []string, stderr io.Writer) (*selectJob, error) {
	return parseSelect("compact", args, stderr)
}

// parseSplit parses and checks an invocation of split (parseSelect).
func parseSplit(args []string, stderr io.Writer) (*selectJob, error) {
	return parseSelect("split", args, stderr)
}

// parseSelect parses and checks the flags, and opens and checks the input
// files.
func parseSelect(op string, args []string, stderr io.Writer) (*selectJob, error) {
	fs := newFileFlags(op, stderr, "input `FILE`: raw little-endian elements, or a .npy array (plain, or records of a structured dtype)",
		"output `FILE`: .npy when the name ends in .npy (of the input's dtype), raw otherwise")
	typ := fs.String("type", "", "element type `T`: u32, i32, f32, u64, i64 or f64 (a .npy file's dtype gives it)")
	stride := fs.Uint("stride", 0, "struct elements of `BYTES` bytes, a multiple of 4 up to 256 (with -key; a record array's dtype gives it)")
	key := fs.String("key", "", "the key: `OFFSET:T|FIELD`, its byte offset and type in a struct (e.g. 28:f32), or its field's name in a .npy record array (e.g. life, or pos.x)")
	keep := fs.String("keep", "", "keep-if `EXPR`: nonzero, x OP VALUE (OP one of == != < <= > >=), or x & MASK")
	flagsFile := fs.String("flags", "", "keep the elements whose flag is nonzero: `FILE` of one byte per element, or .npy of bool, uint8 or uint32")
	inPlace := fs.Bool("inplace", false, "run in place on the GPU: the source buffer is the destination")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["keep"] && set["flags"]:
		return nil, usage.Errorf("give -keep EXPR or -flags FILE, not both")
	case !set["keep"] && !set["flags"]:
		return nil, usage.Errorf("missing -keep EXPR or -flags FILE: which elements to keep")
	}
	j := &selectJob{fileJob: files, op: op}
	j.sel.Split, j.sel.InPlace = op == "split", *inPlace
	ef := fileio.ElemFlags{Op: op, Set: set, Type: *typ, Stride: *stride, Key: *key, Structs: true,
		Types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64},
		Missing: "missing -type T, or -stride BYTES and -key OFFSET:T: the element type (a .npy file's dtype gives it)"}
	if set["type"] && !set["stride"] && !set["key"] {
		// A bad -type is refused before the input is opened.
		if _, err := ef.ParseType(); err != nil {
			return nil, err
		}
	}
	if j.in, err = j.Open("-in", *fs.in); err == nil {
		j.layout, err = ef.Resolve(j.in)
	}
	if err == nil {
		j.sel.Elem, j.n = j.layout.Elem, j.layout.N
		if set["keep"] {
			if j.sel.Keep, err = compact.ParseKeep(*keep, j.sel.Elem.Key); err != nil {
				err = usage.Error{Err: err}
			}
		}
	}
	if err == nil && set["flags"] {
		var width uint32
		if j.flags, width, err = j.OpenPerElement(fileio.FlagsInput, *flagsFile, j.n); err == nil {
			j.sel.Keep = compact.KeepFlagged(width)
		}
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// run runs the selection on the device, and returns the output: the kept
// elements, or with split all of them.
func (j *selectJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	plan, err := compact.NewPlan(ctx, j.n, j.sel)
	if err != nil {
		return nil, err
	}
	// Device memory first, then host memory (fileCommand.run).
	size := j.n * uint64(j.sel.Elem.Size())
	b := compact.Buffers{Src: a.alloc(size), Result: a.alloc(compact.ResultSize), Scratch: a.alloc(plan.ScratchSize())}
	if !j.sel.InPlace {
		b.Dst = a.alloc(size)
	}
	if j.flags != nil {
		// uint8 flags are read in 4-byte words: pad them with zeros.
		b.Flags = a.alloc((j.flags.Bytes + 3) &^ 3)
	}
	if a.err != nil {
		return nil, a.err
	}
	data, err := j.layout.Upload(j.in, b.Src)
	if err == nil && j.flags != nil {
		_, err = j.flags.Upload(b.Flags, b.Flags.Size)
	}
	if err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	r, err := compact.ReadResult(b.Result)
	if err != nil {
		return nil, err
	}
	if uint64(r.Total) != j.n || r.Kept > r.Total || r.Kept+r.Rejected != r.Total {
		return nil, fmt.Errorf("the GPU reported %d kept and %d rejected of %d for %d elements", r.Kept, r.Rejected, r.Total, j.n)
	}
	j.res = r
	n := uint64(r.Kept)
	if j.sel.Split {
		n = j.n
	}
	dst := b.Dst
	if j.sel.InPlace {
		dst = b.Src
	}
	out := fileio.OutputData{Dtype: j.layout.Dtype, N: n}
	out.Bytes, err = j.layout.Download(dst, data, n) // the input's memory, no longer needed
	return []fileio.OutputData{out}, err
}

// report prints the counts and the GPU time.
func (j *selectJob) report(stdout io.Writer, device string) error {
	r := j.res
	if j.asJSON {
		l := j.layout
		return encodeJSON(stdout, selectOutput{
			Op: j.op, Type: l.Elem.Key.String(), Stride: uint32(l.Size), KeyOffset: uint32(l.KeyOffset), Field: l.Field,
			Keep: j.sel.Keep.String(), InPlace: j.sel.InPlace,
			Kept: r.Kept, Rejected: r.Rejected, Total: r.Total, GPUms: j.gpuMs, Device: device,
		})
	}
	pct := 0.0
	if r.Total > 0 {
		pct = 100 * float64(r.Kept) / float64(r.Total)
	}
	sep := " " // "kept ... (50.00%) in 1.000 ms GPU time on D", or "(50.00%), GPU time n/a ..."
	if j.gpuMs == nil {
		sep = ", "
	}
	fmt.Fprintf(stdout, "kept %d of %d (%.2f%%)%s%s\n", r.Kept, r.Total, pct, sep, gpuTimeText(j.gpuMs, device))
	return nil
}
