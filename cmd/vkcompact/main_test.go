package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/bench"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy/npytest"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestMain lets the test binary stand in for vkcompact: with
// VKCOMPACT_TEST_AS_CLI=1 it runs the command line on its arguments (with
// VKCOMPACT_TEST_PROGRESS_AT_ONCE=1 too, a progress line would be drawn
// at once, not after a second).
func TestMain(m *testing.M) {
	if os.Getenv("VKCOMPACT_TEST_AS_CLI") == "1" {
		if os.Getenv("VKCOMPACT_TEST_PROGRESS_AT_ONCE") == "1" {
			progressShowAfter, progressEvery = 0, time.Millisecond
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runCLI runs vkcompact in a child process (so that a panic would show as
// a stack trace on its stderr and an exit status of 2) and returns its
// exit status and output. A stack trace fails the test.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLIEnv(t, nil, args...)
}

// runCLIEnv is runCLI with extra environment variables (NAME=VALUE).
func runCLIEnv(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	var cmd *exec.Cmd
	// Starting the child is retried: under Wine (the Windows leg) process
	// creation now and then fails ("fork/exec ...: Internal error") while
	// many children start at once; what is tested begins once it runs.
	for attempt := 1; ; attempt++ {
		cmd = exec.Command(os.Args[0], args...)
		cmd.Env = append(append(os.Environ(), env...), "VKCOMPACT_TEST_AS_CLI=1")
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Start()
		if err == nil {
			break
		}
		if attempt == 5 {
			t.Fatalf("starting vkcompact %v: %v", args, err)
		}
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
	}
	err := cmd.Wait()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running vkcompact %v: %v", args, err)
	}
	for _, s := range []string{errOut.String(), out.String()} {
		if strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
			t.Fatalf("vkcompact %v printed a stack trace:\n%s", args, s)
		}
	}
	return code, out.String(), errOut.String()
}

// runJSON runs vkcompact, which must exit 0 and print one line of JSON
// holding every key of keys, and returns its output.
func runJSON(t *testing.T, args []string, keys ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("want one line of JSON, got %q", out)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q in the JSON: %s", k, out)
		}
	}
	return out
}

// decodeLastLine decodes the JSON object on the last line of stdout.
func decodeLastLine[T any](t *testing.T, stdout string) T {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	var d T
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &d); err != nil {
		t.Fatalf("the last line is not JSON: %v\n%s", err, stdout)
	}
	return d
}

// readPNG reads a PNG file and returns its bytes and its picture.
func readPNG(t *testing.T, path string) ([]byte, image.Image) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b, img
}

// npyFile returns a version 1.0 .npy file of the header dict, as given,
// and the data.
func npyFile(dict string, data []byte) []byte { return npytest.File(dict, data) }

// npyHeaderBytes returns the header of a 1-D array of n items of the
// dtype string descr ('<f4'), as the command writes it.
func npyHeaderBytes(descr string, n uint64) []byte { return npy.HeaderFor(npy.Quote(descr), n) }

// readNpyBytes reads the header of the .npy file b.
func readNpyBytes(b []byte) (*npy.Header, error) {
	return npy.ReadHeader(bytes.NewReader(b), int64(len(b)))
}

// requireDevice skips without a Vulkan device (fails in CI).
func requireDevice(t *testing.T) { vktest.Open(t) }

