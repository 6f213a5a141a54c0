package runs

import (
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// finishPush is runs_finish's push constants.
type finishPush struct {
	GroupSize uint32 `glsl:"groupSize"` // Encoding.GroupSize, for the result block's dispatch arguments
	MaxX      uint32 `glsl:"maxX"`      // maxComputeWorkGroupCount[0]
}

// finishSpec is runs_finish's specialization constants.
type finishSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Encode        uint32 `glsl:"ENCODE"` // 1: Encode; 0: NonTrivial
}

// finishBindings is runs_finish's storage buffers: field i is binding i.
type finishBindings struct {
	Sel, SelBlock    vk.Range `use:"read"`
	Offsets, Lengths vk.Range `use:"write"` // Encode: Offsets bound to Lengths, unused
	Result           vk.Range `use:"write"`
}

// finishKernel turns the selected indices into runs. Any subgroup size
// does: it uses no subgroup operations.
var finishKernel = pipeline.NewTypedKernel[finishPush, finishSpec, finishBindings]("runs_finish", shaders.MustSPIRV("runs_finish"), false)
