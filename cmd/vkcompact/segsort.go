package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
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
	layout     fileio.Layout
	lo, hi     uint32
	in, values *fileio.Input
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
		return nil, usage.Errorf("missing -offsets FILE or -segment N: the segments")
	case *offsets != "" && set["segment"]:
		return nil, usage.Errorf("-offsets and -segment both give the segments: give one")
	case set["segment"] && (*segment == 0 || *segment > 1<<32-1):
		return nil, usage.Errorf("-segment %d: want 1 to 4294967295 keys per segment", *segment)
	case *values != "" && *valuesOut == "":
		return nil, usage.Errorf("-values FILE needs -values-out FILE for the reordered values")
	case *values == "" && *valuesOut != "":
		return nil, usage.Errorf("-values-out FILE needs -values FILE: the values to reorder")
	case *valuesOut != "" && sameFile(*fs.out, *valuesOut):
		return nil, usage.Errorf("-out and -values-out name the same file %s", *fs.out)
	}
	ef := fileio.ElemFlags{Op: "segsort", Set: map[string]bool{"type": *typ != ""}, Type: *typ,
		Types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64},
		Missing: "missing -type T: u32, i32, f32 or u64 (a .npy file's dtype gives it)"}
	if *typ != "" {
		if _, err := ef.ParseType(); err != nil {
			return nil, err
		}
	}
	j := &segsortJob{fileJob: files}
	if *values != "" {
		j.Outputs = append(j.Outputs, fileio.OutputName{Flag: "-values-out", Path: *valuesOut})
	}
	if j.in, err = j.Open("-in", *fs.in); err == nil {
		j.layout, err = ef.Resolve(j.in)
	}
	if err == nil {
		t := j.layout.Elem.Key
		j.n = j.layout.N
		j.sort = radix.SegmentedSort{Elem: vkcompact.Plain(t), Descending: *descending, Values: *values != ""}
		if j.lo, j.hi, err = parseBits(*bits, t); err == nil {
			j.sort.BeginBit, j.sort.EndBit = j.lo, j.hi
			if j.lo == j.hi {
				j.sort.BeginBit, j.sort.EndBit = 8*t.Size(), 8*t.Size()
			}
		}
	}
	if err == nil {
		if *offsets != "" {
			j.offsets, err = j.ReadOffsets("-offsets", *offsets)
		} else {
			j.offsets = uniformOffsets(j.n, uint64(*segment))
		}
	}
	if err == nil {
		if j.longest, err = radix.CheckOffsets(j.offsets, j.n); err != nil {
			err = usage.Errorf("-offsets: %v", unwrapInvalid(err))
		}
		j.sort.MaxSegment = j.longest
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

// run sorts the keys within their segments on the device and returns
// them and, with -values, the values in their order.
func (j *segsortJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	segments := uint32(len(j.offsets) - 1)
	plan, err := radix.NewSegmentedPlan(ctx, j.n, segments, j.sort)
	if err != nil {
		return nil, err
	}
	j.block = plan.Tuning().Block
	size := j.n * uint64(j.sort.Elem.Key.Size())
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
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
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

// report prints what was sorted and the GPU time.
func (j *segsortJob) report(stdout io.Writer, device string) error {
	segments := uint32(len(j.offsets) - 1)
	if j.asJSON {
		return encodeJSON(stdout, segsortOutput{Op: "segsort", Type: j.sort.Elem.Key.String(), N: j.n, Segments: segments, Longest: j.longest,
			Block: j.block, Descending: j.sort.Descending, BeginBit: j.lo, EndBit: j.hi, Values: j.values != nil, GPUms: j.gpuMs, Device: device})
	}
	order := "ascending"
	if j.sort.Descending {
		order = "descending"
	}
	what := fmt.Sprintf("%d %s %s", j.n, j.sort.Elem.Key, order)
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
