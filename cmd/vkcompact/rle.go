package main

import (
	"fmt"
	"io"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// rleJob is a checked invocation of rle.
type rleJob struct {
	fileJob
	enc    runs.Encoding
	in     *fileio.Input
	layout fileio.Layout
	res    runs.Result
	gpuMs  *float64
}

// u32Dtype is the .npy dtype of the offsets and lengths.
const u32Dtype = "'<u4'"

// parseRLE parses and checks an invocation of rle.
func parseRLE(args []string, stderr io.Writer) (*rleJob, error) {
	fs := newFileFlags("rle", stderr, "input `FILE`: raw little-endian elements, or a .npy array (plain, or records of a structured dtype)",
		"output `FILE` of each run's first element (of the input's dtype), or with -nontrivial each run's offset (uint32): .npy when the name ends in .npy, raw otherwise")
	rf := addRunsFlags(fs)
	lengths := fs.String("lengths", "", "output `FILE` of each run's length (uint32): .npy when the name ends in .npy, raw otherwise")
	nonTrivial := fs.Bool("nontrivial", false, "the runs longer than one only: -out gets their offsets (uint32), -lengths their lengths")
	files, err := fs.parse(args)
	if err != nil {
		return nil, err
	}
	switch {
	case *lengths == "":
		return nil, usage.Errorf("missing -lengths FILE: the runs' lengths")
	case sameFile(*fs.out, *lengths):
		return nil, usage.Errorf("-out and -lengths name the same file %s", *fs.out)
	}
	j := &rleJob{fileJob: files}
	j.Outputs = append(j.Outputs, fileio.OutputName{Flag: "-lengths", Path: *lengths})
	var err2 error
	if j.in, j.layout, j.enc.Equal, err2 = rf.open("rle", fs, &j.fileJob); err2 != nil {
		j.Close()
		return nil, err2
	}
	j.enc.Elem = j.layout.Elem
	if *nonTrivial {
		j.enc.Op = runs.NonTrivial
	}
	return j, nil
}

// run runs the encoding on the device and returns the keys or offsets,
// and the lengths.
func (j *rleJob) run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error) {
	n := j.layout.N
	plan, err := runs.NewPlan(ctx, n, j.enc)
	if err != nil {
		return nil, err
	}
	size := n * uint64(j.enc.Elem.Size())
	most := n // runs at most
	if j.enc.Op == runs.NonTrivial {
		most = n / 2
	}
	b := runs.Buffers{Src: a.alloc(size), Lengths: a.alloc(max(most*4, 4)), Result: a.alloc(runs.ResultSize), Scratch: a.alloc(plan.ScratchSize())}
	if j.enc.Op == runs.Encode {
		b.Keys = a.alloc(max(size, 4))
	} else {
		b.Offsets = a.alloc(max(most*4, 4))
	}
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
	if j.res, err = runs.ReadResult(b.Result); err != nil {
		return nil, err
	}
	r := j.res
	if uint64(r.Total) != n || uint64(r.Runs) > most || (n > 0 && j.enc.Op == runs.Encode && r.Runs == 0) {
		return nil, fmt.Errorf("the GPU reported %d runs of %d elements for %d", r.Runs, r.Total, n)
	}
	m := uint64(r.Runs)
	lens := make([]byte, m*4)
	if err := vk.Download(b.Lengths.Sub(0, m*4), lens); err != nil {
		return nil, err
	}
	first := fileio.OutputData{Dtype: u32Dtype, N: m}
	if j.enc.Op == runs.Encode {
		first.Dtype = j.layout.Dtype
		first.Bytes, err = j.layout.Download(b.Keys, data, m)
	} else {
		first.Bytes = make([]byte, m*4)
		err = vk.Download(b.Offsets.Sub(0, m*4), first.Bytes)
	}
	return []fileio.OutputData{first, {Bytes: lens, Dtype: u32Dtype, N: m}}, err
}

// report prints the runs' count and the GPU time.
func (j *rleJob) report(stdout io.Writer, device string) error {
	r := j.res
	op, what := "rle", "runs"
	if j.enc.Op == runs.NonTrivial {
		op, what = "rle-nontrivial", "runs longer than one"
	}
	if j.asJSON {
		l := j.layout
		return encodeJSON(stdout, runsOutput{Op: op, Type: l.Elem.Key.String(), Stride: uint32(l.Size), KeyOffset: uint32(l.KeyOffset), Field: l.Field,
			Equal: j.enc.Equal.String(), Runs: r.Runs, Total: r.Total, GPUms: j.gpuMs, Device: device})
	}
	sep := " "
	if j.gpuMs == nil {
		sep = ", "
	}
	fmt.Fprintf(stdout, "%d %s in %d elements%s%s\n", r.Runs, what, r.Total, sep, gpuTimeText(j.gpuMs, device))
	return nil
}
