package reduce

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds every reduce_* kernel's Go push and
// specialization constants and bindings to its GLSL, field by field
// (names, order, types), and PushWords to the push struct: a field added,
// dropped, renamed or swapped on either side fails it.
func TestKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("reduce_"), tilesKernel.Interface(), combineKernel.Interface(),
		segKernel.Interface(), segFixupKernel.Interface(), byKeyKernel.Interface(), byKeyFixupKernel.Interface())
}
