// Package spvtest holds the tests' shader checks: that kernels' Go push and
// specialization constants match their GLSL (CheckKernels), and, for the
// packages that commit SPIR-V generated from their GLSL (shaders/, the
// demos), that the committed modules match a fresh compilation and that
// spirv-val accepts them.
package spvtest

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RequireTool skips t when a tool is missing, except in CI and under the
// test script (VKCOMPACT_REQUIRE_DEVICE), which install it: there its
// absence is a failure.
func RequireTool(t testing.TB, name string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skipf("%s: the shader tools are checked on the Linux legs (the Windows leg runs under Wine)", name)
	}
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("VKCOMPACT_REQUIRE_DEVICE") != "" {
			t.Fatalf("%s is not installed (CI installs it: see the README's test command)", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// Generated compiles the GLSL of the current directory (and its
// subfolders) with the module's
// generator (spvgen, its path relative to the directory) into a temporary
// directory, as `go generate pkg` does, and fails t for every committed
// .spv file that differs, is missing or is left over.
func Generated(t *testing.T, spvgen, pkg string) {
	t.Helper()
	RequireTool(t, "glslc")
	out := t.TempDir()
	cmd := exec.Command("go", "run", spvgen, "-src", ".", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("spvgen: %v\n%s", err, msg)
	}
	fresh, committed := spvFiles(out), spvFiles(".")
	if len(fresh) != len(committed) || len(fresh) == 0 {
		t.Fatalf("%d committed .spv files, %d generated: run go generate %s", len(committed), len(fresh), pkg)
	}
	for _, f := range fresh {
		want, _ := os.ReadFile(filepath.Join(out, f))
		got, err := os.ReadFile(f)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from its source: run go generate %s and commit the result", f, pkg)
		}
	}
}

// spvFiles lists the .spv files under dir, as paths relative to it.
func spvFiles(dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".spv") {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	return files
}

// Valid runs spirv-val (target Vulkan 1.1) on each named module
// (name.spv, relative to the current directory).
func Valid(t *testing.T, names ...string) {
	t.Helper()
	RequireTool(t, "spirv-val")
	if len(names) == 0 {
		t.Fatal("no modules to validate")
	}
	for _, name := range names {
		cmd := exec.Command("spirv-val", "--target-env", "vulkan1.1", name+".spv")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("spirv-val %s.spv: %v\n%s", name, err, msg)
		}
	}
}
