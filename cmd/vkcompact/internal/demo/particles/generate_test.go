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
func TestValid(t *testing.T) {
	spvtest.Valid(t, "setup", "update", "grid_update", "grid_cells", "grid_table", "grid_neighbours")
}

// TestPrecise checks that the float arithmetic of both updates and of the
// grid's neighbour distances and pushes is marked NoContraction, which
// keeps a driver from fusing it into FMAs that the Go reference does not do.
func TestPrecise(t *testing.T) {
	spvtest.RequireTool(t, "spirv-dis")
	for _, module := range []string{"update", "grid_update", "grid_neighbours"} {
		msg, err := exec.Command("spirv-dis", module+".spv").CombinedOutput()
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
					t.Errorf("%s: %s is not NoContraction: mark its operands precise", module, bytes.TrimSpace(line))
				}
			}
		}
		if ops == 0 {
			t.Errorf("no float additions found in %s.spv", module)
		}
	}
}
