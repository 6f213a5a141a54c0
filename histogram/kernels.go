package histogram

import (
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// The kernel's interface with its GLSL (shaders/histogram/histogram.comp):
// push constants as a Go struct whose fields follow the GLSL Push block's
// members, specialization constants as a Go struct whose field i is
// constant_id i, bindings as a struct whose field i is binding i.
// TestKernelBlocks holds them to the GLSL.

// countPush is the histogram kernel's push constants.
type countPush struct {
	N       uint32  `glsl:"n"`     // samples in the segment
	First   uint32  `glsl:"first"` // the segment's first sample
	CountOn uint32  `glsl:"countOn"`
	Lower   uint32  `glsl:"lower"` // even bins: the bounds' bits
	Upper   uint32  `glsl:"upper"`
	Scale   float32 `glsl:"scale"` // even bins: Bins / (Upper - Lower) in float32
}

// countSpec is the histogram kernel's specialization constants.
type countSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Bins          uint32 `glsl:"BINS"`
	Replicas      uint32 `glsl:"REPLICAS"`
	KeyType       uint32 `glsl:"KEY_TYPE"` // tiling.KeyCode
	Edges         bool   `glsl:"EDGES"`
	SharedEdges   bool   `glsl:"SHARED_EDGES"`
	IncludeUpper  bool   `glsl:"INCLUDE_UPPER"`
	Vecs          uint32 `glsl:"VECS"` // uvec4 loads per lane per step
}

// countBindings is the histogram kernel's storage-buffer bindings.
type countBindings struct {
	SrcVec, SrcWord vk.Range `use:"read"`
	Edges           vk.Range `use:"read"`
	Counts          vk.Range `use:"readwrite"`
	GpuCount        vk.Range `use:"read"`
}

// countKernel counts samples into per-workgroup sub-histograms and adds
// them to the counts. It needs no full subgroups: a subgroup's size only
// picks its replica.
var countKernel = pipeline.NewTypedKernel[countPush, countSpec, countBindings]("histogram", shaders.MustSPIRV("histogram"), false)
