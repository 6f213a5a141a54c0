package main

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestTimeoutFlag: every command takes -timeout (its -h lists it), a
// duration reaches the job (and so vk.Options.Timeout), 0 is the default
// (no bound), and a negative or unitless value is a usage error.
func TestTimeoutFlag(t *testing.T) {
	for _, c := range commands {
		var out, errOut bytes.Buffer
		if code := run([]string{c.name, "-h"}, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "-timeout DURATION") {
			t.Errorf("%s -h: exit %d, no -timeout in %q", c.name, code, errOut.String())
		}
	}
	dir := vktest.TempDir(t)
	in, out := dir+"/in.u32", dir+"/out.u32"
	writeTestFile(t, in, make([]byte, 64))
	for _, c := range []struct {
		name    string
		timeout func(args ...string) (time.Duration, error)
	}{
		{"demo", func(args ...string) (time.Duration, error) { j, err := parseDemo(args, nil); return timeoutOf(j, err) }},
		{"raytrace", func(args ...string) (time.Duration, error) {
			j, err := parseRaytrace(args, nil)
			return timeoutOf(j, err)
		}},
		{"bench", func(args ...string) (time.Duration, error) { j, err := parseBench(args, nil); return timeoutOf(j, err) }},
		{"sort", func(args ...string) (time.Duration, error) {
			j, err := parseSort(append([]string{"-in", in, "-out", out, "-type", "u32"}, args...), nil)
			if j != nil {
				defer j.Close()
			}
			return timeoutOf(j, err)
		}},
		{"reduce", func(args ...string) (time.Duration, error) {
			j, err := parseReduce(append([]string{"-in", in, "-type", "u32"}, args...), nil)
			if j != nil {
				defer j.Close()
			}
			return timeoutOf(j, err)
		}},
		{"partition3", func(args ...string) (time.Duration, error) {
			j, err := parsePartition3(append([]string{"-in", in, "-out-first", out + "1", "-out-second", out + "2", "-out-rest", out + "3", "-type", "u32", "-first", "x < 3", "-second", "x < 9"}, args...), nil)
			if j != nil {
				defer j.Close()
			}
			return timeoutOf(j, err)
		}},
	} {
		if d, err := c.timeout(); err != nil || d != 0 {
			t.Errorf("%s: default timeout %v, %v; want 0 (no bound)", c.name, d, err)
		}
		if d, err := c.timeout("-timeout", "1m30s"); err != nil || d != 90*time.Second {
			t.Errorf("%s -timeout 1m30s: %v, %v", c.name, d, err)
		}
		if _, err := c.timeout("-timeout", "-1s"); err == nil || !strings.Contains(err.Error(), "-timeout -1s: want a positive duration, or 0 for no bound") {
			t.Errorf("%s -timeout -1s: %v", c.name, err)
		}
		if _, err := c.timeout("-timeout", "5"); err == nil || !strings.Contains(err.Error(), `invalid value "5" for flag -timeout`) {
			t.Errorf("%s -timeout 5: %v", c.name, err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"demo", "-timeout", "-3m"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "want a positive duration") {
		t.Errorf("demo -timeout -3m: exit %d, %q", code, stderr.String())
	}
}

// timeoutOf returns a parsed job's -timeout.
func timeoutOf[J interface{ timeoutValue() time.Duration }](j J, err error) (time.Duration, error) {
	if err != nil {
		return 0, err
	}
	return j.timeoutValue(), nil
}

func (j *drawingJob) timeoutValue() time.Duration { return j.timeout }
func (j *fileJob) timeoutValue() time.Duration    { return j.timeout }
func (j *benchJob) timeoutValue() time.Duration   { return j.timeout }

// TestProgressQuietWhenPiped runs the long commands with their stderr a
// pipe, as a script or CI has it, and the progress line due at once:
// nothing but errors goes there.
func TestProgressQuietWhenPiped(t *testing.T) {
	requireDevice(t)
	dir := vktest.TempDir(t)
	writeTestFile(t, dir+"/keys.u32", make([]byte, 4000))
	for _, args := range [][]string{
		{"demo", "-grid", "-particles", "3000", "-frames", "20"},
		{"demo", "-particles", "3000", "-frames", "20", "-json"},
		{"raytrace", "-width", "32", "-height", "24", "-spp", "1", "-reps", "2", "-warmup-ms", "0"},
		{"sort", "-in", dir + "/keys.u32", "-out", dir + "/sorted.u32", "-type", "u32"},
		{"bench", "-ops", "copy", "-n", "10", "-reps", "2", "-warmup", "1", "-warmup-ms", "0"},
	} {
		code, _, errOut := runCLIEnv(t, []string{"VKCOMPACT_TEST_PROGRESS_AT_ONCE=1"}, args...)
		if args[0] == "bench" {
			errOut = strings.Join(slices.DeleteFunc(strings.SplitAfter(errOut, "\n"), func(l string) bool { return strings.HasPrefix(l, "# device: ") }), "")
		}
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var buf bytes.Buffer
	for name, w := range map[string]io.Writer{"a pipe": w, "/dev/null": null, "a buffer": &buf} {
		if stderrTerminal(w) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
}

// TestProgressShown runs the demo in process with stderr taken for a
// terminal (the test hook) and the line drawn at once: it shows the
// frames done and the elapsed time, and is erased at the end; with -json
// nothing is drawn.
func TestProgressShown(t *testing.T) {
	requireDevice(t)
	was, after, every := terminal, progressShowAfter, progressEvery
	terminal, progressShowAfter, progressEvery = func(io.Writer) bool { return true }, 0, time.Millisecond
	defer func() { terminal, progressShowAfter, progressEvery = was, after, every }()
	for _, asJSON := range []bool{false, true} {
		args := []string{"demo", "-grid", "-particles", "3000", "-frames", "20"}
		if asJSON {
			args = append(args, "-json")
		}
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		got := errOut.String()
		switch {
		case asJSON && got != "":
			t.Errorf("%v: stderr %q, want nothing", args, got)
		case !asJSON && (!strings.Contains(got, "\rvkcompact demo: ") || !strings.Contains(got, "/20 frames, ") || !strings.HasSuffix(got, "\r\x1b[K")):
			t.Errorf("%v: stderr %q, want the line drawn and erased", args, got)
		}
	}
}
