package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// selectOutput is the JSON of `vkcompact compact -json` and `split -json`.
type selectOutput struct {
	Op        string   `json:"op"`         // "compact" or "split"
	Type      string   `json:"type"`       // the key type: u32, i32, f32, u64, i64 or f64
	Stride    uint32   `json:"stride"`     // bytes per element
	KeyOffset uint32   `json:"key_offset"` // the key's byte offset in the element
	Keep      string   `json:"keep"`       // the predicate, e.g. "x > 0.5" or "flagged (1-byte flags)"
	InPlace   bool     `json:"in_place"`   // -inplace
	Kept      uint32   `json:"kept"`
	Rejected  uint32   `json:"rejected"`
	Total     uint32   `json:"total"`
	GPUms     *float64 `json:"gpu_ms"` // null where the device has no timestamps
	Device    string   `json:"device"`
}

// selectJob is a checked invocation of compact or split.
type selectJob struct {
	sel       compact.Selection
	in, flags *inputFile // flags is nil with -keep
	n         uint64     // elements
	out       string
	device    string
	asJSON    bool
}

func runCompact(args []string, stdout, stderr io.Writer) error {
	return runSelect("compact", args, stdout, stderr)
}

func runSplit(args []string, stdout, stderr io.Writer) error {
	return runSelect("split", args, stdout, stderr)
}

// runSelect runs compact or split: every check of the invocation and its
// input files first, then the GPU, then the output file, which appears
// under its name only once complete.
func runSelect(op string, args []string, stdout, stderr io.Writer) (err error) {
	j, err := parseSelect(op, args, stderr)
	if err != nil {
		return err
	}
	defer j.close()
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
	var header []byte
	if strings.HasSuffix(j.out, ".npy") {
		descr := npyTypes[j.sel.Elem.Key]
		if j.sel.Elem.Stride != 0 {
			descr = fmt.Sprintf("|V%d", j.sel.Elem.Stride)
		}
		header = npyHeaderBytes(descr, uint64(len(res.out))/uint64(j.sel.Elem.Size()))
	}
	if err := out.commit(header, res.out); err != nil {
		return err
	}
	if j.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(selectOutput{
			Op: op, Type: j.sel.Elem.Key.String(), Stride: j.sel.Elem.Size(), KeyOffset: j.sel.Elem.KeyOffset,
			Keep: j.sel.Keep.String(), InPlace: j.sel.InPlace,
			Kept: res.Kept, Rejected: res.Rejected, Total: res.Total, GPUms: res.gpuMs, Device: res.device,
		})
	}
	pct := 0.0
	if res.Total > 0 {
		pct = 100 * float64(res.Kept) / float64(res.Total)
	}
	if res.gpuMs == nil {
		fmt.Fprintf(stdout, "kept %d of %d (%.2f%%), GPU time n/a (no timestamps), on %s\n", res.Kept, res.Total, pct, res.device)
	} else {
		fmt.Fprintf(stdout, "kept %d of %d (%.2f%%) in %.3f ms GPU time on %s\n", res.Kept, res.Total, pct, *res.gpuMs, res.device)
	}
	return nil
}

