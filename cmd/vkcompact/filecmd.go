package main

import (
	"io"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/vk"
)

// fileCommand is a checked invocation of a command that turns input files
// into output files on the GPU: compact, split, scan and sort. Its parse
// function has made every check of the flags and the inputs;
// runFileCommand does the rest the same way for each.
type fileCommand interface {
	// files returns the inputs to close, the outputs and the flags every
	// file command has.
	files() *fileJob
	// run runs the operation on the device, with a the allocator of its
	// device-local buffers, and returns each output's contents in the
	// order of files().outputs. It allocates the device memory before it
	// reads the inputs, so that an input too large for the device fails
	// before it is read into host memory.
	run(ctx *vk.Context, a *allocator) ([]outputData, error)
	// report prints what run did on the device named device: one JSON
	// object with -json, else one line.
	report(stdout io.Writer, device string) error
}

// fileJob is what the file commands' invocations share: the inputs they
// opened, the outputs they write, -device, -timeout and -json.
type fileJob struct {
	name    string // the command's
	inputs  []*inputFile
	outputs []outputName
	device  string
	timeout time.Duration // -timeout
	asJSON  bool
}

// fileFlags is a file command's flag set, with the flags every file
// command has.
type fileFlags struct {
	*flags
	name            string
	in, out, device *string
	asJSON          *bool
}

// newFileFlags makes the flag set of the file command name, with -in and
// -out (with the command's help texts), -device and -json.
func newFileFlags(name string, stderr io.Writer, inHelp, outHelp string) *fileFlags {
	fs := newFlags(name, stderr)
	return &fileFlags{
		flags:  fs,
		name:   name,
		in:     fs.String("in", "", inHelp),
		out:    fs.String("out", "", outHelp),
		device: fs.String("device", "", deviceHelp),
		asJSON: fs.Bool("json", false, jsonHelp),
	}
}

// parse parses the flags, checks that -in and -out are given and returns
// the job they begin.
func (fs *fileFlags) parse(args []string) (fileJob, error) {
	if err := parse(fs.flags, args); err != nil {
		return fileJob{}, err
	}
	switch {
	case *fs.in == "":
		return fileJob{}, usagef("missing -in FILE")
	case *fs.out == "":
		return fileJob{}, usagef("missing -out FILE")
	}
	return fileJob{name: fs.name, outputs: []outputName{{"-out", *fs.out}}, device: *fs.device, timeout: fs.timeout, asJSON: *fs.asJSON}, nil
}

// outputName is an output file: the flag that names it and its path.
type outputName struct{ flag, path string }

// outputData is an output's contents: the data, and what its .npy header
// says when its name ends in .npy.
type outputData struct {
	data  []byte
	dtype string // the items' dtype, as a Python literal: '<f4', or a record's list of fields
	n     uint64 // items
}

// files returns j: fileJob embedded in a job gives it the method.
func (j *fileJob) files() *fileJob { return j }

// open opens an input file (openInput) and keeps it to close.
func (j *fileJob) open(flagName, path string) (*inputFile, error) {
	in, err := openInput(flagName, path)
	if err != nil {
		return nil, err
	}
	j.inputs = append(j.inputs, in)
	return in, nil
}

// perElement describes an input that holds one item per element of the
// -in file: -flags, -values.
type perElement struct {
	flag      string // "-flags"
	items, of string // what it holds and for what: "flags", "elements"
	rawWidth  uint32 // bytes per item in a raw file
	// npyWidth checks a .npy array of the items and returns their width.
	npyWidth func(*npy.Header) (uint32, error)
}

// flagsInput and valuesInput are compact's and split's -flags, and
// sort's -values.
var (
	flagsInput  = perElement{"-flags", "flags", "elements", 1, npyFlags}
	valuesInput = perElement{"-values", "values", "keys", 4, npyValues}
)

// openPerElement opens the input p describes, at path, checks that it
// holds n items, and returns it and the width of its items.
func (j *fileJob) openPerElement(p perElement, path string, n uint64) (*inputFile, uint32, error) {
	f, err := j.open(p.flag, path)
	if err != nil {
		return nil, 0, err
	}
	width := p.rawWidth
	if f.npy != nil {
		if width, err = p.npyWidth(f.npy); err != nil {
			return nil, 0, usagef("%s: %v", f.name, err)
		}
	} else if f.bytes%uint64(width) != 0 {
		return nil, 0, usagef("%s: %d bytes is not a whole number of %d-byte %s", f.name, f.bytes, width, p.items)
	}
	if got := f.bytes / uint64(width); got != n {
		return nil, 0, usagef("%s holds %d %s for %d %s", f.name, got, p.items, n, p.of)
	}
	return f, width, nil
}

// close closes the input files; a second call does nothing.
func (j *fileJob) close() {
	for _, in := range j.inputs {
		in.f.Close()
	}
	j.inputs = nil
}

// runFileCommand runs a checked file command: it creates the outputs as
// temporary files (so that a path that cannot be written fails before the
// GPU runs), runs the operation, writes every output and only then renames
// them all to their names, and reports. After a failure no output is left,
// and a file that was there keeps its contents.
func runFileCommand[J fileCommand](c J, stdout, stderr io.Writer) (err error) {
	j := c.files()
	defer j.close()
	var outs []*outputFile
	defer func() {
		if err != nil {
			for _, o := range outs {
				o.abort()
			}
		}
	}()
	for _, name := range j.outputs {
		o, err := createOutput(name.flag, name.path)
		if err != nil {
			return err
		}
		outs = append(outs, o)
	}
	var data []outputData
	// A large input may keep a CPU driver busy for minutes: the elapsed
	// time shows on a terminal.
	prog := startProgress(stderr, j.asJSON, j.name)
	device, err := onDevice(vk.Options{Device: j.device, Timeout: j.timeout}, prog.Writer(stderr), func(ctx *vk.Context, a *allocator) (err error) {
		data, err = c.run(ctx, a)
		return err
	})
	prog.end()
	if err != nil {
		return err
	}
	// The inputs are read: close them before the outputs take their names,
	// which may be theirs (Windows refuses to rename over an open file).
	j.close()
	if err := commitAll(outs, data); err != nil {
		return err
	}
	return c.report(stdout, device)
}

// parseTypeOf parses the -type of the command op: one of the types
// allowed.
func parseTypeOf(op, s string, allowed ...vkcompact.Type) (vkcompact.Type, error) {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = a.String()
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	t, err := vkcompact.ParseType(s)
	if err != nil {
		return 0, usagef("-type: unknown type %q (want %s)", s, want)
	}
	for _, a := range allowed {
		if t == a {
			return t, nil
		}
	}
	return 0, usagef("-type %s: %s takes %s", s, op, want)
}
