package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact/compact"
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
	sort       radix.Sort
	lo, hi     uint32 // -bits
	in, values *inputFile
	n          uint64
	out        string
	valuesOut  string
	device     string
	asJSON     bool
}

// sortResult is what a sort on the GPU produced.
type sortResult struct {
	gpuMs     *float64
	device    string
	keys      []byte
	valuesOut []byte // nil without -values
}

// runSort runs `vkcompact sort`: the checks first, then the GPU, then the
// outputs. Both outputs are written to temporary files and renamed only
// once both are complete.
func runSort(args []string, stdout, stderr io.Writer) (err error) {
	j, err := parseSort(args, stderr)
	if err != nil {
		return err
	}
	defer j.close()
	outs := []*outputFile{}
	defer func() {
		if err != nil {
			for _, o := range outs {
				o.abort()
			}
		}
	}()
	out, err := createOutput(j.out)
	if err != nil {
		return err
	}
	outs = append(outs, out)
	var valuesOut *outputFile
	if j.values != nil {
		if valuesOut, err = createOutputFor("-values-out", j.valuesOut); err != nil {
			return err
		}
		outs = append(outs, valuesOut)
	}
	res, err := j.run(stderr)
	if err != nil {
		return err
	}
	if err := out.write(npyHeaderFor(j.out, j.sort.Key, j.n), res.keys); err != nil {
		return err
	}
	if valuesOut != nil {
		if err := valuesOut.write(npyHeaderFor(j.valuesOut, compact.Uint32, j.n), res.valuesOut); err != nil {
			return err
		}
	}
	if err := out.rename(); err != nil {
		return err
	}
	if valuesOut != nil {
		if err := valuesOut.rename(); err != nil {
			// Leave no keys without their values.
			os.Remove(j.out)
			return err
		}
	}
	if j.asJSON {
		return encodeJSON(stdout, sortOutput{
			Op: "sort", Type: j.sort.Key.String(), N: j.n, Descending: j.sort.Descending,
			BeginBit: j.lo, EndBit: j.hi, Values: j.values != nil, GPUms: res.gpuMs, Device: res.device,
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
	fmt.Fprintf(stdout, "sort: %d %s %s%s, bits %d:%d, %s\n", j.n, j.sort.Key, order, with, j.lo, j.hi, gpuTimeText(res.gpuMs, res.device))
	return nil
}

// parseSort parses and checks the flags, and opens and checks the input
// files.
func parseSort(args []string, stderr io.Writer) (*sortJob, error) {
	fs := newFlags("sort", stderr)
	in := fs.String("in", "", "input `FILE` of keys: raw little-endian, or a .npy array")
	out := fs.String("out", "", "output `FILE` of the sorted keys: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "key type `T`: u32, i32, f32 or u64")
	values := fs.String("values", "", "`FILE` of one uint32 value per key (raw, or .npy of '<u4'), moved with its key (needs -values-out)")
	valuesOut := fs.String("values-out", "", "output `FILE` of the reordered values (needs -values)")
	descending := fs.Bool("descending", false, "sort from the largest key; equal keys keep their input order")
	bits := fs.String("bits", "", "sort by bits `LO:HI` (LO to HI-1) of the order-mapped key only (default: all)")
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
		return nil, usagef("missing -type T: u32, i32, f32 or u64")
	case *values != "" && *valuesOut == "":
		return nil, usagef("-values FILE needs -values-out FILE for the reordered values")
	case *values == "" && *valuesOut != "":
		return nil, usagef("-values-out FILE needs -values FILE: the values to reorder")
	case *valuesOut != "" && sameFile(*out, *valuesOut):
		return nil, usagef("-out and -values-out name the same file %s", *out)
	}
	t, err := parseTypeOf("sort", *typ, compact.Uint32, compact.Int32, compact.Float32, compact.Uint64)
	if err != nil {
		return nil, err
	}
	j := &sortJob{out: *out, valuesOut: *valuesOut, device: *device, asJSON: *asJSON}
	j.sort = radix.Sort{Key: t, Descending: *descending, Values: *values != ""}
	if j.lo, j.hi, err = parseBits(*bits, t); err != nil {
		return nil, err
	}
	j.sort.BeginBit, j.sort.EndBit = j.lo, j.hi
	if j.lo == j.hi {
		// No bits: the library reads an EndBit of 0 as the key's width,
		// so name an empty range at the top instead.
		j.sort.BeginBit, j.sort.EndBit = 8*t.Size(), 8*t.Size()
	}
	if j.in, err = openInput("-in", *in); err != nil {
		return nil, err
	}
	if j.n, err = j.in.elements(compact.Plain(t)); err == nil && *values != "" {
		err = j.openValues(*values)
	}
	if err != nil {
		j.close()
		return nil, err
	}
	return j, nil
}

// parseBits parses -bits LO:HI for keys of type t; empty means all bits.
func parseBits(s string, t compact.Type) (lo, hi uint32, err error) {
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

// openValues opens the -values file and checks it holds one uint32 per
// key.
func (j *sortJob) openValues(path string) error {
	f, err := openInput("-values", path)
	if err != nil {
		return err
	}
	j.values = f
	var n uint64
	if f.npy != nil {
		if n, err = npyValues(f.npy); err != nil {
			return usagef("%s: %v", f.name, err)
		}
	} else {
		if f.bytes%4 != 0 {
			return usagef("%s: %d bytes is not a whole number of 4-byte values", f.name, f.bytes)
		}
		n = f.bytes / 4
	}
	if n != j.n {
		return usagef("%s holds %d values for %d keys", f.name, n, j.n)
	}
	return nil
}

// close closes the input files.
func (j *sortJob) close() {
	for _, f := range []*inputFile{j.in, j.values} {
		if f != nil {
			f.f.Close()
		}
	}
}

// run runs the sort on the device -device names.
func (j *sortJob) run(stderr io.Writer) (r sortResult, err error) {
	ctx, err := vk.Open(vk.Options{Device: j.device})
	if err != nil {
		return r, err
	}
	defer func() { err = releaseChecked(ctx, err, stderr) }()
	r.device = ctx.Info().Name
	plan, err := radix.NewPlan(ctx, j.n, j.sort)
	if err != nil {
		return r, err
	}
	// Device memory first: a file too large for the device fails here,
	// before it is read into host memory.
	a := &allocator{ctx: ctx}
	defer a.release()
	size := j.n * uint64(j.sort.Key.Size())
	b := radix.Buffers{Keys: a.alloc(size), KeysOut: a.alloc(size), Scratch: a.alloc(plan.ScratchSize())}
	if j.values != nil {
		b.Values, b.ValuesOut = a.alloc(4*j.n), a.alloc(4*j.n)
	}
	if a.err != nil {
		return r, a.err
	}
	keys, err := j.in.read(size)
	if err != nil {
		return r, err
	}
	if err := vk.Upload(b.Keys, keys); err != nil {
		return r, err
	}
	var values []byte
	if j.values != nil {
		if values, err = j.values.read(4 * j.n); err != nil {
			return r, err
		}
		if err := vk.Upload(b.Values, values); err != nil {
			return r, err
		}
	}
	if r.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return r, err
	}
	// The inputs' memory, no longer needed, takes the outputs.
	r.keys = keys[:size]
	if err := vk.Download(b.KeysOut, r.keys); err != nil {
		return r, err
	}
	if j.values != nil {
		r.valuesOut = values[:4*j.n]
		if err := vk.Download(b.ValuesOut, r.valuesOut); err != nil {
			return r, err
		}
	}
	return r, nil
}
