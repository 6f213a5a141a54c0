package enginetest

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vkcompact/vkcompact/vk/vktest"
)

// The engine's own kernels, compiled by `go generate` (see doc.go).
var (
	//go:embed update.spv
	updateSPV []byte
	//go:embed consume.spv
	consumeSPV []byte
)

// Workgroup sizes of the kernels: local_size_x in update.comp and
// consume.comp. consumeGroupSize is also the compaction's
// Options.GroupSize, so that the dispatch arguments it leaves in the result
// block cover the kept particles in consume's workgroups.
const (
	updateGroupSize  = 64
	consumeGroupSize = 32
)

// spirvWords returns the words of a SPIR-V module, failing t when b is not
// one.
func spirvWords(t testing.TB, name string, b []byte) []uint32 {
	t.Helper()
	if len(b) < 20 || len(b)%4 != 0 || binary.LittleEndian.Uint32(b) != 0x07230203 {
		t.Fatalf("%s is not SPIR-V (%d bytes)", name, len(b))
	}
	words := make([]uint32, len(b)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return words
}

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
			t.Errorf("%s.spv differs from %s.comp: run go generate ./internal/enginetest and commit the result", name, name)
		}
	}
}