func TestDevicesText(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "devices")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"[default]", "subgroup size", "maxStorageBufferRange", "timestamps"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDevicesJSON(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "devices", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got devicesOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if got.Default < 0 || got.Default >= len(got.Devices) || !got.Devices[got.Default].Default {
		t.Fatalf("default %d not marked among %d devices", got.Default, len(got.Devices))
	}
	// The documented field names are stable.
	var raw struct {
		Devices []map[string]any `json:"devices"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"index", "name", "type", "driver_name", "driver_version", "api_version", "subgroup_size",
		"min_subgroup_size", "max_subgroup_size", "subgroup_operations", "max_storage_buffer_range",
		"min_storage_buffer_offset_alignment", "max_workgroup_count", "max_workgroup_size", "max_workgroup_invocations",
		"max_shared_memory", "memory_heaps", "timestamp_period_ns", "problems", "default"} {
		if _, ok := raw.Devices[0][key]; !ok {
			t.Errorf("device JSON lacks %q", key)
		}
	}
}

func TestBenchCopy(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "bench", "-ops", "copy", "-n", "10,16", "-reps", "3", "-warmup", "1", "-warmup-ms", "30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || strings.Join(rows[0], ",") != "impl,op,n,keep_ratio,ms_median,gelem_per_s" {
		t.Fatalf("unexpected CSV:\n%s", out)
	}
	for i, want := range []string{"1024", "65536"} {
		r := rows[i+1]
		ms, _ := strconv.ParseFloat(r[4], 64)
		if r[0] != "vkcompact" || r[1] != "copy" || r[2] != want || ms <= 0 {
			t.Errorf("row %v", r)
		}
	}
	// The default operations: copy, then compaction and split at each
	// keep ratio, each checked against the input by bench itself, with
	// buffers of their own (-alloc op; the default shares them per size).
	code, out, errOut = runCLI(t, "bench", "-n", "8,13", "-keep", "0,0.5,1", "-reps", "2", "-warmup-ms", "0", "-alloc", "op", "-json", "-phases")
	var rowsJSON []bench.Row
	if code != 0 || json.Unmarshal([]byte(out), &rowsJSON) != nil || len(rowsJSON) != 14 {
		t.Fatalf("bench -json: exit %d, %s %s", code, out, errOut)
	}
	ops := map[string]int{}
	for _, r := range rowsJSON {
		ops[r.Op]++
		if r.MsMedian <= 0 || (r.N != 256 && r.N != 8192) {
			t.Errorf("row %+v", r)
		}
	}
	if ops["copy"] != 2 || ops["select_if"] != 6 || ops["partition_if"] != 6 {
		t.Errorf("operations %v", ops)
	}
	// The three phases' times, or on a GPU (where PathAuto takes the
	// single pass) the clear's and the pass's.
	threePhase := strings.Contains(errOut, "count ") && strings.Contains(errOut, "move ")
	singlePass := strings.Contains(errOut, "single pass: clear ") && strings.Contains(errOut, ", pass ")
	if !threePhase && !singlePass {
		t.Errorf("-phases printed no phase times: %s", errOut)
	}
	// Both paths forced, whatever the device picks.
	code, _, errOut = runCLI(t, "bench", "-ops", "select_if", "-n", "13", "-keep", "0.5", "-reps", "2", "-warmup-ms", "0", "-select-path", "single-pass", "-phases")
	if code != 0 || !strings.Contains(errOut, "single pass: clear ") || !strings.Contains(errOut, ", pass ") {
		t.Errorf("-phases with -select-path single-pass: exit %d, %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "bench", "-ops", "select_if", "-n", "13", "-keep", "0.5", "-reps", "2", "-warmup-ms", "0", "-select-path", "three-phase", "-phases")
	if code != 0 || !strings.Contains(errOut, "count ") || !strings.Contains(errOut, "move ") {
		t.Errorf("-phases with -select-path three-phase: exit %d, %s", code, errOut)
	}
	// Every operation, twice at each size, on the buffers the size's pool
	// hands from one operation to the next (-alloc size, the default):
	// bench checks each output, so a buffer handed on with stale contents
	// or the wrong extent fails here.
	all := "copy,select_if,partition_if,scan_exclusive_u32,sort_keys_u32,sort_pairs_u32"
	code, out, errOut = runCLI(t, "bench", "-ops", all+","+all, "-n", "9,12", "-keep", "0.3", "-reps", "2", "-warmup-ms", "20")
	if code != 0 {
		t.Fatalf("bench (pooled buffers): exit %d: %s", code, errOut)
	}
	if rows, err := csv.NewReader(strings.NewReader(out)).ReadAll(); err != nil || len(rows) != 25 {
		t.Errorf("bench (pooled buffers): %d rows, %v:\n%s", len(rows), err, out)
	}
}

// TestBenchPlot draws a measured table beside another implementation's
// rows, as SVG and PNG, and a table from a CSV alone (-plot-only).
func TestBenchPlot(t *testing.T) {
	dir := vktest.TempDir(t)
	other := filepath.Join(dir, "cub.csv")
	writeTestFile(t, other, []byte("impl,op,n,keep_ratio,ms_median,gelem_per_s\n# a comment\ncub,copy,1024,1.000,0.001,1.02\ncub,copy,65536,1.000,0.002,32.8\n"+
		"cub,select_if,1024,0.500,0.002,0.51\ncub,select_if,65536,0.500,0.003,21.8\n"))
	svg := filepath.Join(dir, "only.svg")
	if code, _, errOut := runCLI(t, "bench", "-plot-only", "-plot", svg, "-plot-with", other, "-ops", "copy,select_if"); code != 0 {
		t.Fatalf("-plot-only: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "select_if") {
		t.Errorf("-plot-only wrote no SVG with a select_if panel (%v)", err)
	}
	requireDevice(t)
	png := filepath.Join(dir, "run.png")
	code, out, errOut := runCLI(t, "bench", "-ops", "copy", "-n", "10,16", "-reps", "2", "-warmup-ms", "0", "-plot", png, "-plot-with", other)
	if code != 0 || !strings.Contains(out, "vkcompact,copy,65536") {
		t.Fatalf("bench -plot: exit %d: %s %s", code, out, errOut)
	}
	if b, err := os.ReadFile(png); err != nil || len(b) < 1000 || string(b[1:4]) != "PNG" {
		t.Errorf("bench -plot wrote no PNG (%d bytes, %v)", len(b), err)
	}
}

// TestBenchKernelStats runs bench -kernel-stats: where the device reports
// pipeline statistics (NVIDIA), the CSV holds rows for every kernel the run
// compiled; elsewhere (lavapipe) it fails naming the missing extension and
// leaves no file.
func TestBenchKernelStats(t *testing.T) {
	requireDevice(t)
	dir := vktest.TempDir(t)
	path := filepath.Join(dir, "stats.csv")
	code, _, errOut := runCLI(t, "bench", "-ops", "copy,select_if", "-keep", "0.5", "-n", "12", "-reps", "1", "-warmup-ms", "0", "-kernel-stats", path)
	if code == 2 && strings.Contains(errOut, "lacks VK_KHR_pipeline_executable_properties") {
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("a failed -kernel-stats left %s (%v)", path, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("a failed -kernel-stats left %d files in its directory", len(left))
		}
		return
	}
	if code != 0 {
		t.Fatalf("bench -kernel-stats: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.HasPrefix(text, "kernel,constants,executable,subgroup_size,statistic,value\n") || !strings.Contains(text, "\ncopy,") || !strings.Contains(text, "select") {
		t.Errorf("-kernel-stats CSV lacks the header or the copy and select kernels:\n%s", text)
	}
	t.Logf("\n%s", text)
}

// TestBenchSort64 times the 64-bit sorts, keys alone and with values,
// which bench checks against the reference.
func TestBenchSort64(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "bench", "-ops", "sort_keys_u64,sort_pairs_u64", "-n", "9,13", "-reps", "2", "-warmup-ms", "0", "-phases")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	for _, row := range []string{"vkcompact,sort_keys_u64,512,", "vkcompact,sort_pairs_u64,8192,"} {
		if !strings.Contains(out, row) {
			t.Errorf("no row %q in:\n%s", row, out)
		}
	}
}
