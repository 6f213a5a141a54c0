package scan

import (
	"os"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/glslblock"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds every scan_* kernel's Go push and
// specialization constants to its GLSL, field by field (names, order,
// types), and PushWords to the push struct: a field added, dropped,
// renamed or swapped on either side fails it.
func TestKernelBlocks(t *testing.T) {
	var all []string
	for _, name := range shaders.Names() {
		if strings.HasPrefix(name, "scan_") {
			all = append(all, name)
		}
	}
	glslblock.CheckKernels(t, os.DirFS("../shaders"), all, reduceKernel.Interface(), sumsKernel.Interface(),
		applyKernel.Interface(), onepassKernel.Interface())
}
