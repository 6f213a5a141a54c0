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

// partition3Output is the JSON of `vkcompact partition3 -json`.
type partition3Output struct {
	Op        string   `json:"op"` // "partition3"
	Type      string   `json:"type"`
	Stride    uint32   `json:"stride"`
	KeyOffset uint32   `json:"key_offset"`
	Field     string   `json:"field,omitempty"`
	First     string   `json:"first"`  // the first predicate, e.g. "x < 10"
	Second    string   `json:"second"` // the second
	Firsts    uint32   `json:"first_count"`
	Seconds   uint32   `json:"second_count"`
	Rest      uint32   `json:"rest_count"`
	Total     uint32   `json:"total"`
	GPUms     *float64 `json:"gpu_ms"` // null where the device has no timestamps
	Device    string   `json:"device"`
}

// partition3Job is a checked invocation of partition3.
type partition3Job struct {
	fileJob
	part   compact.Partition3
	in     *fileio.Input
	layout fileio.Layout
	n      uint64
	res    compact.Partition3Result
	gpuMs  *float64
}

// parsePartition3 parses and checks the flags of partition3 (as compact's,
// with -first and -second for -keep and three outputs for -out), and
// opens and checks the input file.
func parsePartition3(args []string, stderr io.Writer) (*partition3Job, error) {
	fs := newFlags("partition3", stderr)
	in := fs.String("in", "", "input `FILE`: raw little-endian elements, or a .npy array (plain, or records of a structured dtype)")
	outHelp := "output `FILE` of the %s: .npy when the name ends in .npy (of the input's dtype), raw otherwise"
	outs := [3]*string{fs.String("out-first", "", fmt.Sprintf(outHelp, "elements -first keeps")),
		fs.String("out-second", "", fmt.Sprintf(outHelp, "others -second keeps")), fs.String("out-rest", "", fmt.Sprintf(outHelp, "rest"))}
	device := fs.String("device", "", deviceHelp)
	asJSON := fs.Bool("json", false, jsonHelp)
	typ := fs.String("type", "", "element type `T`: u32, i32, f32, u64, i64 or f64 (a .npy file's dtype gives it)")
	stride := fs.Uint("stride", 0, "struct elements of `BYTES` bytes, a multiple of 4 up to 256 (with -key; a record array's dtype gives it)")
	key := fs.String("key", "", "the key: `OFFSET:T|FIELD`, its byte offset and type in a struct (e.g. 28:f32), or its field's name in a .npy record array (e.g. life, or pos.x)")
	first := fs.String("first", "", "the first group's test `EXPR`: nonzero, x OP VALUE (OP one of == != < <= > >=), or x & MASK")
	second := fs.String("second", "", "the second group's test `EXPR`, for the elements the first does not take")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case *in == "":
		return nil, usage.Errorf("missing -in FILE")
	case *outs[0] == "" || *outs[1] == "" || *outs[2] == "":
		return nil, usage.Errorf("missing -out-first, -out-second or -out-rest FILE: the three outputs")
	case *outs[0] == *outs[1] || *outs[0] == *outs[2] || *outs[1] == *outs[2]:
		return nil, usage.Errorf("-out-first, -out-second and -out-rest must name three different files")
	case !set["first"] || !set["second"]:
		return nil, usage.Errorf("missing -first EXPR or -second EXPR: the two groups' tests")
	}
	j := &partition3Job{fileJob: fileJob{name: "partition3", Files: fileio.Files{Outputs: []fileio.OutputName{{Flag: "-out-first", Path: *outs[0]}, {Flag: "-out-second", Path: *outs[1]}, {Flag: "-out-rest", Path: *outs[2]}}},
		device: *device, timeout: fs.timeout, asJSON: *asJSON}}
	ef := fileio.ElemFlags{Op: "partition3", Set: set, Type: *typ, Stride: *stride, Key: *key, Structs: true,
		Types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64},
		Missing: "missing -type T, or -stride BYTES and -key OFFSET:T: the element type (a .npy file's dtype gives it)"}
	if set["type"] && !set["stride"] && !set["key"] {
		if _, err := ef.ParseType(); err != nil { // refused before the input is opened
			return nil, err
		}
	}
	var err error
	if j.in, err = j.Open("-in", *in); err == nil {
		j.layout, err = ef.Resolve(j.in)
	}
	if err == nil {
		j.part.Elem, j.n = j.layout.Elem, j.layout.N
		for _, p := range []struct {
			flag, expr string
			keep       *compact.Keep
		}{{"-first", *first, &j.part.First}, {"-second", *second, &j.part.Second}} {
			if *p.keep, err = compact.ParseKeep(p.expr, j.part.Elem.Key); err != nil {
				err = usage.Errorf("%s: %v", p.flag, err)
				break
			}
		}
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// run runs the partition on the device and returns the three groups.
func (j *partition3Job) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	plan, err := compact.NewPartition3Plan(ctx, j.n, j.part)
	if err != nil {
		return nil, err
	}
	// Device memory first, then host memory (fileCommand.run).
	stride := uint64(j.part.Elem.Size())
	size := j.n * stride
	b := compact.Partition3Buffers{Src: a.alloc(size), First: a.alloc(size), Second: a.alloc(size), Rest: a.alloc(size),
		Result: a.alloc(compact.Partition3ResultSize), Scratch: a.alloc(plan.ScratchSize())}
	if a.err != nil {
		return nil, a.err
	}
	data, err := j.layout.Upload(j.in, b.Src)
	if err != nil {
		return nil, err
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	r, err := compact.ReadPartition3Result(b.Result)
	if err != nil {
		return nil, err
	}
	if uint64(r.Total) != j.n || uint64(r.First)+uint64(r.Second)+uint64(r.Rest) != j.n {
		return nil, fmt.Errorf("the GPU reported %d, %d and %d of %d for %d elements", r.First, r.Second, r.Rest, r.Total, j.n)
	}
	j.res = r
	var out []fileio.OutputData
	for i, g := range []struct {
		r vk.Range
		k uint64
	}{{b.First, uint64(r.First)}, {b.Second, uint64(r.Second)}, {b.Rest, uint64(r.Rest)}} {
		host := data[:g.k*stride] // the input's memory, no longer needed, for the first
		if i > 0 {
			host = make([]byte, g.k*stride)
		}
		o := fileio.OutputData{Dtype: j.layout.Dtype, N: g.k}
		if o.Bytes, err = j.layout.Download(g.r, host, g.k); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// report prints the counts and the GPU time.
func (j *partition3Job) report(stdout io.Writer, device string) error {
	r := j.res
	if j.asJSON {
		l := j.layout
		return encodeJSON(stdout, partition3Output{Op: "partition3", Type: l.Elem.Key.String(), Stride: uint32(l.Size), KeyOffset: uint32(l.KeyOffset),
			Field: l.Field, First: j.part.First.String(), Second: j.part.Second.String(),
			Firsts: r.First, Seconds: r.Second, Rest: r.Rest, Total: r.Total, GPUms: j.gpuMs, Device: device})
	}
	sep := " "
	if j.gpuMs == nil {
		sep = ", "
	}
	fmt.Fprintf(stdout, "partitioned %d: %d first, %d second, %d rest%s%s\n", r.Total, r.First, r.Second, r.Rest, sep, gpuTimeText(j.gpuMs, device))
	return nil
}
