package radix

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/glslblock"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
)

// blockKernel is a kernel with its Go push and specialization constants.
type blockKernel interface {
	blocks() (push, spec any)
}

// TestKernelBlocks holds every radix kernel's Go structs to its GLSL
// source (shaders/, includes and #define CARRY followed): the push
// constants field for field against the Push block's members, and the
// specialization constants field i against constant_id i (0 the
// workgroup size), each by name (the glsl tag), order and type (uint32
// uint, int32 int, float32 float, bool bool). A field added, dropped,
// renamed or swapped on either side fails it. Every radix_* kernel of
// package shaders must be listed, and each Kernel's PushWords must be
// its push struct's words.
func TestKernelBlocks(t *testing.T) {
	kernels := map[*pipeline.Kernel]blockKernel{
		countKernel.Kernel:        countKernel,
		scanKernel.Kernel:         scanKernel,
		scatterKernel.Kernel:      scatterKernel,
		scatterCarryKernel.Kernel: scatterCarryKernel,
		histogramKernel.Kernel:    histogramKernel,
		onesweepKernel.Kernel:     onesweepKernel,
	}
	var listed []string
	for k, bk := range kernels {
		listed = append(listed, k.Name)
		d, err := glslblock.Parse(os.DirFS("../shaders"), k.Name+".comp")
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		push, spec := bk.blocks()
		goPush, err := glslblock.Fields(push)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		if err := glslblock.Compare(goPush, d.Push); err != nil {
			t.Errorf("%s: push constants %T against the GLSL Push block: %v", k.Name, push, err)
		}
		if k.PushWords != len(goPush) {
			t.Errorf("%s: PushWords %d, %T has %d fields", k.Name, k.PushWords, push, len(goPush))
		}
		goSpec, err := glslblock.Fields(spec)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		glslSpec, err := glslblock.ConstantFields(d.Constants)
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		if err := glslblock.Compare(goSpec, glslSpec); err != nil {
			t.Errorf("%s: specialization constants %T against the GLSL constant_ids: %v", k.Name, spec, err)
		}
	}
	var all []string
	for _, name := range shaders.Names() {
		if strings.HasPrefix(name, "radix_") {
			all = append(all, name)
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, all) {
		t.Errorf("kernels checked %v, radix kernels in package shaders %v", listed, all)
	}
}
