package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress shows how far a long run has come, on stderr, while it runs:
// one line ("vkcompact demo: 12/60 frames, 3.4 s"), rewritten in place
// four times a second and erased when the run ends, so that a run of
// minutes on a CPU driver shows that it is working. It writes nothing
// unless stderr is a terminal and the report is not JSON, and nothing
// before the run has lasted progressShowAfter (a short run stays quiet).
//
// While it runs, every other write to stderr (and to stdout, which may be
// the same terminal) goes through Writer, which erases the line first: the
// line is drawn from a goroutine of its own.
type progress struct {
	out   io.Writer // stderr; nil when silent
	label string
	start time.Time

	mu          sync.Mutex
	done, total int
	unit        string
	shown       bool // a line is on the screen
	stop        chan struct{}
	stopped     chan struct{}
}

// Tests change these: terminal reports whether stderr is a terminal
// (stderrTerminal), progressShowAfter is how long a run goes unshown and
// progressEvery how often the line is redrawn.
var (
	terminal          = stderrTerminal
	progressShowAfter = time.Second
	progressEvery     = 250 * time.Millisecond
)

// stderrTerminal reports whether w is a terminal (isTerminal, per
// operating system).
func stderrTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// startProgress starts the progress line of a run labelled label ("demo")
// on stderr, silent with asJSON or where stderr is not a terminal. End it
// with end.
func startProgress(stderr io.Writer, asJSON bool, label string) *progress {
	p := &progress{label: label, start: time.Now()}
	if asJSON || !terminal(stderr) {
		return p
	}
	p.out, p.stop, p.stopped = stderr, make(chan struct{}), make(chan struct{})
	go p.run()
	return p
}

// run redraws the line every progressEvery until end.
func (p *progress) run() {
	defer close(p.stopped)
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// draw writes the line, once the run has lasted progressShowAfter. p.mu
// is held.
func (p *progress) draw() {
	elapsed := time.Since(p.start)
	if elapsed < progressShowAfter {
		return
	}
	count := ""
	if p.total > 0 {
		count = fmt.Sprintf(" %d/%d %s,", p.done, p.total, p.unit)
	}
	fmt.Fprintf(p.out, "\rvkcompact %s:%s %.1f s\x1b[K", p.label, count, elapsed.Seconds())
	p.shown = true
}

// erase clears the line from the screen. p.mu is held.
func (p *progress) erase() {
	if p.shown {
		fmt.Fprint(p.out, "\r\x1b[K")
		p.shown = false
	}
}

// set records that done of total units ("frames", "renders") are done.
func (p *progress) set(done, total int, unit string) {
	if p == nil || p.out == nil {
		return
	}
	p.mu.Lock()
	p.done, p.total, p.unit = done, total, unit
	p.mu.Unlock()
}

// end stops the line and erases it; a second call does nothing.
func (p *progress) end() {
	if p == nil || p.out == nil {
		return
	}
	select {
	case <-p.stop:
		return
	default:
	}
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	p.erase()
	p.mu.Unlock()
}

// Writer returns the writer for w (stderr, or stdout, which may be the
// same terminal) while the line is shown: each write erases the line
// first (the next tick draws it again). Where p is silent it is w itself.
func (p *progress) Writer(w io.Writer) io.Writer {
	if p == nil || p.out == nil {
		return w
	}
	return progressWriter{p, w}
}

// progressWriter writes to w through a progress line (progress.Writer).
type progressWriter struct {
	p *progress
	w io.Writer
}

func (pw progressWriter) Write(b []byte) (int, error) {
	pw.p.mu.Lock()
	defer pw.p.mu.Unlock()
	pw.p.erase()
	return pw.w.Write(b)
}