// parseSelect parses and checks the flags, and opens and checks the input
// files.
func parseSelect(op string, args []string, stderr io.Writer) (*selectJob, error) {
	fs := newFlags(op, stderr)
	in := fs.String("in", "", "input `FILE`: raw little-endian elements, or a .npy array")
	out := fs.String("out", "", "output `FILE`: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "element type `T`: u32, i32, f32, u64, i64 or f64")
	stride := fs.Uint("stride", 0, "struct elements of `BYTES` bytes, a multiple of 4 up to 256 (with -key)")
	key := fs.String("key", "", "the structs' key: its byte offset and type, `OFFSET:T` (e.g. 28:f32)")
	keep := fs.String("keep", "", "keep-if `EXPR`: nonzero, x OP VALUE (OP one of == != < <= > >=), or x & MASK")
	flagsFile := fs.String("flags", "", "keep the elements whose flag is nonzero: `FILE` of one byte per element, or .npy of bool, uint8 or uint32")
	inPlace := fs.Bool("inplace", false, "run in place on the GPU: the source buffer is the destination")
	device := fs.String("device", "", "device index or name substring (default: VKCOMPACT_DEVICE, else the best GPU)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case *in == "":
		return nil, usagef("missing -in FILE")
	case *out == "":
		return nil, usagef("missing -out FILE")
	case set["keep"] && set["flags"]:
		return nil, usagef("give -keep EXPR or -flags FILE, not both")
	case !set["keep"] && !set["flags"]:
		return nil, usagef("missing -keep EXPR or -flags FILE: which elements to keep")
	}
	j := &selectJob{out: *out, device: *device, asJSON: *asJSON}
	j.sel.Split, j.sel.InPlace = op == "split", *inPlace
	var err error
	if j.sel.Elem, err = parseElem(set, *typ, *stride, *key); err != nil {
		return nil, err
	}
	if set["keep"] {
		if j.sel.Keep, err = compact.ParseKeep(*keep, j.sel.Elem.Key); err != nil {
			return nil, usageError{err}
		}
	}
	if j.in, err = openInput("-in", *in); err != nil {
		return nil, err
	}
	if j.n, err = j.in.elements(j.sel.Elem); err == nil && set["flags"] {
		err = j.openFlags(*flagsFile)
	}
	if err != nil {
		j.close()
		return nil, err
	}
	return j, nil
}

// parseElem returns the elements -type, or -stride and -key, describe.
func parseElem(set map[string]bool, typ string, stride uint, key string) (compact.Elem, error) {
	switch {
	case set["type"] && (set["stride"] || set["key"]):
		return compact.Elem{}, usagef("give -type T for plain elements, or -stride BYTES and -key OFFSET:T for structs, not both")
	case set["type"]:
		t, err := compact.ParseType(typ)
		if err != nil {
			return compact.Elem{}, usagef("-type: %v", err)
		}
		return compact.Plain(t), nil
	case !set["stride"] && !set["key"]:
		return compact.Elem{}, usagef("missing -type T, or -stride BYTES and -key OFFSET:T: the element type")
	case !set["stride"] || !set["key"]:
		return compact.Elem{}, usagef("struct elements need both -stride BYTES and -key OFFSET:T")
	}
	if stride < 4 || stride > compact.MaxStride || stride%4 != 0 {
		return compact.Elem{}, usagef("-stride %d: want a multiple of 4 from 4 to %d", stride, compact.MaxStride)
	}
	offText, typText, ok := strings.Cut(key, ":")
	off, err := strconv.ParseUint(offText, 10, 32)
	if !ok || err != nil {
		return compact.Elem{}, usagef("-key %q: want OFFSET:T, a byte offset and a type (e.g. 28:f32)", key)
	}
	t, err := compact.ParseType(typText)
	if err != nil {
		return compact.Elem{}, usagef("-key %q: %v", key, err)
	}
	e := compact.Struct(uint32(stride), uint32(off), t)
	if err := e.Check(); err != nil {
		return compact.Elem{}, usagef("-stride %d -key %s: %v", stride, key, err)
	}
	return e, nil
}

// openFlags opens the -flags file, checks it holds one flag per element
// and sets the predicate to its flag width.
func (j *selectJob) openFlags(path string) error {
	f, err := openInput("-flags", path)
	if err != nil {
		return err
	}
	j.flags = f
	width := uint32(1)
	if f.npy != nil {
		if width, err = npyFlags(f.npy); err != nil {
			return usagef("%s: %v", f.name, err)
		}
	}
	if n := f.bytes / uint64(width); n != j.n {
		return usagef("%s holds %d flags for %d elements", f.name, n, j.n)
	}
	j.sel.Keep = compact.KeepFlagged(width)
	return nil
}

// close closes the input files.
func (j *selectJob) close() {
	for _, f := range []*inputFile{j.in, j.flags} {
		if f != nil {
			f.f.Close()
		}
	}
}

// selectResult is what a run on the GPU produced.
type selectResult struct {
	compact.Result
	gpuMs  *float64 // nil where the device has no timestamps
	device string   // the device's name
	out    []byte   // the output's elements
}

// run runs the selection on the device -device names.
func (j *selectJob) run(stderr io.Writer) (r selectResult, err error) {
	ctx, err := vk.Open(vk.Options{Device: j.device})
	if err != nil {
		return r, err
	}
	defer func() { err = releaseChecked(ctx, err, stderr) }()
	r.device = ctx.Info().Name
	plan, err := compact.NewPlan(ctx, j.n, j.sel)
	if err != nil {
		return r, err
	}
	// Device memory first: a file too large for the device fails here,
	// before it is read into host memory.
	var bufs []*vk.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	var allocErr error
	alloc := func(size uint64) vk.Range {
		if allocErr != nil {
			return vk.Range{}
		}
		b, err := ctx.NewBuffer(max(size, 16), vk.DeviceLocal)
		if err != nil {
			allocErr = err
			return vk.Range{}
		}
		bufs = append(bufs, b)
		return b.Range(0, size)
	}
	size := j.n * uint64(j.sel.Elem.Size())
	b := compact.Buffers{Src: alloc(size), Result: alloc(compact.ResultSize), Scratch: alloc(plan.ScratchSize())}
	if !j.sel.InPlace {
		b.Dst = alloc(size)
	}
	if j.flags != nil {
		// uint8 flags are read in 4-byte words: pad them with zeros.
		b.Flags = alloc((j.flags.bytes + 3) &^ 3)
	}
	if allocErr != nil {
		return r, allocErr
	}
	data, err := j.in.read(size)
	if err != nil {
		return r, err
	}
	if err := vk.Upload(b.Src, data); err != nil {
		return r, err
	}
	if j.flags != nil {
		flags, err := j.flags.read(b.Flags.Size)
		if err != nil {
			return r, err
		}
		if err := vk.Upload(b.Flags, flags); err != nil {
			return r, err
		}
	}
	var timer *vk.Timer
	if ctx.Info().TimestampValidBits > 0 {
		if timer, err = ctx.NewTimer(2); err != nil {
			return r, err
		}
		defer timer.Release()
	}
	err = ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageComputeShader, vk.AccessMemoryWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
		if timer != nil {
			timer.Reset(cb)
			timer.Stamp(cb, 0)
		}
		rec := pipeline.Record(cb)
		plan.Record(rec, b)
		if timer != nil {
			timer.Stamp(cb, 1)
		}
		cb.MemoryBarrier(vk.StageComputeShader, vk.StageAllCommands, vk.AccessShaderWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
		return rec.Err()
	})
	if err != nil {
		return r, err
	}
	if timer != nil {
		ns, err := timer.Nanoseconds(0, 1)
		if err != nil {
			return r, err
		}
		ms := ns / 1e6
		r.gpuMs = &ms
	}
	if r.Result, err = compact.ReadResult(b.Result); err != nil {
		return r, err
	}
	if uint64(r.Total) != j.n || r.Kept > r.Total || r.Kept+r.Rejected != r.Total {
		return r, fmt.Errorf("the GPU reported %d kept and %d rejected of %d for %d elements", r.Kept, r.Rejected, r.Total, j.n)
	}
	outLen := uint64(r.Kept) * uint64(j.sel.Elem.Size())
	if j.sel.Split {
		outLen = size
	}
	dst := b.Dst
	if j.sel.InPlace {
		dst = b.Src
	}
	r.out = data[:outLen] // the input's memory, no longer needed
	return r, vk.Download(dst.Sub(0, outLen), r.out)
}
