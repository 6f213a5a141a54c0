package raytrace

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
)

// TestGenerated regenerates the SPIR-V as go generate does and compares
// it with the committed files.
func TestGenerated(t *testing.T) {
	spvtest.Generated(t, "../../../../../shaders/internal/spvgen", "./cmd/vkcompact/internal/demo/raytrace")
}

// TestValid runs spirv-val on the embedded modules.
func TestValid(t *testing.T) { spvtest.Valid(t, "generate", "shade", "resolve") }

// TestExactArithmetic checks, in the compiled modules, what the Go
// reference relies on (trace.glsl's header): every float addition,
// subtraction and multiplication is NoContraction, so that no driver fuses
// it into an FMA, and nothing whose precision Vulkan leaves to the driver
// is used: no division, dot product or extended instruction other than
// the exact ones.
func TestExactArithmetic(t *testing.T) {
	spvtest.RequireTool(t, "spirv-dis")
	exactExt := map[string]bool{"FClamp": true, "Floor": true, "FMin": true, "FMax": true, "FAbs": true, "UMin": true, "UMax": true, "SMin": true, "SMax": true}
	for _, name := range []string{"generate", "shade", "resolve"} {
		msg, err := exec.Command("spirv-dis", name+".spv").CombinedOutput()
		if err != nil {
			t.Fatalf("spirv-dis: %v\n%s", err, msg)
		}
		lines := strings.Split(string(msg), "\n")
		precise := map[string]bool{}
		for _, line := range lines {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "OpDecorate" && f[2] == "NoContraction" {
				precise[f[1]] = true
			}
		}
		ops := 0
		for _, line := range lines {
			f := strings.Fields(line)
			if len(f) < 3 || f[1] != "=" {
				continue
			}
			switch op := f[2]; op {
			case "OpFAdd", "OpFSub", "OpFMul", "OpVectorTimesScalar":
				ops++
				if !precise[f[0]] {
					t.Errorf("%s: %s is not NoContraction: mark its operands precise", name, strings.TrimSpace(line))
				}
			case "OpFDiv", "OpFRem", "OpFMod", "OpDot", "OpVectorTimesMatrix", "OpMatrixTimesVector":
				t.Errorf("%s: %s: the driver chooses its precision", name, strings.TrimSpace(line))
			case "OpExtInst":
				if len(f) < 6 || !exactExt[f[5]] {
					t.Errorf("%s: %s: not known to be exact", name, strings.TrimSpace(line))
				}
			}
		}
		if ops == 0 {
			t.Errorf("%s: no float arithmetic found", name)
		}
	}
}
