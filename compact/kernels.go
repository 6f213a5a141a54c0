package compact

import (
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// Each kernel's interface with its GLSL: its push constants are a Go
// struct whose fields follow the GLSL Push block's members in order, its
// specialization constants a Go struct whose field i is constant_id i (0
// the workgroup size; 0 to 7 are select.glsl's, tiling.SelectSpec).
// TestKernelBlocks holds every struct to its kernel's GLSL.

// countPush is select_count's push constants.
type countPush struct {
	C0      uint32 `glsl:"c0"`    // the segment's first chunk
	NC      uint32 `glsl:"nc"`    // chunks in the segment
	Chunk   uint32 `glsl:"chunk"` // elements per chunk
	N       uint32 `glsl:"n"`     // elements in the segment
	CLo     uint32 `glsl:"cLo"`   // the predicate's constant, low word
	CHi     uint32 `glsl:"cHi"`   // and high word
	CountOn uint32 `glsl:"countOn"`
}

// scanPush is select_scan's push constants.
type scanPush struct {
	NChunks    uint32 `glsl:"nChunks"`    // chunks holding elements
	N          uint32 `glsl:"n"`          // elements in all
	GroupSize  uint32 `glsl:"groupSize"`  // Selection.GroupSize, for the result block's dispatch arguments
	MaxX       uint32 `glsl:"maxX"`       // maxComputeWorkGroupCount[0]
	PieceElems uint32 `glsl:"pieceElems"` // elements per copy-back piece
	Pieces     uint32 `glsl:"pieces"`     // copy-back pieces; 0 without a copy-back
	CopyTile   uint32 `glsl:"copyTile"`   // words per copy-back workgroup
	CountOn    uint32 `glsl:"countOn"`
	CopyAll    uint32 `glsl:"copyAll"` // 1: the copy-back copies every element (a split)
}

// movePush is select_move's push constants.
type movePush struct {
	C0        uint32 `glsl:"c0"`
	NC        uint32 `glsl:"nc"`
	Chunk     uint32 `glsl:"chunk"`
	N         uint32 `glsl:"n"`
	SegFirst  uint32 `glsl:"segFirst"`  // the segment's first element in the whole input
	PageFirst uint32 `glsl:"pageFirst"` // the output page's first slot
	PageCount uint32 `glsl:"pageCount"` // output slots in the page
	CLo       uint32 `glsl:"cLo"`
	CHi       uint32 `glsl:"cHi"`
	CountOn   uint32 `glsl:"countOn"`
}

// moveSpec is select_move's specialization constants.
type moveSpec struct {
	tiling.SelectSpec
	Split      uint32 `glsl:"SPLIT"`          // 1: the rejected after the kept, in order; 2: reversed from the back
	Staged     uint32 `glsl:"STAGED"`         // 1: the staged write
	StageWords uint32 `glsl:"STAGE_WORDS"`    // the stage's words when staged
	OutIndex   uint32 `glsl:"OUT_INDEX"`      // Selection.Output: 1 indices, 2 indices and elements
	StageRej   uint32 `glsl:"STAGE_REJECTED"` // 1: the staged write stages the rejected elements too (classTuning.stageRejected)
	ValueWords uint32 `glsl:"VALUE_WORDS"`    // Selection.Values: words per value (0: none)
}

// lengthsPush is select_lengths's push constants.
type lengthsPush struct {
	Records uint32 `glsl:"records"` // tiles or chunks
}

// lengthsSpec is select_lengths's specialization constants.
type lengthsSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
}

// copybackPush is select_copyback's push constants.
type copybackPush struct {
	First      uint32 `glsl:"first"`      // the piece's first element
	PieceElems uint32 `glsl:"pieceElems"` // elements in the piece
	Which      uint32 `glsl:"which"`      // 0: the kept elements; 1: all of them
}

// copybackSpec is select_copyback's specialization constants.
type copybackSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	VecsPerThread uint32 `glsl:"VECS_PER_THREAD"`
	Stride        uint32 `glsl:"STRIDE"`
	Procs         uint32 `glsl:"PROCS"`
}

// onepassPush is select_onepass's push constants.
type onepassPush struct {
	N         uint32 `glsl:"n"`     // elements (the capacity with a GPU count)
	Tiles     uint32 `glsl:"tiles"` // tiles dispatched
	CLo       uint32 `glsl:"cLo"`
	CHi       uint32 `glsl:"cHi"`
	CountOn   uint32 `glsl:"countOn"`
	GroupSize uint32 `glsl:"groupSize"`
	MaxX      uint32 `glsl:"maxX"`
	Spins     uint32 `glsl:"spins"` // re-reads of an unpublished predecessor before the fallback
	// select_onepass_wide alone (the others ignore them): the dispatch's
	// tiles [Tile0, TileEnd), the workgroups launched by the dispatches
	// before it, the words of each output window.
	Tile0    uint32 `glsl:"tile0"`
	TileEnd  uint32 `glsl:"tileEnd"`
	WgBase   uint32 `glsl:"wgBase"`
	WinWords uint32 `glsl:"winWords"`
}

