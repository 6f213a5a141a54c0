package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// sortOutput is the JSON of `vkcompact sort -json`.
type sortOutput struct {
	Op         string   `json:"op"`   // "sort"
	Type       string   `json:"type"` // u32, i32, f32 or u64
	N          uint64   `json:"n"`
	Descending bool     `json:"descending"`
	BeginBit   uint32   `json:"begin_bit"` // the bits sorted by: [begin_bit, end_bit) of the order-mapped key
	EndBit     uint32   `json:"end_bit"`
	Values     bool     `json:"values"` // -values was given
	GPUms      *float64 `json:"gpu_ms"` // null where the device has no timestamps
	Device     string   `json:"device"`
}

// sortJob is a checked invocation of sort.
type sortJob struct {
	fileJob
	sort       radix.Sort
	lo, hi     uint32 // -bits
	in, values *inputFile
	n          uint64
	gpuMs      *float64
}

// parseSort parses and checks the flags, and opens and checks the input
// files.
func parseSort(args []string, stderr io.Writer) (*sortJob, error) {
	fs := newFileFlags("sort", stderr, "input `FILE` of keys: raw little-endian, or a .npy array",
		"output `FILE` of the sorted keys: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "key type `T`: u32, i32, f32 or u64")
	values := fs.String("values", "", "`FILE` of one uint32 value per key (raw, or .npy of '<u4'), moved with its key (needs -values-out)")
	valuesOut := fs.String("values-out", "", "output `FILE` of the reordered values (needs -values)")
	descending := fs.Bool("descending", false, "sort from the largest key; equal keys keep their input order")
	bits := fs.String("bits", "", "sort by bits `LO:HI` (LO to HI-1) of the order-mapped key only (default: all)")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	switch {
	case *typ == "":
		return nil, usagef("missing -type T: u32, i32, f32 or u64")
	case *values != "" && *valuesOut == "":
		return nil, usagef("-values FILE needs -values-out FILE for the reordered values")
	case *values == "" && *valuesOut != "":
		return nil, usagef("-values-out FILE needs -values FILE: the values to reorder")
	case *valuesOut != "" && sameFile(*fs.out, *valuesOut):
		return nil, usagef("-out and -values-out name the same file %s", *fs.out)
	}
	t, err := parseTypeOf("sort", *typ, vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64)
	if err != nil {
		return nil, err
	}
	j := &sortJob{fileJob: files, sort: radix.Sort{Key: t, Descending: *descending, Values: *values != ""}}
	if *values != "" {
		j.outputs = append(j.outputs, outputName{"-values-out", *valuesOut})
	}
	if j.lo, j.hi, err = parseBits(*bits, t); err != nil {
		return nil, err
	}
	j.sort.BeginBit, j.sort.EndBit = j.lo, j.hi
	if j.lo == j.hi {
		// No bits: the library reads an EndBit of 0 as the key's width,
		// so name an empty range at the top instead.
		j.sort.BeginBit, j.sort.EndBit = 8*t.Size(), 8*t.Size()
	}
	if j.in, err = j.open("-in", *fs.in); err == nil {
		j.n, err = j.in.elements(vkcompact.Plain(t))
	}
	if err == nil && *values != "" {
		j.values, _, err = j.openPerElement(valuesInput, *values, j.n)
	}
	if err != nil {
		j.close()
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
		return 0, 0, usagef("-bits %q: want LO:HI, the bits LO to HI-1 of the key to sort by (e.g. 0:16)", s)
	}
	if l > h || h > uint64(width) {
		return 0, 0, usagef("-bits %s: want 0 <= LO <= HI <= %d for %s keys", s, width, t)
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
// -values, the values in their order.
func (j *sortJob) run(ctx *vk.Context, a *allocator) ([]outputData, error) {
	plan, err := radix.NewPlan(ctx, j.n, j.sort)
	if err != nil {
		return nil, err
	}
	// Device memory first, then host memory (fileCommand.run).
	size := j.n * uint64(j.sort.Key.Size())
	b := radix.Buffers{Keys: a.alloc(size), KeysOut: a.alloc(size), Scratch: a.alloc(plan.ScratchSize())}
	if j.values != nil {
		b.Values, b.ValuesOut = a.alloc(4*j.n), a.alloc(4*j.n)
	}
	if a.err != nil {
		return nil, a.err
	}
	keys, err := j.in.upload(b.Keys, size)
	if err != nil {
		return nil, err
	}
	var values []byte
	if j.values != nil {
		if values, err = j.values.upload(b.Values, 4*j.n); err != nil {
			return nil, err
		}
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	// The inputs' memory, no longer needed, takes the outputs.
	outs := []outputData{{data: keys[:size], descr: npyTypes[j.sort.Key], n: j.n}}
	if err := vk.Download(b.KeysOut, outs[0].data); err != nil {
		return nil, err
	}
	if j.values != nil {
		outs = append(outs, outputData{data: values[:4*j.n], descr: npyTypes[vkcompact.Uint32], n: j.n})
		if err := vk.Download(b.ValuesOut, outs[1].data); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// report prints what was sorted and the GPU time.
func (j *sortJob) report(stdout io.Writer, device string) error {
	if j.asJSON {
		return encodeJSON(stdout, sortOutput{
			Op: "sort", Type: j.sort.Key.String(), N: j.n, Descending: j.sort.Descending,
			BeginBit: j.lo, EndBit: j.hi, Values: j.values != nil, GPUms: j.gpuMs, Device: device,
		})
	}
	order := "ascending"
	if j.sort.Descending {
		order = "descending"
	}
	with := ""
	if j.values != nil {
		with = " with values"
	}
	fmt.Fprintf(stdout, "sort: %d %s %s%s, bits %d:%d, %s\n", j.n, j.sort.Key, order, with, j.lo, j.hi, gpuTimeText(j.gpuMs, device))
	return nil
}
