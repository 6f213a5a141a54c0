package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// segsortOutput is the JSON of `vkcompact segsort -json`.
type segsortOutput struct {
	Op         string   `json:"op"`   // "segsort"
	Type       string   `json:"type"` // u32, i32, f32 or u64
	N          uint64   `json:"n"`
	Segments   uint32   `json:"segments"`
	Longest    uint32   `json:"longest_segment"`
	Block      bool     `json:"block"` // the block path sorted (each segment in one workgroup)
	Descending bool     `json:"descending"`
	BeginBit   uint32   `json:"begin_bit"`
	EndBit     uint32   `json:"end_bit"`
	Values     bool     `json:"values"`
	GPUms      *float64 `json:"gpu_ms"` // null where the device has no timestamps
	Device     string   `json:"device"`
}

// segsortJob is a checked invocation of segsort.
type segsortJob struct {
	fileJob
	sort       radix.SegmentedSort
	layout     elemLayout
	lo, hi     uint32
	in, values *inputFile
	offsets    []uint32
	longest    uint32
	n          uint64
	block      bool
	gpuMs      *float64
}

// parseSegsort parses and checks the flags, opens the inputs and reads
// and checks the offsets.
func parseSegsort(args []string, stderr io.Writer) (*segsortJob, error) {
	fs := newFileFlags("segsort", stderr, "input `FILE` of keys: raw little-endian, or a 1-D .npy array",
		"output `FILE` of the keys sorted within their segments: .npy when the name ends in .npy, raw otherwise")
	typ := fs.String("type", "", "key type `T`: u32, i32, f32 or u64 (a .npy file's dtype gives it)")
	offsets := fs.String("offsets", "", "`FILE` of the segments' offsets, segments+1 of them: raw uint32, or a 1-D .npy of '<u4' or '<i4'; segment s is keys offsets[s] to offsets[s+1]-1")
	segment := fs.Uint("segment", 0, "segments of `N` keys each (the last one shorter), in place of -offsets")
	values := fs.String("values", "", "`FILE` of one uint32 value per key (raw, or .npy of '<u4'), moved with its key (needs -values-out)")
	valuesOut := fs.String("values-out", "", "output `FILE` of the reordered values (needs -values)")
	descending := fs.Bool("descending", false, "sort each segment from its largest key; equal keys keep their input order")
	bits := fs.String("bits", "", "sort by bits `LO:HI` (LO to HI-1) of the order-mapped key only (default: all)")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case *offsets == "" && !set["segment"]:
		return nil, usagef("missing -offsets FILE or -segment N: the segments")
	case *offsets != "" && set["segment"]:
		return nil, usagef("-offsets and -segment both give the segments: give one")
	case set["segment"] && (*segment == 0 || *segment > 1<<32-1):
		return nil, usagef("-segment %d: want 1 to 4294967295 keys per segment", *segment)
	case *values != "" && *valuesOut == "":
		return nil, usagef("-values FILE needs -values-out FILE for the reordered values")
	case *values == "" && *valuesOut != "":
		return nil, usagef("-values-out FILE needs -values FILE: the values to reorder")
	case *valuesOut != "" && sameFile(*fs.out, *valuesOut):
		return nil, usagef("-out and -values-out name the same file %s", *fs.out)
	}
	ef := elemFlags{op: "segsort", set: map[string]bool{"type": *typ != ""}, typ: *typ,
		types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64},
		missing: "missing -type T: u32, i32, f32 or u64 (a .npy file's dtype gives it)"}
	if *typ != "" {
		if _, err := ef.parseType(); err != nil {
			return nil, err
		}
	}
	j := &segsortJob{fileJob: files}
	if *values != "" {
		j.outputs = append(j.outputs, outputName{"-values-out", *valuesOut})
	}
	if j.in, err = j.open("-in", *fs.in); err == nil {
		j.layout, err = ef.resolve(j.in)
	}
	if err == nil {
		t := j.layout.elem.Key
		j.n = j.layout.n
		j.sort = radix.SegmentedSort{Key: t, Descending: *descending, Values: *values != ""}
		if j.lo, j.hi, err = parseBits(*bits, t); err == nil {
			j.sort.BeginBit, j.sort.EndBit = j.lo, j.hi
			if j.lo == j.hi {
				j.sort.BeginBit, j.sort.EndBit = 8*t.Size(), 8*t.Size()
			}
		}
	}
	if err == nil {
		if *offsets != "" {
			j.offsets, err = j.readOffsets(*offsets)
		} else {
			j.offsets = uniformOffsets(j.n, uint64(*segment))
		}
	}
	if err == nil {
		if j.longest, err = radix.CheckOffsets(j.offsets, j.n); err != nil {
			err = usagef("-offsets: %v", unwrapInvalid(err))
		}
		j.sort.MaxSegment = j.longest
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

// unwrapInvalid drops the "radix: " of a library message about the
// offsets, which the command names by its flag.
func unwrapInvalid(err error) string {
	msg := err.Error()
	if errors.Is(err, vk.ErrInvalid) && len(msg) > 7 && msg[:7] == "radix: " {
		return msg[7:]
	}
	return msg
}

// uniformOffsets returns the offsets of segments of size keys over n
// keys, the last one shorter.
func uniformOffsets(n, size uint64) []uint32 {
	segs := (n + size - 1) / size
	offs := make([]uint32, segs+1)
	for i := range offs {
		offs[i] = uint32(min(uint64(i)*size, n))
	}
	return offs
}

// readOffsets reads the -offsets file: raw uint32, or a 1-D .npy of
// uint32 or of int32 (none negative).
func (j *segsortJob) readOffsets(path string) ([]uint32, error) {
	f, err := j.open("-offsets", path)
	if err != nil {
		return nil, err
	}
	signed := false
	if f.npy != nil {
		if err := npyDtype(f.npy, ": offsets must be uint32 ('<u4') or int32 ('<i4')", "<u4", "<i4"); err != nil {
			return nil, usagef("%s: %v", f.name, err)
		}
		if len(f.npy.Shape) != 1 {
			return nil, usagef("%s: shape %s: want a 1-D array", f.name, f.npy.ShapeString())
		}
		signed = f.npy.Descr == "<i4"
	}
	switch {
	case f.bytes%4 != 0:
		return nil, usagef("%s: %d bytes is not a whole number of 4-byte offsets", f.name, f.bytes)
	case f.bytes == 0:
		return nil, usagef("%s: no offsets: segments need segments+1 offsets (one, for no segments)", f.name)
	case f.bytes/4-1 > 1<<32-2:
		return nil, usagef("%s: %d offsets: at most 2^32-1", f.name, f.bytes/4)
	}
	data, err := f.read(f.bytes)
	if err != nil {
		return nil, err
	}
	offs := make([]uint32, f.bytes/4)
	for i := range offs {
		offs[i] = binary.LittleEndian.Uint32(data[4*i:])
		if signed && int32(offs[i]) < 0 {
			return nil, usagef("%s: offset %d is negative (%d)", f.name, i, int32(offs[i]))
		}
	}
	return offs, nil
}

// run sorts the keys within their segments on the device and returns
// them and, with -values, the values in their order.
func (j *segsortJob) run(ctx *vk.Context, a *allocator) ([]outputData, error) {
	segments := uint32(len(j.offsets) - 1)
	plan, err := radix.NewSegmentedPlan(ctx, j.n, segments, j.sort)
	if err != nil {
		return nil, err
	}
	j.block = plan.Tuning().Block
	size := j.n * uint64(j.sort.Key.Size())
	b := radix.SegmentedBuffers{Keys: a.alloc(size), KeysOut: a.alloc(size), Offsets: a.alloc(4 * uint64(len(j.offsets)))}
	if s := plan.ScratchSize(); s > 0 {
		b.Scratch = a.alloc(s)
	}
	if j.values != nil {
		b.Values, b.ValuesOut = a.alloc(4*j.n), a.alloc(4*j.n)
	}
	if a.err != nil {
		return nil, a.err
	}
	if err := vk.Upload(b.Offsets, j.offsets); err != nil {
		return nil, err
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
	outs := []outputData{{data: keys[:size], dtype: j.layout.dtype, n: j.n}}
	if err := vk.Download(b.KeysOut, outs[0].data); err != nil {
		return nil, err
	}
	if j.values != nil {
		outs = append(outs, outputData{data: values[:4*j.n], dtype: npy.Quote(npy.Dtype(vkcompact.Uint32)), n: j.n})
		if err := vk.Download(b.ValuesOut, outs[1].data); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// report prints what was sorted and the GPU time.
func (j *segsortJob) report(stdout io.Writer, device string) error {
	segments := uint32(len(j.offsets) - 1)
	if j.asJSON {
		return encodeJSON(stdout, segsortOutput{Op: "segsort", Type: j.sort.Key.String(), N: j.n, Segments: segments, Longest: j.longest,
			Block: j.block, Descending: j.sort.Descending, BeginBit: j.lo, EndBit: j.hi, Values: j.values != nil, GPUms: j.gpuMs, Device: device})
	}
	order := "ascending"
	if j.sort.Descending {
		order = "descending"
	}
	what := fmt.Sprintf("%d %s %s", j.n, j.sort.Key, order)
	if j.values != nil {
		what += " with values"
	}
	path := "general path"
	if j.block {
		path = "block path"
	}
	fmt.Fprintf(stdout, "segsort: %s in %d segments (longest %d, %s), bits %d:%d, %s\n", what, segments, j.longest, path, j.lo, j.hi, gpuTimeText(j.gpuMs, device))
	return nil
}