// onepassSpec is select_onepass's specialization constants.
type onepassSpec struct {
	tiling.SelectSpec
	Split        uint32 `glsl:"SPLIT"`          // 1: the rejected to the back, reversed
	StageWords   uint32 `glsl:"STAGE_WORDS"`    // a tile's words
	MaxSubgroups uint32 `glsl:"MAX_SUBGROUPS"`  // per workgroup at the smallest subgroup size
	TileByID     uint32 `glsl:"TILE_BY_ID"`     // 1: a workgroup's tile is its index (tiling.TilesByIndex)
	OutIndex     uint32 `glsl:"OUT_INDEX"`      // Selection.Output: 1 indices, 2 indices and elements
	StageUnits   uint32 `glsl:"STAGE_UNITS"`    // 1: units ranked read back from the stage (classTuning.stageUnits)
	StageRej     uint32 `glsl:"STAGE_REJECTED"` // 1: a compaction stages its rejected elements too (classTuning.stageRejected)
	ValueWords   uint32 `glsl:"VALUE_WORDS"`    // Selection.Values: words per value (0: none)
}

// The kernels' storage-buffer bindings: field i is binding i (see
// pipeline.TypedKernel).
type (
	countBindings struct {
		SrcVec, SrcWord, Flags vk.Range `use:"read"`
		Counts                 vk.Range `use:"write"`
		GpuCount               vk.Range `use:"read"`
	}
	scanBindings struct {
		Counts       vk.Range `use:"readwrite"`
		Result, Args vk.Range `use:"write"`
		GpuCount     vk.Range `use:"read"`
	}
	moveBindings struct {
		SrcVec, SrcWord, Flags, Counts vk.Range `use:"read"`
		DstVec, DstWord                vk.Range `use:"write"`
		GpuCount                       vk.Range `use:"read"`
		DstElems                       vk.Range `use:"write"` // OutputBoth: the elements
		Values                         vk.Range `use:"read"`  // Selection.Values: every element's value
		ValuesOut                      vk.Range `use:"write"` // and the kept ones'
		RunRecords                     vk.Range `use:"write"` // run lengths: the chunks' records
	}
	lengthsBindings struct {
		Records vk.Range `use:"read"`
		Lengths vk.Range `use:"readwrite"`
		Result  vk.Range `use:"read"`
	}
	copybackBindings struct {
		SrcVec  vk.Range `use:"read"`
		DstVec  vk.Range `use:"write"`
		SrcWord vk.Range `use:"read"`
		DstWord vk.Range `use:"write"`
		Counts  vk.Range `use:"read"`
	}
	onepassBindings struct {
		SrcVec, SrcWord, Flags  vk.Range `use:"read"`
		Status                  vk.Range `use:"readwrite"`
		DstVec, DstWord, Result vk.Range `use:"write"`
		GpuCount                vk.Range `use:"read"`
		DstElems                vk.Range `use:"write"` // OutputBoth: the elements
		Values                  vk.Range `use:"read"`  // Selection.Values: every element's value
		ValuesOut               vk.Range `use:"write"` // and the kept ones'
		RunRecords              vk.Range `use:"write"` // run lengths: the tiles' records
	}
	// onepassWideBindings adds output windows 1 to 3.
	onepassWideBindings struct {
		SrcVec, SrcWord, Flags       vk.Range `use:"read"`
		Status                       vk.Range `use:"readwrite"`
		DstVec, DstWord, Result      vk.Range `use:"write"`
		GpuCount                     vk.Range `use:"read"`
		DstWord1, DstWord2, DstWord3 vk.Range `use:"write"`
		DstElems                     vk.Range `use:"write"` // bound to DstWord: windows refuse Selection.Output
	}
)

// newKernel describes package shaders' kernel name as a typed kernel.
func newKernel[P, S, B any](name string, full bool) pipeline.TypedKernel[P, S, B] {
	return pipeline.NewTypedKernel[P, S, B](name, shaders.MustSPIRV(name), full)
}

// The three phases, the copy-back of an in-place compaction and the single
// pass. All but the copy-back need full subgroups: every subgroup is one
// processor walking one chunk.
var (
	countKernel        = newKernel[countPush, tiling.SelectSpec, countBindings]("select_count", true)
	scanKernel         = newKernel[scanPush, tiling.SelectSpec, scanBindings]("select_scan", true)
	moveKernel         = newKernel[movePush, moveSpec, moveBindings]("select_move", true)
	copybackKernel     = newKernel[copybackPush, copybackSpec, copybackBindings]("select_copyback", false)
	onepassKernel      = newKernel[onepassPush, onepassSpec, onepassBindings]("select_onepass", true)
	onepassResetKernel = newKernel[onepassPush, onepassSpec, onepassBindings]("select_onepass_reset", true)
	onepassWideKernel  = newKernel[onepassPush, onepassSpec, onepassWideBindings]("select_onepass_wide", true)

	// The same with the neighbour predicates (FirstOfRun, the run edges), in
	// modules of their own (NEIGHBOUR_PREDS): SwiftShader runs the code of
	// a branch its specialization constant rules out, masked, and every
	// other selection took twice as long there with it in (select_if at
	// 2^20: count 86 -> 181 ms, move 161 -> 303). Past one binding the
	// neighbour predicates are refused: no wide module.
	countRunsKernel        = newKernel[countPush, tiling.SelectSpec, countBindings]("select_count_runs", true)
	moveRunsKernel         = newKernel[movePush, moveSpec, moveBindings]("select_move_runs", true)
	onepassRunsKernel      = newKernel[onepassPush, onepassSpec, onepassBindings]("select_onepass_runs", true)
	onepassResetRunsKernel = newKernel[onepassPush, onepassSpec, onepassBindings]("select_onepass_reset_runs", true)

	// The run lengths' fix-up (internal/keepop.RunLengths), after either
	// path. Any subgroup size does.
	lengthsKernel = newKernel[lengthsPush, lengthsSpec, lengthsBindings]("select_lengths", false)
)
