package permute

import (
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// The kernel's interface with its GLSL (shaders/permute/permute.comp):
// push constants as a Go struct whose fields follow the GLSL Push block's
// members, specialization constants as a Go struct whose field i is
// constant_id i, bindings as a struct whose field i is binding i.
// TestKernelBlocks holds them to the GLSL.

// movePush is the permute kernel's push constants.
type movePush struct {
	N        uint32 `glsl:"n"`     // positions in the segment
	First    uint32 `glsl:"first"` // the segment's first position
	CountOn  uint32 `glsl:"countOn"`
	Bound    uint32 `glsl:"bound"`    // elements of the indexed side
	StatusOn uint32 `glsl:"statusOn"` // 0, or 1 + the status word's index
}

// moveSpec is the permute kernel's specialization constants.
type moveSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Words         uint32 `glsl:"WORDS"` // words per element
	Scatter       bool   `glsl:"SCATTER"`
	Units         uint32 `glsl:"UNITS"` // units per lane
}

// moveBindings is the permute kernel's storage-buffer bindings: the
// indices, source and destination each as the vectors the kernel reads
// or writes them in (one range bound several times).
type moveBindings struct {
	IdxVec, IdxWord          vk.Range `use:"read"`
	SrcVec, SrcPair, SrcWord vk.Range `use:"read"`
	DstVec, DstPair, DstWord vk.Range `use:"write"`
	Status                   vk.Range `use:"readwrite"`
	GpuCount                 vk.Range `use:"read"`
}

// moveKernel is the gather and the scatter; it needs no full subgroups.
var moveKernel = pipeline.NewTypedKernel[movePush, moveSpec, moveBindings]("permute", shaders.MustSPIRV("permute"), false)
