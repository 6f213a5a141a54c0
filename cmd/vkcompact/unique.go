package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// runsOutput is the JSON of `vkcompact unique -json` and `rle -json`.
type runsOutput struct {
	Op         string   `json:"op"`                    // "unique", "rle" or "rle-nontrivial"
	Type       string   `json:"type"`                  // the key type
	Stride     uint32   `json:"stride"`                // bytes per element
	KeyOffset  uint32   `json:"key_offset"`            // the key's byte offset in the element
	Field      string   `json:"field,omitempty"`       // a record's key field, by name
	Equal      string   `json:"equal"`                 // -equal: "keys", "key bits" or "elements"
	InPlace    bool     `json:"in_place"`              // -inplace (unique)
	ValuesType string   `json:"values_type,omitempty"` // unique -values: the values' type
	Runs       uint32   `json:"runs"`                  // unique: the elements kept; rle: the runs written
	Total      uint32   `json:"total"`
	GPUms      *float64 `json:"gpu_ms"` // null where the device has no timestamps
	Device     string   `json:"device"`
}

// runsTypes are the key types unique and rle take.
var runsTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}

// runsFlags are the flags unique and rle share besides the file flags.
type runsFlags struct {
	typ, key, equal *string
	stride          *uint
}

func addRunsFlags(fs *fileFlags) runsFlags {
	return runsFlags{
		typ:    fs.String("type", "", "element type `T`: u32, i32, f32, u64, i64 or f64 (a .npy file's dtype gives it)"),
		stride: fs.Uint("stride", 0, "struct elements of `BYTES` bytes, a multiple of 4 up to 256 (with -key; a record array's dtype gives it)"),
		key:    fs.String("key", "", "the key: `OFFSET:T|FIELD`, its byte offset and type in a struct (e.g. 0:u32), or its field's name in a .npy record array"),
		equal: fs.String("equal", "keys", "when neighbours are equal: `EQ` keys (as their type compares: -0 == 0, NaN equals nothing), "+
			"bits (the keys' bits) or elements (every byte of the element)"),
	}
}

// parseEqual parses -equal.
func parseEqual(s string) (compact.Equality, error) {
	switch s {
	case "keys":
		return compact.EqualKeys, nil
	case "bits":
		return compact.EqualKeyBits, nil
	case "elements":
		return compact.EqualElements, nil
	}
	return 0, usage.Errorf("-equal: unknown equality %q (want keys, bits or elements)", s)
}

