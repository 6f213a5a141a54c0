package vkcompact_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// numPy returns a Python interpreter that imports NumPy: the one
// VKCOMPACT_PYTHON names, else python3 on the PATH, else /usr/bin/python3
// (where Debian's python3-numpy goes, which a pyenv python3 first on the
// PATH does not see), and NumPy's version. Without one it skips t, except
// in CI and under the test script (VKCOMPACT_REQUIRE_DEVICE), whose setup
// installs NumPy: there its absence is a failure.
func numPy(t *testing.T) (python, version string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("NumPy runs on the Linux legs: the Windows leg runs under Wine, without a Windows Python")
	}
	var tried []string
	for _, py := range []string{os.Getenv("VKCOMPACT_PYTHON"), "python3", "/usr/bin/python3"} {
		if py == "" {
			continue
		}
		out, err := exec.Command(py, "-c", "import numpy; print(numpy.__version__)").Output()
		if err == nil {
			return py, strings.TrimSpace(string(out))
		}
		tried = append(tried, py)
	}
	if vktest.InCI() {
		t.Fatalf("no Python with NumPy (tried %s): scripts/setup.sh installs Debian's python3-numpy", strings.Join(tried, ", "))
	}
	t.Skipf("no Python with NumPy (tried %s)", strings.Join(tried, ", "))
	return "", ""
}

// TestFixtures checks that the shared fixtures in testdata/ are what
// testdata/make.py makes: it makes them again in a temporary folder with
// NumPy and compares every file, and finds none in testdata/ that the
// script does not make (besides itself).
func TestFixtures(t *testing.T) {
	python, version := numPy(t)
	dir := t.TempDir()
	if out, err := exec.Command(python, filepath.Join("testdata", "make.py"), dir).CombinedOutput(); err != nil {
		t.Fatalf("testdata/make.py: %v\n%s", err, out)
	}
	files := func(root string) []string {
		var list []string
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, path)
				list = append(list, filepath.ToSlash(rel))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	made, committed := files(dir), slices.DeleteFunc(files("testdata"), func(f string) bool { return f == "make.py" })
	if len(made) < 50 {
		t.Fatalf("testdata/make.py made %d files", len(made))
	}
	for _, f := range committed {
		if !slices.Contains(made, f) {
			t.Errorf("testdata/%s: testdata/make.py does not make it", f)
		}
	}
	differ := 0
	for _, f := range made {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(f)))
		switch {
		case err != nil:
			t.Errorf("testdata/%s: %v", f, err)
			differ++
		case !bytes.Equal(got, want):
			t.Errorf("testdata/%s differs from what testdata/make.py makes", f)
			differ++
		}
	}
	if differ > 0 {
		t.Logf("%d of %d files differ from what testdata/make.py makes with %s's NumPy %s: run it (python3 testdata/make.py) and commit its files",
			differ, len(made), python, version)
	}
}
