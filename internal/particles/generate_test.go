package particles

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// requireTool skips when a tool is missing, except in CI and under the
// test script, where its absence is a failure.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("VKCOMPACT_REQUIRE_DEVICE") != "" {
			t.Fatalf("%s is not installed (CI installs it: see the README's test command)", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// TestGenerated regenerates the SPIR-V as go generate does and compares
// it with the committed files.
func TestGenerated(t *testing.T) {
	requireTool(t, "glslc")
	out := t.TempDir()
	cmd := exec.Command("go", "run", "../../shaders/internal/spvgen", "-src", ".", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("spvgen: %v\n%s", err, msg)
	}
	fresh, _ := filepath.Glob(filepath.Join(out, "*.spv"))
	committed, _ := filepath.Glob("*.spv")
	if len(fresh) != len(committed) || len(fresh) == 0 {
		t.Fatalf("%d committed .spv files, %d generated: run go generate ./internal/particles", len(committed), len(fresh))
	}
	for _, f := range fresh {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Base(f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from its source: run go generate ./internal/particles and commit the result", filepath.Base(f))
		}
	}
}

// TestValid runs spirv-val on the embedded modules.
func TestValid(t *testing.T) {
	requireTool(t, "spirv-val")
	for _, name := range []string{"setup", "update"} {
		cmd := exec.Command("spirv-val", "--target-env", "vulkan1.1", name+".spv")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("spirv-val %s.spv: %v\n%s", name, err, msg)
		}
	}
}

// TestPrecise checks that the update's float arithmetic is marked
// NoContraction, which keeps a driver from fusing it into FMAs that the Go
// reference does not do.
func TestPrecise(t *testing.T) {
	requireTool(t, "spirv-dis")
	msg, err := exec.Command("spirv-dis", "update.spv").CombinedOutput()
	if err != nil {
		t.Fatalf("spirv-dis: %v\n%s", err, msg)
	}
	decorated := map[string]bool{}
	for _, line := range bytes.Split(msg, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) == 3 && string(f[0]) == "OpDecorate" && string(f[2]) == "NoContraction" {
			decorated[string(f[1])] = true
		}
	}
	ops := 0
	for _, line := range bytes.Split(msg, []byte("\n")) {
		f := bytes.Fields(line)
		// %id = OpFAdd %float %a %b: additions and subtractions are what a
		// contraction would fuse a product into.
		if len(f) >= 3 && (string(f[2]) == "OpFAdd" || string(f[2]) == "OpFSub") {
			ops++
			if !decorated[string(f[0])] {
				t.Errorf("%s is not NoContraction: mark its operands precise", bytes.TrimSpace(line))
			}
		}
	}
	if ops == 0 {
		t.Error("no float additions found in update.spv")
	}
}
