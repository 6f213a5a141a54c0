package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// requireNumPy returns a Python interpreter that imports NumPy: the one
// VKCOMPACT_PYTHON names, else python3 on the PATH, else /usr/bin/python3
// (where Debian's python3-numpy goes, which a pyenv python3 first on the
// PATH does not see). Without one it skips t, except in CI and under the
// test script (VKCOMPACT_REQUIRE_DEVICE), whose setup installs NumPy:
// there its absence is a failure.
func requireNumPy(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the NumPy comparisons run on the Linux legs: the Windows leg runs under Wine, without a Windows Python")
	}
	var tried []string
	for _, py := range []string{os.Getenv("VKCOMPACT_PYTHON"), "python3", "/usr/bin/python3"} {
		if py == "" {
			continue
		}
		out, err := exec.Command(py, "-c", "import numpy; print(numpy.__version__)").Output()
		if err == nil {
			t.Logf("%s: NumPy %s", py, strings.TrimSpace(string(out)))
			return py
		}
		tried = append(tried, py)
	}
	if vktest.InCI() {
		t.Fatalf("no Python with NumPy (tried %s): scripts/setup.sh installs Debian's python3-numpy", strings.Join(tried, ", "))
	}
	t.Skipf("no Python with NumPy (tried %s)", strings.Join(tried, ", "))
	return ""
}

// numpyCase is a case of testdata/numpy_records.py's cases.json.
type numpyCase struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
	JSON string   `json:"json"` // where the command's JSON goes, for the check
}

// TestNumPyRecords runs compact, split and sort on record arrays and
// plain arrays that NumPy writes (testdata/numpy_records.py: packed,
// align=True, nested, sub-arrays, titles, explicit offsets, a big-endian
// field riding along, names in Latin-1 and beyond, the empty array),
// by field name, and has NumPy load every output and compare it with its
// own result: the input's dtype, and the bytes of a[mask],
// np.concatenate([a[mask], a[~mask]]) or a[np.argsort(key,
// kind='stable')]. Then it runs the bad inputs NumPy wrote and checks
// their messages. The short form runs one case of each kind of record.
func TestNumPyRecords(t *testing.T) {
	python := requireNumPy(t)
	requireDevice(t)
	dir := vktest.TempDir(t)
	script := filepath.Join("testdata", "numpy_records.py")
	args := []string{script, "make", dir}
	if vktest.Short() {
		args = append(args, "--short")
	}
	if out, err := exec.Command(python, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s make: %v\n%s", script, err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []numpyCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, c.Args...)
		if code != 0 {
			t.Fatalf("%s: vkcompact %q: exit %d: %s", c.Name, c.Args, code, stderr)
		}
		writeTestFile(t, c.JSON, []byte(stdout))
	}
	out, err := exec.Command(python, script, "check", dir).CombinedOutput()
	t.Logf("%s check:\n%s", script, out)
	if err != nil {
		t.Fatalf("%s check: %v", script, err)
	}

	p := func(name string) string { return filepath.Join(dir, name) }
	sortTypes := "sort takes keys of u32, i32, f32 or u64 ('<u4', '<i4', '<f4' or '<u8')"
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"sort", "-in", p("parts.npy"), "-key", "depth"}, "-key 'depth': -in " + p("parts.npy") + " has no field of that name; its fields: 'x': '<f4', 'y': '<f4', 'z': '<f4', 'life': '<f4'"},
		{[]string{"compact", "-in", p("parts.npy"), "-keep", "x > 0"}, "a record array: name the key field with -key FIELD (fields: 'x': '<f4', 'y': '<f4', 'z': '<f4', 'life': '<f4')"},
		{[]string{"split", "-in", p("nested.npy"), "-key", "pos", "-keep", "x > 0"}, "-key pos: field 'pos' is a struct: name one of its fields (pos.x, pos.y, pos.z)"},
		{[]string{"sort", "-in", p("nested.npy"), "-key", "vel"}, "-key vel: field 'vel' is a sub-array ('<f4' (3,)): a key is one value, and sub-arrays cannot be keys"},
		{[]string{"sort", "-in", p("nested.npy"), "-key", "be"}, "-key be: field 'be' is '>f8': " + sortTypes},
		{[]string{"compact", "-in", p("bad_bigendian.npy"), "-key", "x", "-keep", "x > 0"}, "-key x: field 'x' is big-endian ('>f4'): save the records little-endian (a.astype(a.dtype.newbyteorder('<')))"},
		{[]string{"sort", "-in", p("bad_object.npy"), "-key", "x"}, "field 'o' holds Python objects ('|O'): NumPy pickled the array, and objects cannot go to the GPU"},
		{[]string{"split", "-in", p("bad_subarray.npy"), "-key", "v", "-keep", "x > 0"}, "field 'v' is a sub-array ('<f4' (3,))"},
		{[]string{"compact", "-in", p("bad_wide.npy"), "-key", "k", "-keep", "x > 0"}, "records of 260 bytes: at most 256 (the library's MaxStride)"},
		{[]string{"sort", "-in", p("bad_types.npy"), "-key", "h"}, "-key h: field 'h' is '<f2': " + sortTypes},
		{[]string{"compact", "-in", p("bad_types.npy"), "-key", "s", "-keep", "nonzero"}, "-key s: field 's' is '|S4': compact takes keys of u32, i32, f32, u64, i64 or f64 ('<u4', '<i4', '<f4', '<u8', '<i8' or '<f8')"},
		{[]string{"sort", "-in", p("bad_types.npy"), "-key", "i"}, "-key i: field 'i' is i64 ('<i8'): " + sortTypes},
		{[]string{"sort", "-in", p("bad_2d.npy"), "-key", "x"}, "shape (2, 3): want a 1-D array of records"},
		{[]string{"sort", "-in", p("keys.npy"), "-type", "u32"}, "dtype '<f4' does not match -type u32 (want '<u4')"},
		{[]string{"sort", "-in", p("parts.npy"), "-key", "life", "-type", "u32"}, "-type u32 contradicts the key field 'life', which is f32 ('<f4')"},
		{[]string{"scan", "-in", p("parts.npy")}, "scan takes a plain array of u32, i32 or f32"},
	} {
		args := append(bad.args, "-out", filepath.Join(vktest.TempDir(t), "out.npy"))
		code, stdout, stderr := runCLI(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, bad.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("vkcompact %q: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %q", args, code, stdout, stderr, bad.want)
		}
	}
}
