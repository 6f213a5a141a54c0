package main

import (
	"image"
	"io"
	"time"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/fileio"
)

// drawingCommand is a checked invocation of a command that checks its own
// results on the device and can draw them to -png: demo and raytrace.
// runDrawing runs one the same way for each.
type drawingCommand interface {
	// drawing returns the flags every drawing command has.
	drawing() *drawingJob
	// run runs on the device and checks what it computed.
	run(stderr io.Writer) (checkedRun, error)
}

// drawingJob is what the drawing commands' invocations share: -png,
// -device, -timeout and -json.
type drawingJob struct {
	png     string // "" for no picture
	device  string
	timeout time.Duration // -timeout
	asJSON  bool
}

// drawing returns j: drawingJob embedded in a job gives it the method.
func (j *drawingJob) drawing() *drawingJob { return j }

// drawingFlags defines -png, with the command's help text, -device and
// -json in fs; job returns them once fs is parsed.
func drawingFlags(fs *flags, pngHelp string) (job func() drawingJob) {
	png := fs.String("png", "", pngHelp)
	device := fs.String("device", "", deviceHelp)
	asJSON := fs.Bool("json", false, jsonHelp)
	return func() drawingJob { return drawingJob{png: *png, device: *device, timeout: fs.timeout, asJSON: *asJSON} }
}

// checkedRun is what a drawing command's run produces: the report, the
// picture, and the check that failed.
type checkedRun struct {
	report textReport
	// picture draws the picture that -png writes.
	picture func() image.Image
	// failed is the error of a failed check, nil when every check passed.
	failed error
}

// textReport is a command's report: its -json object, which also prints
// itself as text.
type textReport interface {
	printText(w io.Writer) error
}

// runDrawing runs a checked drawing command: it creates the -png output
// first, when one is asked for, so that a path that cannot be written
// fails before the device runs; runs the command; draws the picture;
// prints the report, as JSON with -json; and then returns a failed check
// as the error (exit status 1), after the report that says what failed.
func runDrawing[J drawingCommand](c J, stdout, stderr io.Writer) (err error) {
	j := c.drawing()
	out, err := fileio.CreateOptionalOutput("-png", j.png)
	if err != nil {
		return err
	}
	defer out.AbortOnError(&err)
	r, err := c.run(stderr)
	if err != nil {
		return err
	}
	if out != nil {
		if err := out.CommitPNG(r.picture()); err != nil {
			return err
		}
	}
	if j.asJSON {
		err = encodeJSON(stdout, r.report)
	} else {
		err = r.report.printText(stdout)
	}
	if err != nil {
		return err
	}
	return r.failed
}
