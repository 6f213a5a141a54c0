package scan

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// Each kernel's interface with its GLSL: push constants as a Go struct
// whose fields follow the GLSL Push block's members, specialization
// constants as a Go struct whose field i is constant_id i (0 to 7 are
// select.glsl's, tiling.SelectSpec). TestKernelBlocks holds them to the
// GLSL.
//
// Each kernel is several modules made from one GLSL body, one per op
// family and kind of elements (scan_ops.glsl), so that a driver compiling
// one parses none of the others' code: sums (scan_reduce, ...; the scan
// by key's float32 sums scan_bykey_f32), and min and max of uint32 and
// int32 (scan_reduce_minmax, ...) and of float32 (scan_reduce_minmax_f32,
// ...). A family's modules for each kind share their Go structs.

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

// reduceMinMaxSpec is scan_reduce_minmax's and scan_reduce_minmax_f32's
// specialization constants: SelectSpec.KeyType is the elements' type.
type reduceMinMaxSpec struct {
	tiling.SelectSpec
	Op uint32 `glsl:"OP"` // Min or Max: the scan_ops.glsl codes are Op's values
}

// applySpec is scan_apply's specialization constants.
type applySpec struct {
	tiling.SelectSpec
	FloatSum  bool `glsl:"FLOAT_SUM"`
	Inclusive bool `glsl:"INCLUSIVE"`
}

// applyMinMaxSpec is scan_apply_minmax's and scan_apply_minmax_f32's
// specialization constants, as reduceMinMaxSpec's.
type applyMinMaxSpec struct {
	tiling.SelectSpec
	Op        uint32 `glsl:"OP"`
	Inclusive bool   `glsl:"INCLUSIVE"`
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

// sumsMinMaxSpec is scan_sums_minmax's and scan_sums_minmax_f32's
// specialization constants.
type sumsMinMaxSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"` // pipeline.ScanWorkgroup
	Op            uint32 `glsl:"OP"`
	ElemType      uint32 `glsl:"ELEM_TYPE"` // the elements' tiling.KeyCode
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

// onepassMinMaxSpec is scan_onepass_minmax's and
// scan_onepass_minmax_f32's specialization constants: scan_onepass's,
// SelectSpec.KeyType the elements' type, and the op.
type onepassMinMaxSpec struct {
	onepassSpec
	Op uint32 `glsl:"OP"` // as reduceMinMaxSpec's
}

// byKeyPush is scan_bykey's push constants.
type byKeyPush struct {
	N       uint32 `glsl:"n"`     // pairs (the capacity with a GPU count)
	Tiles   uint32 `glsl:"tiles"` // tiles in all
	CountOn uint32 `glsl:"countOn"`
	Spins   uint32 `glsl:"spins"` // re-reads of an unpublished predecessor before the fallback
	// With Windowed (else ignored): the dispatch's tiles [Tile0,
	// TileEnd), the workgroups launched by the dispatches before it, and
	// the word of the key before the window in the KeyBefore binding.
	Tile0     uint32 `glsl:"tile0"`
	TileEnd   uint32 `glsl:"tileEnd"`
	WgBase    uint32 `glsl:"wgBase"`
	KeyBefore uint32 `glsl:"keyBefore"`
}

// byKeySpec is scan_bykey's and scan_bykey_f32's specialization
// constants.
type byKeySpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	ElemType      uint32 `glsl:"ELEM_TYPE"` // the values' tiling.KeyCode
	Vecs          uint32 `glsl:"VECS"`      // uvec4s of values per invocation
	KeyType       uint32 `glsl:"KEY_TYPE"`  // the keys' tiling.KeyCode
	Inclusive     bool   `glsl:"INCLUSIVE"`
	MaxSubgroups  uint32 `glsl:"MAX_SUBGROUPS"` // per workgroup at the smallest subgroup size
	TileByID      uint32 `glsl:"TILE_BY_ID"`
	SelfReset     uint32 `glsl:"SELF_RESET"`
	Windowed      uint32 `glsl:"WINDOWED"`
}

