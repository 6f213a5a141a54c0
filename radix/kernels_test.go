package radix

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds every radix kernel's Go structs to its GLSL
// source (shaders/, includes and #defines CARRY and WINDOWS followed): the push
// constants field for field against the Push block's members, and the
// specialization constants field i against constant_id i (0 the
// workgroup size), each by name (the glsl tag), order and type (uint32
// uint, int32 int, float32 float, bool bool). A field added, dropped,
// renamed or swapped on either side fails it. Every radix_* and struct_*
// kernel of package shaders must be listed, and each Kernel's PushWords
// must be its push struct's words.
func TestKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("radix_", "struct_"), countKernel.Interface(), scanKernel.Interface(),
		scatterKernel.Interface(), scatterCarryKernel.Interface(), scatterWideKernel.Interface(), scatterCarryWideKernel.Interface(), histogramKernel.Interface(), onesweepKernel.Interface(), onesweepWideKernel.Interface(),
		structKeysKernel.Interface(), structGatherKernel.Interface(), lanesCountKernel.Interface(), lanesScatterKernel.Interface(), lanesCount64Kernel.Interface(), lanesScatter64Kernel.Interface())
}
