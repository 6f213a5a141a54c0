package vktest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSpinGenerated compiles spin.comp again, as `go generate` does, and
// compares the result with the committed spin.spv.
func TestSpinGenerated(t *testing.T) {
	if _, err := exec.LookPath("glslc"); err != nil {
		if InCI() {
			t.Fatal("glslc is not installed (CI installs it: see the README's test command)")
		}
		t.Skip("glslc is not installed")
	}
	spv := filepath.Join(t.TempDir(), "spin.spv")
	if msg, err := exec.Command("glslc", "--target-env=vulkan1.1", "-O", "-Werror", "spin.comp", "-o", spv).CombinedOutput(); err != nil {
		t.Fatalf("glslc spin.comp: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(spv)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, spinSPIRV) {
		t.Errorf("spin.spv differs from spin.comp: run go generate ./internal/testkit/vktest and commit the result")
	}
}
