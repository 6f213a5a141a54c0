package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// sortOutput is the JSON of `vkcompact sort -json`.
type sortOutput struct {
	Op         string   `json:"op"`              // "sort"
	Type       string   `json:"type"`            // u32, i32, f32 or u64
	Stride     uint32   `json:"stride"`          // bytes per element: the key's, a struct's, a record's itemsize
	KeyOffset  uint32   `json:"key_offset"`      // the key's byte offset in the element
	Field      string   `json:"field,omitempty"` // a record's key field, by name
	N          uint64   `json:"n"`
	Descending bool     `json:"descending"`
	BeginBit   uint32   `json:"begin_bit"` // the bits sorted by: [begin_bit, end_bit) of the order-mapped key
	EndBit     uint32   `json:"end_bit"`
	Values     bool     `json:"values"`  // -values was given
	Argsort    bool     `json:"argsort"` // -argsort: the output is the order, not the keys
	GPUms      *float64 `json:"gpu_ms"`  // null where the device has no timestamps
	Device     string   `json:"device"`
}

// sortJob is a checked invocation of sort.
type sortJob struct {
	fileJob
	sort       radix.Sort    // the key type, the order and the bits; with values for -values
	layout     fileio.Layout // the input's elements: keys, or structs moved whole by a key
	lo, hi     uint32        // -bits
	argsort    bool          // -argsort
	in, values *fileio.Input
	n          uint64
	gpuMs      *float64
}

