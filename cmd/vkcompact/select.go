package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// npyTypes is the .npy dtype of each key type.
var npyTypes = map[compact.Type]string{
	compact.Uint32: "<u4", compact.Int32: "<i4", compact.Float32: "<f4",
	compact.Uint64: "<u8", compact.Int64: "<i8", compact.Float64: "<f8",
}

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

// inputFile is an input file, opened and checked, positioned at its data.
type inputFile struct {
	f     *os.File
	name  string     // the flag and the path, for messages: "-in data.npy"
	npy   *npyHeader // nil for a raw file
	bytes uint64     // bytes of data
}

// openInput opens the file a flag names and reads its .npy header, if it
// has one (one is recognised by its magic string, whatever the name; a
// file named .npy must have one).
func openInput(flagName, path string) (*inputFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("%s: %v", flagName, err)
	}
	in := &inputFile{f: f, name: flagName + " " + path}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = usagef("%s: %v", in.name, err)
	case !fi.Mode().IsRegular():
		err = usagef("%s: not a regular file", in.name)
	default:
		in.bytes = uint64(fi.Size())
		var magic [len(npyMagic)]byte
		if _, rerr := f.ReadAt(magic[:], 0); rerr == nil && string(magic[:]) == npyMagic {
			if in.npy, err = readNpyHeader(f, fi.Size()); err != nil {
				err = usagef("%s: %v", in.name, err)
			} else {
				in.bytes = uint64(fi.Size() - in.npy.dataOff)
			}
		} else if strings.HasSuffix(path, ".npy") {
			// Read as raw, a damaged .npy file's header would become data.
			err = usagef("%s: not a .npy file: no \\x93NUMPY magic string (a raw file must not be named .npy)", in.name)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// elements returns how many elements of e the input holds.
func (in *inputFile) elements(e compact.Elem) (uint64, error) {
	n := in.bytes / uint64(e.Size())
	if in.npy != nil {
		var err error
		if n, err = npyElements(in.npy, e); err != nil {
			return 0, usagef("%s: %v", in.name, err)
		}
	} else if in.bytes%uint64(e.Size()) != 0 {
		return 0, usagef("%s: %d bytes is not a whole number of %d-byte elements", in.name, in.bytes, e.Size())
	}
	if n > compact.MaxElements {
		return 0, usagef("%s: %d elements: at most %d", in.name, n, uint64(compact.MaxElements))
	}
	return n, nil
}

// read reads the data into a buffer of size bytes, at least the data's,
// zero past the data.
func (in *inputFile) read(size uint64) ([]byte, error) {
	buf := make([]byte, max(size, in.bytes))
	if _, err := io.ReadFull(in.f, buf[:in.bytes]); err != nil {
		return nil, usagef("%s: reading it: %v (did it change meanwhile?)", in.name, err)
	}
	return buf, nil
}

// npyElements returns how many elements of e a .npy array holds. Plain
// elements take a 1-D array of the key's dtype. Structs of S bytes take a
// 1-D array of void items '|VS', or bytes ('|u1'): S*n of them in 1-D, or n
// rows of S in 2-D.
func npyElements(h *npyHeader, e compact.Elem) (uint64, error) {
	if e.Stride == 0 {
		want := npyTypes[e.Key]
		if err := npyDtype(h, fmt.Sprintf(" does not match -type %s (want '%s')", e.Key, want), want); err != nil {
			return 0, err
		}
		if len(h.shape) != 1 {
			return 0, fmt.Errorf("shape %s: want a 1-D array", h.shapeString())
		}
		return h.count, nil
	}
	stride := uint64(e.Stride)
	void := fmt.Sprintf("|V%d", stride)
	if err := npyDtype(h, fmt.Sprintf(" does not match -stride %d (want '%s', or bytes '|u1')", stride, void), void, "|u1"); err != nil {
		return 0, err
	}
	switch {
	case h.descr == void && len(h.shape) == 1:
		return h.count, nil
	case h.descr == "|u1" && len(h.shape) == 1 && h.count%stride == 0,
		h.descr == "|u1" && len(h.shape) == 2 && h.shape[1] == stride:
		return h.count / stride, nil
	}
	return 0, fmt.Errorf("shape %s of '%s' is not %d-byte structs: want (n,) of '%s', or (n, %d) or (%d*n,) of '|u1'",
		h.shapeString(), h.descr, stride, void, stride, stride)
}

// npyFlags returns the bytes per flag of a .npy flags array: a 1-D array
// of bool or uint8 (1) or uint32 (4).
func npyFlags(h *npyHeader) (uint32, error) {
	if err := npyDtype(h, ": flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')", "|b1", "|u1", "<u4"); err != nil {
		return 0, err
	}
	if len(h.shape) != 1 {
		return 0, fmt.Errorf("shape %s: want a 1-D array", h.shapeString())
	}
	if h.descr == "<u4" {
		return 4, nil
	}
	return 1, nil
}

// npyValues returns how many values a .npy array of sort's values holds:
// a 1-D array of uint32.
func npyValues(h *npyHeader) (uint64, error) {
	if err := npyDtype(h, ": values must be uint32 ('<u4')", "<u4"); err != nil {
		return 0, err
	}
	if len(h.shape) != 1 {
		return 0, fmt.Errorf("shape %s: want a 1-D array", h.shapeString())
	}
	return h.count, nil
}

// npyDtype checks that a .npy array is in C order and of one of the
// dtypes want. Another dtype is the error "dtype 'X'" followed by wrong,
// which names the dtypes wanted; a big-endian one whose little-endian
// form is wanted says so.
func npyDtype(h *npyHeader, wrong string, want ...string) error {
	if h.fortran {
		return errors.New("fortran_order is True: save a C-order array")
	}
	if slices.Contains(want, h.descr) {
		return nil
	}
	if le := "<" + h.descr[min(1, len(h.descr)):]; strings.HasPrefix(h.descr, ">") && slices.Contains(want, le) {
		return fmt.Errorf("big-endian dtype '%s' is not supported: want '%s' (save the array little-endian: a.astype('%s'))", h.descr, le, le)
	}
	return fmt.Errorf("dtype '%s'%s", h.descr, wrong)
}

// outputFile is an output being written: a temporary file beside the
// final name, renamed to it once complete.
type outputFile struct {
	f    *os.File
	flag string // the flag that names it, for messages: "-out"
	path string
}

// createOutput creates the temporary file for the -out path.
func createOutput(path string) (*outputFile, error) { return createOutputFor("-out", path) }

// createOutputFor creates the temporary file for the path the flag
// flagName gives, with the permissions a new file gets (0666 less the
// umask).
func createOutputFor(flagName, path string) (*outputFile, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usagef("%s %s: is a directory", flagName, path)
	}
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, usagef("%s %s: cannot create a file in %s: %v", flagName, path, filepath.Clean(dir), err)
		}
		return &outputFile{f: f, flag: flagName, path: path}, nil
	}
	return nil, usagef("%s %s: no free temporary name in %s", flagName, path, filepath.Clean(dir))
}

