package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// permuteOutput is the JSON of `vkcompact gather -json` and `scatter
// -json`.
type permuteOutput struct {
	Op      string   `json:"op"`             // "gather" or "scatter"
	Type    string   `json:"type,omitempty"` // a plain array's type; none for structs and records
	Stride  uint32   `json:"stride"`         // bytes per element (a record's itemsize)
	Records bool     `json:"records"`        // the elements are a record array's records
	N       uint64   `json:"n"`              // the input's elements
	Indices uint64   `json:"indices"`        // the indices: the elements moved
	Out     uint64   `json:"out"`            // the output's elements
	Into    bool     `json:"into,omitempty"` // scatter -into: the output began as that file
	GPUms   *float64 `json:"gpu_ms"`         // null where the device has no timestamps
	Device  string   `json:"device"`
}

// permuteJob is a checked invocation of gather or scatter.
type permuteJob struct {
	fileJob
	perm     permute.Permutation
	layout   fileio.Layout // the input's elements (and the output's)
	intoL    fileio.Layout // scatter -into's
	in, into *fileio.Input // into: scatter -into, or nil
	indices  []uint32
	n, out   uint64 // the input's and the output's elements
	gpuMs    *float64
}

// parseGather parses and checks an invocation of gather (parsePermute).
func parseGather(args []string, stderr io.Writer) (*permuteJob, error) {
	return parsePermute("gather", args, stderr)
}

// parseScatter parses and checks an invocation of scatter (parsePermute).
func parseScatter(args []string, stderr io.Writer) (*permuteJob, error) {
	return parsePermute("scatter", args, stderr)
}