// open parses -equal, opens -in and resolves its layout.
func (rf runsFlags) open(op string, fs *fileFlags, j *fileJob) (*fileio.Input, fileio.Layout, compact.Equality, error) {
	eq, err := parseEqual(*rf.equal)
	if err != nil {
		return nil, fileio.Layout{}, 0, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	ef := fileio.ElemFlags{Op: op, Set: set, Type: *rf.typ, Stride: *rf.stride, Key: *rf.key, Structs: true, Types: runsTypes,
		Missing: "missing -type T, or -stride BYTES and -key OFFSET:T: the element type (a .npy file's dtype gives it)"}
	if set["type"] && !set["stride"] && !set["key"] {
		if _, err := ef.ParseType(); err != nil {
			return nil, fileio.Layout{}, 0, err
		}
	}
	in, err := j.Open("-in", *fs.in)
	if err != nil {
		return nil, fileio.Layout{}, 0, err
	}
	l, err := ef.Resolve(in)
	return in, l, eq, err
}

// uniqueJob is a checked invocation of unique.
type uniqueJob struct {
	fileJob
	sel        compact.Selection
	in, values *fileio.Input // values: -values, unique by key
	layout     fileio.Layout
	res        compact.Result
	gpuMs      *float64
}

// parseUnique parses and checks an invocation of unique.
func parseUnique(args []string, stderr io.Writer) (*uniqueJob, error) {
	fs := newFileFlags("unique", stderr, "input `FILE`: raw little-endian elements, or a .npy array (plain, or records of a structured dtype)",
		"output `FILE` of the first element of each run of equal ones: .npy when the name ends in .npy (of the input's dtype), raw otherwise")
	rf := addRunsFlags(fs)
	inPlace := fs.Bool("inplace", false, "run in place on the GPU: the source buffer is the destination")
	values := fs.String("values", "", "unique by key: `FILE` of one value per element (u32, i32, f32, u64, i64 or f64; raw, or a 1-D .npy); each kept element's value goes to -values-out")
	valuesType := fs.String("values-type", "", "the -values file's type `T`: u32, i32, f32, u64, i64 or f64 (a .npy file's dtype gives it)")
	valuesOut := fs.String("values-out", "", "output `FILE` of the kept elements' values, in the values' type (with -values)")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	switch {
	case *values == "" && (*valuesOut != "" || *valuesType != ""):
		return nil, usage.Errorf("-values-out and -values-type need -values FILE: the values to keep with the keys")
	case *values != "" && *valuesOut == "":
		return nil, usage.Errorf("missing -values-out FILE for the kept values")
	case *values != "" && *inPlace:
		return nil, usage.Errorf("-inplace: unique by key (-values) runs out of place")
	case *values != "" && sameFile(*fs.out, *valuesOut):
		return nil, usage.Errorf("-out and -values-out name the same file %s", *fs.out)
	}
	j := &uniqueJob{fileJob: files}
	if *values != "" {
		j.Outputs = append(j.Outputs, fileio.OutputName{Flag: "-values-out", Path: *valuesOut})
	}
	var eq compact.Equality
	j.in, j.layout, eq, err = rf.open("unique", fs, &j.fileJob)
	j.sel = compact.Selection{Elem: j.layout.Elem, Keep: compact.KeepFirstOfRun(eq), InPlace: *inPlace}
	if err == nil && *values != "" {
		j.values, j.sel.Values, err = j.OpenTyped("-values", *values, "-values-type", *valuesType, j.layout.N, "values", runsTypes)
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// run runs unique on the device and returns the kept elements.
func (j *uniqueJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	n := j.layout.N
	plan, err := compact.NewPlan(ctx, n, j.sel)
	if err != nil {
		return nil, err
	}
	size, valueSize := n*uint64(j.sel.Elem.Size()), n*uint64(j.sel.Values.Size())
	b := compact.Buffers{Src: a.alloc(size), Result: a.alloc(compact.ResultSize), Scratch: a.alloc(plan.ScratchSize())}
	if !j.sel.InPlace {
		b.Dst = a.alloc(size)
	}
	if j.values != nil {
		b.Values, b.ValuesOut = a.alloc(valueSize), a.alloc(valueSize)
	}
	if a.err != nil {
		return nil, a.err
	}
	data, err := j.layout.Upload(j.in, b.Src)
	if err != nil {
		return nil, err
	}
	var values []byte
	if j.values != nil {
		if values, err = j.values.Upload(b.Values, valueSize); err != nil {
			return nil, err
		}
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	if j.res, err = compact.ReadResult(b.Result); err != nil {
		return nil, err
	}
	if r := j.res; uint64(r.Total) != n || r.Kept > r.Total || (n > 0 && r.Kept == 0) {
		return nil, fmt.Errorf("the GPU reported %d kept of %d for %d elements", r.Kept, r.Total, n)
	}
	dst := b.Dst
	if j.sel.InPlace {
		dst = b.Src
	}
	out := fileio.OutputData{Dtype: j.layout.Dtype, N: uint64(j.res.Kept)}
	if out.Bytes, err = j.layout.Download(dst, data, out.N); err != nil || j.values == nil {
		return []fileio.OutputData{out}, err
	}
	// The values' memory, no longer needed, takes the kept ones.
	kept := fileio.OutputData{Bytes: values[:out.N*uint64(j.sel.Values.Size())], Dtype: npy.Quote(npy.Dtype(j.sel.Values)), N: out.N}
	return []fileio.OutputData{out, kept}, vk.Download(b.ValuesOut.Sub(0, uint64(len(kept.Bytes))), kept.Bytes)
}

// report prints the counts and the GPU time.
func (j *uniqueJob) report(stdout io.Writer, device string) error {
	r := j.res
	if j.asJSON {
		l := j.layout
		return encodeJSON(stdout, runsOutput{Op: "unique", Type: l.Elem.Key.String(), Stride: uint32(l.Size), KeyOffset: uint32(l.KeyOffset), Field: l.Field,
			Equal: j.sel.Keep.Equal.String(), InPlace: j.sel.InPlace, ValuesType: valuesType(j.sel.Values), Runs: r.Kept, Total: r.Total,
			GPUms: j.gpuMs, Device: device})
	}
	with := ""
	if j.values != nil {
		with = fmt.Sprintf(" with their %s values", j.sel.Values)
	}
	sep := " "
	if j.gpuMs == nil {
		sep = ", "
	}
	fmt.Fprintf(stdout, "kept %d unique of %d%s%s%s\n", r.Kept, r.Total, with, sep, gpuTimeText(j.gpuMs, device))
	return nil
}

// valuesType names the values' type for the JSON: "" where there are
// none.
func valuesType(t vkcompact.Type) string {
	if t == vkcompact.Unset {
		return ""
	}
	return t.String()
}
