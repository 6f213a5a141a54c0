package compact

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds every select_* kernel's Go push and
// specialization constants to its GLSL, field by field (names, order,
// types), and PushWords to the push struct: a field added, dropped,
// renamed or swapped on either side fails it.
func TestKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("select_"), countKernel.Interface(), scanKernel.Interface(),
		moveKernel.Interface(), copybackKernel.Interface(), onepassKernel.Interface(), onepassResetKernel.Interface(), onepassWideKernel.Interface(),
		countRunsKernel.Interface(), moveRunsKernel.Interface(), onepassRunsKernel.Interface(), onepassResetRunsKernel.Interface(),
		lengthsKernel.Interface())
}
