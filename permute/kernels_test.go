package permute

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds the permute kernel's Go push and specialization
// constants and bindings to its GLSL, field by field (names, order,
// types): a field added, dropped, renamed or swapped on either side fails
// it.
func TestKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("permute"), moveKernel.Interface())
}
