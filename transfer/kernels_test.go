package transfer

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds the copy's, the shifted copy's, the counted
// copy's and the fill's Go push and specialization constants to their
// GLSL, field by field.
func TestKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("copy", "fill"),
		copyKernel.Interface(), copyShiftedKernel.Interface(), copyCountKernel.Interface(), fillKernel.Interface())
}
