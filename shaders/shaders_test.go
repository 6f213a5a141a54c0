package shaders

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// requireTool skips when a tool is missing, except in CI, where the test
// command installs it and its absence is a failure.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("VKCOMPACT_REQUIRE_DEVICE") != "" {
			t.Fatalf("%s is not installed (CI installs it: see the README's test command)", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// TestGenerated regenerates the SPIR-V and compares it with the committed
// files.
func TestGenerated(t *testing.T) {
	requireTool(t, "glslc")
	out := t.TempDir()
	cmd := exec.Command("go", "run", "./internal/spvgen", "-src", ".", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("spvgen: %v\n%s", err, msg)
	}
	fresh, _ := filepath.Glob(filepath.Join(out, "*.spv"))
	committed, _ := filepath.Glob("*.spv")
	if len(fresh) != len(committed) {
		t.Fatalf("%d committed .spv files, %d generated: run go generate ./shaders", len(committed), len(fresh))
	}
	for _, f := range fresh {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Base(f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from its source: run go generate ./shaders and commit the result", filepath.Base(f))
		}
	}
}

// TestValid runs spirv-val on every embedded module.
func TestValid(t *testing.T) {
	requireTool(t, "spirv-val")
	names := Names()
	if len(names) == 0 {
		t.Fatal("no kernels embedded")
	}
	for _, name := range names {
		cmd := exec.Command("spirv-val", "--target-env", "vulkan1.1", name+".spv")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("spirv-val %s.spv: %v\n%s", name, err, msg)
		}
		if _, err := SPIRV(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := SPIRV("no-such-kernel"); err == nil {
		t.Error("SPIRV of a missing kernel returned no error")
	}
}