// byKeyMinMaxSpec is scan_bykey_minmax's and scan_bykey_minmax_f32's
// specialization constants: scan_bykey's and the op.
type byKeyMinMaxSpec struct {
	byKeySpec
	Op uint32 `glsl:"OP"` // as reduceMinMaxSpec's
}

// The kernels' storage-buffer bindings: field i is binding i (see
// pipeline.TypedKernel).
type (
	reduceBindings struct {
		SrcVec, SrcWord vk.Range `use:"read"`
		Sums            vk.Range `use:"write"`
		GpuCount        vk.Range `use:"read"`
	}
	sumsBindings struct {
		Sums  vk.Range `use:"readwrite"`
		Total vk.Range `use:"write"`
	}
	// applyBindings: the GLSL declares the elements and the sums out
	// without qualifiers (they may be one range, in place); the kernel
	// reads the one and writes the other.
	applyBindings struct {
		SrcVec, SrcWord, Sums vk.Range `use:"read"`
		DstVec, DstWord       vk.Range `use:"write"`
		GpuCount              vk.Range `use:"read"`
	}
	byKeyBindings struct {
		KeyVec, KeyWord, SrcVec, SrcWord vk.Range `use:"read"`
		Status                           vk.Range `use:"readwrite"`
		DstVec, DstWord                  vk.Range `use:"write"`
		KeyBefore, GpuCount              vk.Range `use:"read"`
	}
	onepassBindings struct {
		SrcVec, SrcWord        vk.Range `use:"read"`
		Status                 vk.Range `use:"readwrite"`
		DstVec, DstWord, Total vk.Range `use:"write"`
		GpuCount               vk.Range `use:"read"`
	}
)

// newKernel describes package shaders' kernel name as a typed kernel; every
// prefix-sum kernel needs full subgroups.
func newKernel[P, S, B any](name string) pipeline.TypedKernel[P, S, B] {
	return pipeline.NewTypedKernel[P, S, B](name, shaders.MustSPIRV(name), true)
}

// byType is a kernel's two modules: ints for uint32 and int32 elements,
// f32 for float32.
type byType[P, S, B any] struct {
	ints, f32 pipeline.TypedKernel[P, S, B]
}

// of is the module for elements of type t.
func (k byType[P, S, B]) of(t vkcompact.Type) pipeline.TypedKernel[P, S, B] {
	if t == vkcompact.Float32 {
		return k.f32
	}
	return k.ints
}

// newByType describes the kernel name's modules: name for uint32 and
// int32, name_f32 for float32.
func newByType[P, S, B any](name string) byType[P, S, B] {
	return byType[P, S, B]{newKernel[P, S, B](name), newKernel[P, S, B](name + "_f32")}
}

// The three phases (the same chunking as the selection, with sums in place
// of counts), the single pass for every scan but float sums out of place,
// and the scan by key, each for sums and for min and max.
var (
	reduceKernel        = newKernel[chunkPush, reduceSpec, reduceBindings]("scan_reduce")
	reduceMinMaxKernel  = newByType[chunkPush, reduceMinMaxSpec, reduceBindings]("scan_reduce_minmax")
	sumsKernel          = newKernel[sumsPush, sumsSpec, sumsBindings]("scan_sums")
	sumsMinMaxKernel    = newByType[sumsPush, sumsMinMaxSpec, sumsBindings]("scan_sums_minmax")
	applyKernel         = newKernel[chunkPush, applySpec, applyBindings]("scan_apply")
	applyMinMaxKernel   = newByType[chunkPush, applyMinMaxSpec, applyBindings]("scan_apply_minmax")
	onepassKernel       = newKernel[onepassPush, onepassSpec, onepassBindings]("scan_onepass")
	onepassMinMaxKernel = newByType[onepassPush, onepassMinMaxSpec, onepassBindings]("scan_onepass_minmax")
	byKeyKernel         = newByType[byKeyPush, byKeySpec, byKeyBindings]("scan_bykey")
	byKeyMinMaxKernel   = newByType[byKeyPush, byKeyMinMaxSpec, byKeyBindings]("scan_bykey_minmax")
)
