package enginetest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestShadersGenerated compiles the GLSL again, as `go generate` does, and
// compares the result with the committed .spv files.
func TestShadersGenerated(t *testing.T) {
	if _, err := exec.LookPath("glslc"); err != nil {
		if vktest.InCI() {
			t.Fatal("glslc is not installed (CI installs it: see the README's test command)")
		}
		t.Skip("glslc is not installed")
	}
	out := t.TempDir()
	for _, name := range []string{"update", "consume"} {
		spv := filepath.Join(out, name+".spv")
		cmd := exec.Command("glslc", "--target-env=vulkan1.1", "-O", "-Werror", name+".comp", "-o", spv)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("glslc %s.comp: %v\n%s", name, err, msg)
		}
		fresh, err := os.ReadFile(spv)
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(name + ".spv")
		if err != nil || !bytes.Equal(fresh, committed) {
			t.Errorf("%s.spv differs from %s.comp: run go generate ./internal/testkit/enginetest and commit the result", name, name)
		}
	}
}

// TestBindingsGenerated checks that the vulkan-go engine is what bindgen
// makes of the goki engine.
func TestBindingsGenerated(t *testing.T) {
	cmd := exec.Command("go", "run", "./internal/bindgen", "-src", "goki", "-dst", "vulkango", "-check")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
