package scan

import (
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
)

// Each kernel's interface with its GLSL: push constants as a Go struct
// whose fields follow the GLSL Push block's members, specialization
// constants as a Go struct whose field i is constant_id i (0 to 7 are
// select.glsl's, tiling.SelectSpec). TestKernelBlocks holds them to the
// GLSL.

// chunkPush is the push constants of scan_reduce and scan_apply.
type chunkPush struct {
	C0      uint32 `glsl:"c0"`    // the segment's first chunk
	NC      uint32 `glsl:"nc"`    // chunks in the segment
	Chunk   uint32 `glsl:"chunk"` // elements per chunk
	N       uint32 `glsl:"n"`     // elements in the segment
	CountOn uint32 `glsl:"countOn"`
}

// reduceSpec is scan_reduce's specialization constants.
type reduceSpec struct {
	tiling.SelectSpec
	FloatSum bool `glsl:"FLOAT_SUM"` // float32 adds; wrapping uint32 otherwise
}

// applySpec is scan_apply's specialization constants.
type applySpec struct {
	tiling.SelectSpec
	FloatSum  bool `glsl:"FLOAT_SUM"`
	Inclusive bool `glsl:"INCLUSIVE"`
}

// sumsPush is scan_sums' push constants.
type sumsPush struct {
	NChunks uint32 `glsl:"nChunks"`
}

// sumsSpec is scan_sums' specialization constants.
type sumsSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"` // pipeline.ScanWorkgroup
	FloatSum      bool   `glsl:"FLOAT_SUM"`
}

// onepassPush is scan_onepass's push constants.
type onepassPush struct {
	N       uint32 `glsl:"n"`     // elements (the capacity with a GPU count)
	Tiles   uint32 `glsl:"tiles"` // tiles dispatched
	CountOn uint32 `glsl:"countOn"`
	Spins   uint32 `glsl:"spins"` // re-reads of an unpublished predecessor before the fallback
	// With Windowed (else ignored): the dispatch's tiles [Tile0, TileEnd)
	// and the workgroups launched by the dispatches before it.
	Tile0   uint32 `glsl:"tile0"`
	TileEnd uint32 `glsl:"tileEnd"`
	WgBase  uint32 `glsl:"wgBase"`
}

// onepassSpec is scan_onepass's specialization constants.
type onepassSpec struct {
	tiling.SelectSpec
	Inclusive    bool   `glsl:"INCLUSIVE"`
	MaxSubgroups uint32 `glsl:"MAX_SUBGROUPS"` // per workgroup at the smallest subgroup size
	TileByID     uint32 `glsl:"TILE_BY_ID"`    // 1: a workgroup's tile is its index (tiling.TilesByIndex)
	SelfReset    uint32 `glsl:"SELF_RESET"`    // 1: the pass resets its status words (tiling.SelfReset)
	Windowed     uint32 `glsl:"WINDOWED"`      // 1: one dispatch per window of the input past one binding
}

// newKernel describes package shaders' kernel name as a typed kernel; every
// prefix-sum kernel needs full subgroups.
func newKernel[P, S any](name string, bindings ...pipeline.Use) pipeline.TypedKernel[P, S] {
	return pipeline.NewTypedKernel[P, S](name, shaders.MustSPIRV(name), true, bindings...)
}

// The three phases (the same chunking as the selection, with sums in place
// of counts) and the single pass for integer sums out of place.
var (
	// Elements as uvec4 and as words, chunk sums, the GPU count.
	reduceKernel = newKernel[chunkPush, reduceSpec]("scan_reduce", pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Read)
	// Chunk sums (scanned in place), the total.
	sumsKernel = newKernel[sumsPush, sumsSpec]("scan_sums", pipeline.ReadWrite, pipeline.Write)
	// Elements in (uvec4, words), chunk sums, sums out (uvec4, words), the
	// GPU count.
	applyKernel = newKernel[chunkPush, applySpec]("scan_apply",
		pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Write, pipeline.Read)
	// Elements in (uvec4, words), tile status, sums out (uvec4, words), the
	// total, the GPU count.
	onepassKernel = newKernel[onepassPush, onepassSpec]("scan_onepass",
		pipeline.Read, pipeline.Read, pipeline.ReadWrite, pipeline.Write, pipeline.Write, pipeline.Write, pipeline.Read)
)