// parsePermute parses and checks the flags, opens the input, and reads
// and checks the indices: each below the element count of the side it
// indexes, and in a scatter each once.
func parsePermute(op string, args []string, stderr io.Writer) (*permuteJob, error) {
	scatter := op == "scatter"
	outHelp := "output `FILE` of out[i] = in[indices[i]], one element per index"
	indicesHelp := "`FILE` of uint32 indices, each below the input's element count (raw uint32, or a 1-D .npy of '<u4', '<i4', '<i8' or '<u8', as np.argsort returns)"
	if scatter {
		outHelp = "output `FILE` of out[indices[i]] = in[i]: the -into file's elements, or zeros, where no index points"
		indicesHelp = "`FILE` of uint32 indices, one per element, each below the output's element count and none twice (raw uint32, or a 1-D .npy of '<u4', '<i4', '<i8' or '<u8')"
	}
	fs := newFileFlags(op, stderr, "input `FILE`: raw little-endian elements, or a .npy array (plain, void items or records of a structured dtype)",
		outHelp+": .npy when the name ends in .npy (of the input's dtype), raw otherwise")
	typ := fs.String("type", "", "element type `T`: u32, i32, f32, u64, i64 or f64 (a .npy file's dtype gives it)")
	stride := fs.Uint("stride", 0, "struct elements of `BYTES` bytes, a multiple of 4 up to 256, moved whole (a .npy of void items or records gives it)")
	indices := fs.String("indices", "", indicesHelp)
	var into *string
	if scatter {
		into = fs.String("into", "", "`FILE` of the elements the output begins as, of the input's type: the output has its element count (default: as many as the input, zeros)")
	}
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	if *indices == "" {
		return nil, usage.Errorf("missing -indices FILE")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	ef := fileio.ElemFlags{Op: op, Set: set, Type: *typ, Stride: *stride, Structs: true, Whole: true,
		Types:   []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64},
		Missing: "missing -type T or -stride BYTES: the elements (a .npy file's dtype gives them)"}
	if set["type"] && !set["stride"] {
		if _, err := ef.ParseType(); err != nil {
			return nil, err
		}
	}
	j := &permuteJob{fileJob: files, perm: permute.Permutation{Scatter: scatter}}
	if j.in, err = j.Open("-in", *fs.in); err == nil {
		j.layout, err = ef.Resolve(j.in)
	}
	if err == nil {
		j.n, j.out = j.layout.N, j.layout.N
		j.perm.Elem = j.layout.Elem
		if scatter && *into != "" {
			err = j.openInto(ef, *into)
		}
	}
	if err == nil {
		j.indices, err = j.ReadIndices("-indices", *indices)
	}
	if err == nil {
		err = j.checkIndices(*indices)
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// openInto opens scatter's -into file, whose elements must be the
// input's.
func (j *permuteJob) openInto(ef fileio.ElemFlags, path string) error {
	var err error
	if j.into, err = j.Open("-into", path); err != nil {
		return err
	}
	if j.intoL, err = ef.Resolve(j.into); err != nil {
		return err
	}
	if j.intoL.Dtype != j.layout.Dtype || j.intoL.Elem != j.layout.Elem {
		return usage.Errorf("-into %s: its elements (%s) are not the input's (%s)", path, j.intoL.Dtype, j.layout.Dtype)
	}
	j.out = j.intoL.N
	return nil
}

// checkIndices checks the indices against the side they index: in a
// gather each below the input's element count, in a scatter one per
// input element, each below the output's count, and none twice (which
// element would land in the slot is not defined).
func (j *permuteJob) checkIndices(path string) error {
	limit, side := j.n, "the input's"
	if j.perm.Scatter {
		if uint64(len(j.indices)) != j.n {
			return usage.Errorf("-indices %s holds %d indices for %d elements: a scatter takes one per element", path, len(j.indices), j.n)
		}
		limit, side = j.out, "the output's"
	}
	var seen []uint64
	if j.perm.Scatter {
		seen = make([]uint64, (limit+63)/64)
	}
	for i, x := range j.indices {
		if uint64(x) >= limit {
			return usage.Errorf("-indices %s: index %d is %d: past %s %d elements", path, i, x, side, limit)
		}
		if seen != nil {
			if seen[x/64]&(1<<(x%64)) != 0 {
				return usage.Errorf("-indices %s: index %d is %d again: a scatter writes each slot once (which element would land there is not defined)", path, i, x)
			}
			seen[x/64] |= 1 << (x % 64)
		}
	}
	return nil
}

// run moves the elements on the device and returns the output.
func (j *permuteJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	positions := uint64(len(j.indices))
	plan, err := permute.NewPlan(ctx, positions, j.perm)
	if err != nil {
		return nil, err
	}
	stride := uint64(j.layout.Elem.Size())
	outElems := positions
	if j.perm.Scatter {
		outElems = j.out
	}
	// Device memory first, then host memory (fileCommand.run).
	b := permute.Buffers{Indices: a.alloc(4 * positions), Src: a.alloc(j.n * stride), Dst: a.alloc(outElems * stride), Status: a.alloc(permute.StatusSize)}
	if a.err != nil {
		return nil, a.err
	}
	if err := vk.Upload(b.Indices, j.indices); err != nil {
		return nil, err
	}
	if _, err := j.layout.Upload(j.in, b.Src); err != nil {
		return nil, err
	}
	host := make([]byte, outElems*stride) // zeros: a scatter's slots no index selects, without -into
	if j.into != nil {
		if host, err = j.intoL.Upload(j.into, b.Dst); err != nil {
			return nil, err
		}
	} else if j.perm.Scatter {
		if err := vk.Upload(b.Dst, host); err != nil {
			return nil, err
		}
	}
	if j.gpuMs, err = submitTimed(ctx, func(rec *pipeline.Recorder) { plan.Record(rec, b) }); err != nil {
		return nil, err
	}
	var status [1]uint32
	if err := vk.Download(b.Status, status[:]); err != nil {
		return nil, err
	}
	if status[0] != permute.StatusOK {
		return nil, fmt.Errorf("the GPU reported the index at position %d out of range", status[0])
	}
	out := fileio.OutputData{Dtype: j.layout.Dtype, N: outElems}
	out.Bytes, err = j.layout.Download(b.Dst, host, outElems)
	return []fileio.OutputData{out}, err
}

// report prints what moved and the GPU time.
func (j *permuteJob) report(stdout io.Writer, device string) error {
	op := "gather"
	if j.perm.Scatter {
		op = "scatter"
	}
	l := j.layout
	if j.asJSON {
		o := permuteOutput{Op: op, Stride: uint32(l.Size), Records: l.Records(), N: j.n, Indices: uint64(len(j.indices)),
			Out: j.out, Into: j.into != nil, GPUms: j.gpuMs, Device: device}
		if !j.perm.Scatter {
			o.Out = uint64(len(j.indices))
		}
		if l.Elem.Stride == 0 {
			o.Type = l.Elem.Key.String()
		}
		return encodeJSON(stdout, o)
	}
	what := fmt.Sprintf("%d %s", j.n, l.Elem.Key)
	switch {
	case l.Records():
		what = fmt.Sprintf("%d records of %d bytes", j.n, l.Size)
	case l.Elem.Stride != 0:
		what = fmt.Sprintf("%d structs of %d bytes", j.n, l.Size)
	}
	if op == "gather" {
		fmt.Fprintf(stdout, "gather: %d of %s by index, %s\n", len(j.indices), what, gpuTimeText(j.gpuMs, device))
		return nil
	}
	fmt.Fprintf(stdout, "scatter: %s into %d slots by index, %s\n", what, j.out, gpuTimeText(j.gpuMs, device))
	return nil
}
