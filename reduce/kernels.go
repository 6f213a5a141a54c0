package reduce

import (
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// Each kernel's interface with its GLSL: push constants as a Go struct
// whose fields follow the GLSL Push block's members, specialization
// constants as a Go struct whose field i is constant_id i, and the
// storage-buffer bindings as a struct of ranges. TestKernelBlocks holds
// them to the GLSL.

// tilesPush is reduce_tiles' push constants.
type tilesPush struct {
	N        uint32 `glsl:"n"`        // elements bound (this window's)
	Total    uint32 `glsl:"total"`    // elements in all (the capacity with a GPU count)
	Elem0    uint32 `glsl:"elem0"`    // the window's first element
	Chunk    uint32 `glsl:"chunk"`    // elements per workgroup
	Group0   uint32 `glsl:"group0"`   // the window's first workgroup
	Own      uint32 `glsl:"own"`      // the window's workgroups (its grid may hold more)
	Groups   uint32 `glsl:"groups"`   // workgroups with a partial, in all windows
	Launched uint32 `glsl:"launched"` // workgroups the windows' dispatches launch (their grids')
	CountOn  uint32 `glsl:"countOn"`
}

// tilesSpec is reduce_tiles' specialization constants.
type tilesSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Op            uint32 `glsl:"OP"`
	Type          uint32 `glsl:"TYPE"` // the elements' KEY_* code
	Vecs          uint32 `glsl:"VECS"`
	MaxSubgroups  uint32 `glsl:"MAX_SUBGROUPS"` // per workgroup at the smallest subgroup size
	LastCombines  bool   `glsl:"LAST_COMBINES"` // the single pass: the last workgroup combines the partials
}

// combinePush is reduce_combine's push constants.
type combinePush struct {
	Total   uint32 `glsl:"total"`
	Groups  uint32 `glsl:"groups"`
	CountOn uint32 `glsl:"countOn"`
}

// combineSpec is reduce_combine's specialization constants.
type combineSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Op            uint32 `glsl:"OP"`
	Type          uint32 `glsl:"TYPE"`
	MaxSubgroups  uint32 `glsl:"MAX_SUBGROUPS"`
}

// The kernels' storage-buffer bindings: field i is binding i (see
// pipeline.TypedKernel).
type (
	tilesBindings struct {
		SrcVec, SrcWord vk.Range `use:"read"`
		Scratch         vk.Range `use:"readwrite"`
		Result          vk.Range `use:"write"`
		GpuCount        vk.Range `use:"read"`
	}
	combineBindings struct {
		Scratch  vk.Range `use:"read"`
		Result   vk.Range `use:"write"`
		GpuCount vk.Range `use:"read"`
	}
)

// newKernel describes package shaders' kernel name as a typed kernel;
// every reduction kernel needs full subgroups.
func newKernel[P, S, B any](name string) pipeline.TypedKernel[P, S, B] {
	return pipeline.NewTypedKernel[P, S, B](name, shaders.MustSPIRV(name), true)
}

var (
	tilesKernel   = newKernel[tilesPush, tilesSpec, tilesBindings]("reduce_tiles")
	combineKernel = newKernel[combinePush, combineSpec, combineBindings]("reduce_combine")
)

// segPush is reduce_segments' push constants.
type segPush struct {
	N        uint32 `glsl:"n"`
	Segments uint32 `glsl:"segments"`
}

// segSpec is the specialization constants of reduce_segments and
// reduce_segments_fixup (whose tiles are the first's).
type segSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Op            uint32 `glsl:"OP"`
	Type          uint32 `glsl:"TYPE"`
	Vecs          uint32 `glsl:"VECS"`
}

// segFixupPush is reduce_segments_fixup's push constants.
type segFixupPush struct {
	N        uint32 `glsl:"n"`
	Segments uint32 `glsl:"segments"`
	Tile     uint32 `glsl:"tile"` // elements per tile
}

type (
	segBindings struct {
		SrcVec, SrcWord, Offsets vk.Range `use:"read"`
		Dst, Tiles               vk.Range `use:"write"`
	}
	segFixupBindings struct {
		Offsets, Tiles vk.Range `use:"read"`
		Dst            vk.Range `use:"write"`
	}
)

var (
	segKernel      = newKernel[segPush, segSpec, segBindings]("reduce_segments")
	segFixupKernel = newKernel[segFixupPush, segSpec, segFixupBindings]("reduce_segments_fixup")
)

// byKeyPush is reduce_bykey's push constants.
type byKeyPush struct {
	N         uint32 `glsl:"n"`     // pairs (the capacity with a GPU count)
	Tiles     uint32 `glsl:"tiles"` // tiles dispatched
	CountOn   uint32 `glsl:"countOn"`
	Spins     uint32 `glsl:"spins"`     // re-reads of an unpublished predecessor before the fallback
	GroupSize uint32 `glsl:"groupSize"` // the result block's dispatch arguments' workgroup size
	MaxX      uint32 `glsl:"maxX"`      // maxComputeWorkGroupCount[0]
}

// byKeySpec is reduce_bykey's specialization constants.
type byKeySpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Op            uint32 `glsl:"OP"`
	Type          uint32 `glsl:"TYPE"` // the values' KEY_* code
	Vecs          uint32 `glsl:"VECS"`
	KeyType       uint32 `glsl:"KEY_TYPE"`
	MaxSubgroups  uint32 `glsl:"MAX_SUBGROUPS"`
	TileByID      uint32 `glsl:"TILE_BY_ID"` // 1: a workgroup's tile is its index (tiling.TilesByIndex)
	SelfReset     uint32 `glsl:"SELF_RESET"` // 1: the pass resets its status words (tiling.SelfReset)
}

// byKeyFixupPush is reduce_bykey_fixup's push constants.
type byKeyFixupPush struct {
	N       uint32 `glsl:"n"`
	Tiles   uint32 `glsl:"tiles"`
	CountOn uint32 `glsl:"countOn"`
	Tile    uint32 `glsl:"tile"` // elements per tile
}

// byKeyFixupSpec is reduce_bykey_fixup's specialization constants.
type byKeyFixupSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Op            uint32 `glsl:"OP"`
	Type          uint32 `glsl:"TYPE"`
}

type (
	byKeyBindings struct {
		KeyVec, KeyWord, SrcVec, SrcWord vk.Range `use:"read"`
		Status                           vk.Range `use:"readwrite"`
		Tiles, KeysOut, ValuesOut        vk.Range `use:"write"`
		Result                           vk.Range `use:"write"`
		GpuCount                         vk.Range `use:"read"`
	}
	byKeyFixupBindings struct {
		Tiles     vk.Range `use:"read"`
		ValuesOut vk.Range `use:"write"`
		GpuCount  vk.Range `use:"read"`
	}
)

var (
	byKeyKernel      = newKernel[byKeyPush, byKeySpec, byKeyBindings]("reduce_bykey")
	byKeyFixupKernel = newKernel[byKeyFixupPush, byKeyFixupSpec, byKeyFixupBindings]("reduce_bykey_fixup")
)