// createOptionalOutput is createOutputFor for an optional output flag:
// nil, and no file, when path is empty.
func createOptionalOutput(flagName, path string) (*outputFile, error) {
	if path == "" {
		return nil, nil
	}
	return createOutputFor(flagName, path)
}

// commitPNG encodes img as PNG into the file and renames it to its name.
func (o *outputFile) commitPNG(img image.Image) error {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return o.commit(nil, buf.Bytes())
}

// commit writes the header and the data and renames the file to its name.
func (o *outputFile) commit(header, data []byte) error {
	if err := o.write(header, data); err != nil {
		return err
	}
	return o.rename()
}

// write writes the header and the data to the temporary file and closes
// it.
func (o *outputFile) write(header, data []byte) error {
	_, err := o.f.Write(header)
	if err == nil {
		_, err = o.f.Write(data)
	}
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return usagef("%s %s: %v", o.flag, o.path, err)
	}
	return nil
}

// rename renames the written temporary file to its name.
func (o *outputFile) rename() error {
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		return usagef("%s %s: %v", o.flag, o.path, err)
	}
	return nil
}

// abortOnError removes the temporary file when *err is set: defer it.
func (o *outputFile) abortOnError(err *error) {
	if *err != nil {
		o.abort()
	}
}

// abort removes the temporary file, if there is one.
func (o *outputFile) abort() {
	if o == nil {
		return
	}
	o.f.Close()
	os.Remove(o.f.Name())
}
