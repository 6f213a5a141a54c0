package particles

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
)

// TestGenerated regenerates the SPIR-V as go generate does and compares
// it with the committed files.
func TestGenerated(t *testing.T) {
	spvtest.Generated(t, "../../../../../shaders/internal/spvgen", "./cmd/vkcompact/internal/demo/particles")
}

// TestValid runs spirv-val on the embedded modules.
func TestValid(t *testing.T) { spvtest.Valid(t, "setup", "update") }

// TestPrecise checks that the update's float arithmetic is marked
// NoContraction, which keeps a driver from fusing it into FMAs that the Go
// reference does not do.
func TestPrecise(t *testing.T) {
	spvtest.RequireTool(t, "spirv-dis")
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
