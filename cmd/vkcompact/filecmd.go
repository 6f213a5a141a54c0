package main

import (
	"io"
	"time"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
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
	// order of files().Outputs. It allocates the device memory before it
	// reads the inputs, so that an input too large for the device fails
	// before it is read into host memory.
	run(ctx *vk.Context, a *allocator) ([]fileio.OutputData, error)
	// report prints what run did on the device named device: one JSON
	// object with -json, else one line.
	report(stdout io.Writer, device string) error
}

// fileJob is what the file commands' invocations share: the inputs they
// opened and the outputs they write (fileio.Files), -device, -timeout and
// -json.
type fileJob struct {
	fileio.Files
	name    string // the command's
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
		return fileJob{}, usage.Errorf("missing -in FILE")
	case *fs.out == "":
		return fileJob{}, usage.Errorf("missing -out FILE")
	}
	return fileJob{Files: fileio.Files{Outputs: []fileio.OutputName{{Flag: "-out", Path: *fs.out}}}, name: fs.name, device: *fs.device, timeout: fs.timeout, asJSON: *fs.asJSON}, nil
}

// files returns j: fileJob embedded in a job gives it the method.
func (j *fileJob) files() *fileJob { return j }

// runFileCommand runs a checked file command: it creates the outputs as
// temporary files (so that a path that cannot be written fails before the
// GPU runs), runs the operation, writes every output and only then renames
// them all to their names, and reports. After a failure no output is left,
// and a file that was there keeps its contents.
func runFileCommand[J fileCommand](c J, stdout, stderr io.Writer) (err error) {
	j := c.files()
	defer j.Close()
	var outs []*fileio.Output
	defer func() {
		if err != nil {
			for _, o := range outs {
				o.Abort()
			}
		}
	}()
	for _, name := range j.Outputs {
		o, err := fileio.CreateOutput(name.Flag, name.Path)
		if err != nil {
			return err
		}
		outs = append(outs, o)
	}
	var data []fileio.OutputData
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
	j.Close()
	if err := fileio.CommitAll(outs, data); err != nil {
		return err
	}
	return c.report(stdout, device)
}