// parseSort parses and checks the flags, and opens and checks the input
// files.
func parseSort(args []string, stderr io.Writer) (*sortJob, error) {
	fs := newFileFlags("sort", stderr, "input `FILE` of keys or structs: raw little-endian, or a .npy array (plain, or records of a structured dtype)",
		"output `FILE` of the sorted keys or structs: .npy when the name ends in .npy (of the input's dtype), raw otherwise")
	typ := fs.String("type", "", "key type `T`: u32, i32, f32 or u64 (a .npy file's dtype gives it)")
	stride := fs.Uint("stride", 0, "struct elements of `BYTES` bytes, a multiple of 4 up to 256 (with -key; a record array's dtype gives it), sorted whole by their key")
	key := fs.String("key", "", "the key: `OFFSET:T|FIELD`, its byte offset and type in a struct (e.g. 12:f32), or its field's name in a .npy record array (e.g. depth, or pos.z)")
	values := fs.String("values", "", "`FILE` of one uint32 value per key (raw, or .npy of '<u4'), moved with its key (needs -values-out)")
	valuesOut := fs.String("values-out", "", "output `FILE` of the reordered values (needs -values)")
	descending := fs.Bool("descending", false, "sort from the largest key; equal keys keep their input order")
	bits := fs.String("bits", "", "sort by bits `LO:HI` (LO to HI-1) of the order-mapped key only (default: all)")
	argsort := fs.Bool("argsort", false, "write the order that sorts the keys, stably, to -out as uint32 indices (np.argsort(keys, kind='stable')), not the keys")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	set["type"] = *typ != "" // an empty -type is none, as before records
	switch {
	case *argsort && (*values != "" || *valuesOut != ""):
		return nil, usage.Errorf("-argsort writes the keys' order as -out: it takes no -values (gather them by the order)")
	case *argsort && (set["stride"] || set["key"]):
		return nil, usage.Errorf("-argsort orders plain keys: structs and records move whole by their -key (or argsort their key field saved as a plain array)")
	case *values != "" && *valuesOut == "":
		return nil, usage.Errorf("-values FILE needs -values-out FILE for the reordered values")
	case *values == "" && *valuesOut != "":
		return nil, usage.Errorf("-values-out FILE needs -values FILE: the values to reorder")
	case *valuesOut != "" && sameFile(*fs.out, *valuesOut):
		return nil, usage.Errorf("-out and -values-out name the same file %s", *fs.out)
	case *values != "" && (set["stride"] || set["key"]):
		return nil, usage.Errorf("-values moves values with plain keys; structs and records move whole by their -key (keep the values in a field)")
	}
	ef := fileio.ElemFlags{Op: "sort", Set: set, Type: *typ, Stride: *stride, Key: *key, Structs: true,
		Types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64},
		Missing: "missing -type T: u32, i32, f32 or u64 (a .npy file's dtype gives it; structs take -stride BYTES -key OFFSET:T)"}
	if set["type"] {
		// A bad -type is refused before the input is opened.
		if _, err := ef.ParseType(); err != nil {
			return nil, err
		}
	}
	j := &sortJob{fileJob: files, argsort: *argsort}
	if *values != "" {
		j.Outputs = append(j.Outputs, fileio.OutputName{Flag: "-values-out", Path: *valuesOut})
	}
	if j.in, err = j.Open("-in", *fs.in); err == nil {
		j.layout, err = ef.Resolve(j.in)
	}
	if err == nil {
		t := j.layout.Elem.Key
		j.n = j.layout.N
		j.sort = radix.Sort{Elem: vkcompact.Plain(t), Descending: *descending, Values: *values != "" || *argsort}
		if j.lo, j.hi, err = parseBits(*bits, t); err == nil {
			j.sort.BeginBit, j.sort.EndBit = j.lo, j.hi
			if j.lo == j.hi {
				// No bits: the library reads an EndBit of 0 as the key's
				// width, so name an empty range at the top instead.
				j.sort.BeginBit, j.sort.EndBit = 8*t.Size(), 8*t.Size()
			}
		}
	}
	if err == nil && *values != "" {
		j.values, _, err = j.OpenPerElement(fileio.ValuesInput, *values, j.n)
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// parseBits parses -bits LO:HI for keys of type t; empty means all bits.
func parseBits(s string, t vkcompact.Type) (lo, hi uint32, err error) {
	width := 8 * t.Size()
	if s == "" {
		return 0, width, nil
	}
	loText, hiText, ok := strings.Cut(s, ":")
	l, err1 := strconv.ParseUint(loText, 10, 32)
	h, err2 := strconv.ParseUint(hiText, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, usage.Errorf("-bits %q: want LO:HI, the bits LO to HI-1 of the key to sort by (e.g. 0:16)", s)
	}
	if l > h || h > uint64(width) {
		return 0, 0, usage.Errorf("-bits %s: want 0 <= LO <= HI <= %d for %s keys", s, width, t)
	}
	return uint32(l), uint32(h), nil
}

// sameFile reports whether two paths name the same file: the same path,
// or, when both exist, the same file by os.SameFile.
func sameFile(a, b string) bool {
	if absA, err := filepath.Abs(a); err == nil {
		if absB, err := filepath.Abs(b); err == nil && absA == absB {
			return true
		}
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// run runs the sort on the device and returns the sorted keys and, with
// -values, the values in their order; or the structs sorted by their key.
func (j *sortJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	if j.layout.Elem.Stride != 0 {
		return j.runStructs(ctx, a)
	}
	plan, err := radix.NewPlan(ctx, j.n, j.sort)
	if err != nil {
		return nil, err
	}
	// Device memory first, then host memory (fileCommand.run).
	size := j.n * uint64(j.sort.Elem.Key.Size())
	b := radix.Buffers{Keys: a.alloc(size), KeysOut: a.alloc(size), Scratch: a.alloc(plan.ScratchSize())}
	if j.sort.Values {
		b.Values, b.ValuesOut = a.alloc(4*j.n), a.alloc(4*j.n)
	}
	if a.err != nil {
		return nil, a.err
	}
	keys, err := j.in.Upload(b.Keys, size)
	if err != nil {
		return nil, err
	}
	var values []byte
	if j.values != nil {
		if values, err = j.values.Upload(b.Values, 4*j.n); err != nil {
			return nil, err
		}
	}
	if j.argsort {
		// The values are the keys' indices: the sorted values are the
		// order (radix.ArgsortSlice's way).
		order := make([]uint32, j.n)
		for i := range order {
			order[i] = uint32(i)
		}
		if err := vk.Upload(b.Values, order); err != nil {
			return nil, err
		}
		if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
			return nil, err
		}
		out := fileio.OutputData{Bytes: keys[:4*j.n], Dtype: npy.Quote(npy.Dtype(vkcompact.Uint32)), N: j.n}
		return []fileio.OutputData{out}, vk.Download(b.ValuesOut, out.Bytes)
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	// The inputs' memory, no longer needed, takes the outputs.
	outs := []fileio.OutputData{{Bytes: keys[:size], Dtype: j.layout.Dtype, N: j.n}}
	if err := vk.Download(b.KeysOut, outs[0].Bytes); err != nil {
		return nil, err
	}
	if j.values != nil {
		outs = append(outs, fileio.OutputData{Bytes: values[:4*j.n], Dtype: npy.Quote(npy.Dtype(vkcompact.Uint32)), N: j.n})
		if err := vk.Download(b.ValuesOut, outs[1].Bytes); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// runStructs sorts structs, or records, by their key (radix.StructPlan).
func (j *sortJob) runStructs(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	plan, err := radix.NewStructPlan(ctx, j.n, radix.StructSort{Elem: j.layout.Elem, Descending: j.sort.Descending,
		BeginBit: j.sort.BeginBit, EndBit: j.sort.EndBit})
	if err != nil {
		return nil, err
	}
	size := j.n * uint64(j.layout.Elem.Size())
	b := radix.StructBuffers{Src: a.alloc(size), Dst: a.alloc(size), Scratch: a.alloc(plan.ScratchSize())}
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
	out := fileio.OutputData{Dtype: j.layout.Dtype, N: j.n}
	out.Bytes, err = j.layout.Download(b.Dst, data, j.n) // the input's memory, no longer needed
	return []fileio.OutputData{out}, err
}

// report prints what was sorted and the GPU time.
func (j *sortJob) report(stdout io.Writer, device string) error {
	l := j.layout
	if j.asJSON {
		return encodeJSON(stdout, sortOutput{
			Op: "sort", Type: j.sort.Elem.Key.String(), Stride: uint32(l.Size), KeyOffset: uint32(l.KeyOffset), Field: l.Field,
			N: j.n, Descending: j.sort.Descending, BeginBit: j.lo, EndBit: j.hi, Values: j.values != nil, Argsort: j.argsort, GPUms: j.gpuMs, Device: device,
		})
	}
	order := "ascending"
	if j.sort.Descending {
		order = "descending"
	}
	what := fmt.Sprintf("%d %s %s", j.n, j.sort.Elem.Key, order)
	switch {
	case l.Field != "":
		what = fmt.Sprintf("%d records of %d bytes by %s (%s) %s", j.n, l.Size, l.Field, j.sort.Elem.Key, order)
	case l.Elem.Stride != 0:
		what = fmt.Sprintf("%d structs of %d bytes by the %s at byte %d %s", j.n, l.Size, j.sort.Elem.Key, l.KeyOffset, order)
	case j.values != nil:
		what += " with values"
	case j.argsort:
		what += ", argsort"
	}
	fmt.Fprintf(stdout, "sort: %s, bits %d:%d, %s\n", what, j.lo, j.hi, gpuTimeText(j.gpuMs, device))
	return nil
}
