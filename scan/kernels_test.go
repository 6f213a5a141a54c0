package scan

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds every scan_* kernel's Go push and
// specialization constants to its GLSL, field by field (names, order,
// types), and PushWords to the push struct: a field added, dropped,
// renamed or swapped on either side fails it.
func TestKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("scan_"), reduceKernel.Interface(), sumsKernel.Interface(),
		applyKernel.Interface(), onepassKernel.Interface(),
		reduceMinMaxKernel.ints.Interface(), reduceMinMaxKernel.f32.Interface(),
		sumsMinMaxKernel.ints.Interface(), sumsMinMaxKernel.f32.Interface(),
		applyMinMaxKernel.ints.Interface(), applyMinMaxKernel.f32.Interface(),
		onepassMinMaxKernel.ints.Interface(), onepassMinMaxKernel.f32.Interface(),
		byKeyKernel.ints.Interface(), byKeyKernel.f32.Interface(),
		byKeyMinMaxKernel.ints.Interface(), byKeyMinMaxKernel.f32.Interface())
}
