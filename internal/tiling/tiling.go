// Package tiling holds the tuning the operations built on Billeter's
// chunks and on the single pass's tiles share (package compact's
// selection, package scan's prefix sum, and package radix where it says
// so): the per-device defaults of their options, the cut of an input into
// chunks and segments, and the single pass's choices. Every function is a
// pure function of its arguments. Errors wrap vk.ErrInvalid and leave the
// operation's name to the caller.
package tiling

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// ChunkAlign is the granularity of chunks, in elements: it keeps every
// segment's offset a multiple of 256 bytes.
const ChunkAlign = 256

// Chunks is Billeter's cut of the input: NChunks chunks of Chunk elements
// (the last shorter), each walked by one subgroup, bound SegElems elements
// (whole chunks) at a time so that no binding exceeds
// maxStorageBufferRange; Procs is the processor count, raised to the
// chunk count where chunks had to be smaller.
type Chunks struct {
	Procs, Chunk, NChunks, SegElems uint32
}

// Cut cuts n elements of size bytes for about procs processors, with
// chunks of at most limit elements (more processors where needed).
func Cut(info vk.DeviceInfo, n, size uint64, procs uint32, limit uint64) (Chunks, error) {
	maxSeg := (uint64(info.MaxStorageBufferRange) / size) &^ (ChunkAlign - 1)
	if maxSeg == 0 {
		return Chunks{}, errs.Invalidf("%d-byte elements do not fit the device's maxStorageBufferRange %d", size, info.MaxStorageBufferRange)
	}
	chunk := max(align.Up(align.CeilDiv(n, uint64(procs)), ChunkAlign), ChunkAlign)
	chunk = min(chunk, maxSeg, limit)
	nChunks := align.CeilDiv(n, chunk)
	return Chunks{
		Procs:    max(procs, uint32(nChunks)),
		Chunk:    uint32(chunk),
		NChunks:  uint32(nChunks),
		SegElems: uint32((maxSeg / chunk) * chunk),
	}, nil
}

// MaxChunk bounds a chunk so that one subgroup's walk stays under
// pipeline.LoopBudget loop iterations, the staged write-out's inner
// iterations included. lavapipe stops a shader's loops after 65535
// iterations (its guard against endless loops): a longer walk silently
// lost the end of its output there. Longer inputs get more processors
// instead.
func MaxChunk(info vk.DeviceInfo, loads, epv, words uint32, staged bool) uint64 {
	perStep := uint64(1)
	if staged {
		perStep += uint64(loads * epv * words)
	}
	steps := pipeline.LoopBudget / perStep
	step := uint64(max(info.MinSubgroupSize, 1) * loads * epv)
	return max((steps*step)&^(ChunkAlign-1), ChunkAlign)
}

// Resolve applies the per-device defaults to the options the selection
// and the prefix sum share (a zero value asks for the default) and checks
// them, for elements of words 32-bit words.
func Resolve(info vk.DeviceInfo, wg, loads, procs, words uint32) (uint32, uint32, uint32, error) {
	if wg == 0 {
		wg = max(256, info.MaxSubgroupSize)
	}
	if wg%info.MaxSubgroupSize != 0 {
		return 0, 0, 0, errs.Invalidf("workgroup size %d is not a multiple of the largest subgroup size %d", wg, info.MaxSubgroupSize)
	}
	if loads == 0 {
		loads = defaultLoads(words)
	}
	if loads > vkcompact.MaxLoadsPerLane {
		return 0, 0, 0, errs.Invalidf("%d loads per lane: at most %d", loads, vkcompact.MaxLoadsPerLane)
	}
	if procs == 0 {
		procs = DefaultProcessors(info, wg)
	}
	// The counts of all processors, and two words more, are one binding.
	if limit := info.MaxStorageBufferRange/4 - 2; procs > limit {
		return 0, 0, 0, errs.Invalidf("%d processors: at most %d (their counts must fit one binding)", procs, limit)
	}
	return wg, loads, procs, nil
}

// defaultLoads is the loads per lane per step: enough to keep several
// requests in flight per lane.
func defaultLoads(words uint32) uint32 {
	if words <= 4 {
		return 2
	}
	return 4
}

// DefaultProcessors is P for a device: enough subgroups to fill it.
func DefaultProcessors(info vk.DeviceInfo, wg uint32) uint32 {
	perGroup := max(wg/info.MaxSubgroupSize, 1)
	switch {
	case info.ComputeUnits > 0 && info.SubgroupsPerUnit > 0:
		// Two subgroups per resident slot: on the H100 (132 x 64) 16896
		// ran faster than 4224 or 8448 at 2^28 (BENCHMARKS-history.md).
		return max(info.ComputeUnits*info.SubgroupsPerUnit*2, perGroup)
	case info.ComputeUnits > 0:
		return info.ComputeUnits * 4 * perGroup
	}
	return 64 * perGroup
}

// AutoSinglePass is PathAuto's choice for a selection or an integer prefix
// sum where the single pass applies: on every GPU, where it measured
// faster than the three phases at every size (BENCHMARKS-history.md); not on CPU
// devices, where the three phases were the faster.
func AutoSinglePass(info vk.DeviceInfo) bool {
	return !info.CPU()
}

// Spins resolves a single pass's Options.Spins for a device: the
// re-reads of an unpublished predecessor before the fallback counts it.
func Spins(info vk.DeviceInfo, spins int32) uint32 {
	switch {
	case spins < 0:
		return 0
	case spins > 0:
		return uint32(spins)
	case info.CPU():
		// lavapipe ends any loop after 65535 iterations: count a late
		// predecessor at once rather than wait for it.
		return 0
	}
	return 64
}

// TilesByIndex says whether the single pass's tiles go by workgroup index:
// for a compaction or prefix sum on a GPU, and a split there with up to
// SelfResetMaxTiles tiles. Any other split, and any single pass on a CPU
// device, takes tiles from the counter. lavapipe ends a shader's
// loops after 65535 iterations in all (a guard against endless loops),
// and it does not run the workgroups of a 2D grid in index order: by
// index, a tile of the grid's second row ran before most of its
// predecessors and fell back over tens of thousands of them, past that
// guard, and wrote wrong output (2^20 uint32 at subgroup size 4 with
// tiles of 16). From the counter, a tile's unpublished predecessors are
// only those still running beside it.
//
// A split by index was slower at 2^28 (1.244 against 1.044 ms, 65536
// tiles) but faster wherever the tiles are few (up to 1024 of them, 2^22
// uint32: 0.3 to 0.7 us less on the H100, docs/tuning.md), so a split
// takes its tiles by index up to SelfResetMaxTiles tiles.
func TilesByIndex(info vk.DeviceInfo, split bool, tiles uint32) bool {
	return !info.CPU() && (!split || tiles <= SelfResetMaxTiles)
}

// SelfResetMaxTiles is the most tiles for which the single pass resets
// its own status words (shaders/include/tile_reset.glsl) instead of the host
// recording a clear before it: every workgroup then adds itself to one
// counter, and past this many tiles those atomics on one word cost more
// than the clear's dispatch and barrier (on the H100, 65536 tiles at
// 2^28 took 6 to 10% longer, while 1024 tiles at 2^22 gained 0.6 us;
// with the bound at 4096 tiles, 2^24 took 1 to 4% longer, at 16384
// tiles 2^26 took 5 to 9% longer: docs/tuning.md).
const SelfResetMaxTiles = 1024

// SelfReset says whether a single pass of tiles tiles resets its own
// status words.
func SelfReset(tiles uint32) bool { return tiles <= SelfResetMaxTiles }

// SelectSpec is the specialization constants 0 to 7 that
// shaders/include/select.glsl declares for every kernel built on Billeter's
// chunks: compact's and scan's. A kernel's own constants follow from 8.
type SelectSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	Procs         uint32 `glsl:"PROCS"`      // processors: chunks at most
	Stride        uint32 `glsl:"STRIDE"`     // words per element
	KeyWord       uint32 `glsl:"KEY_WORD"`   // the key's first word in the element
	KeyType       uint32 `glsl:"KEY_TYPE"`   // KeyCode
	Pred          uint32 `glsl:"PRED"`       // the predicate (compact's encoding)
	FlagBytes     uint32 `glsl:"FLAG_BYTES"` // 1 or 4, for flagged selections
	Vecs          uint32 `glsl:"VECS"`       // uvec4 loads per lane per step
}

// KeyCode returns the shaders' KEY_* number of key type t, which
// shaders/include/select.glsl and shaders/radix/radix.glsl share (KEY_U32 0, KEY_I32 1,
// KEY_F32 2, KEY_U64 3, KEY_I64 4, KEY_F64 5), taking Unset as Uint32, a
// plan's default. An unknown type gives NoKeyCode, which no shader takes:
// plans refuse those types first (vkcompact.Elem.Check).
func KeyCode(t vkcompact.Type) uint32 {
	switch t.OrUint32() {
	case vkcompact.Uint32:
		return 0
	case vkcompact.Int32:
		return 1
	case vkcompact.Float32:
		return 2
	case vkcompact.Uint64:
		return 3
	case vkcompact.Int64:
		return 4
	case vkcompact.Float64:
		return 5
	}
	return NoKeyCode
}

// NoKeyCode is KeyCode's answer for an unknown type.
const NoKeyCode = ^uint32(0)

// DefaultSelectSpec is SelectSpec with the GLSL's defaults past the
// workgroup size, processors and stride: for the kernels that include
// select.glsl for its chunking only.
func DefaultSelectSpec(wg, procs, stride uint32) SelectSpec {
	return SelectSpec{WorkgroupSize: wg, Procs: procs, Stride: stride, FlagBytes: 4, Vecs: 1}
}

// MaxOutWindows is the most windows a compaction's single pass binds its
// output as (shaders/compact/select_onepass.glsl, WINDOWS).
const MaxOutWindows = 4

// WindowTiles returns the tiles per dispatch of a single pass whose input
// exceeds one binding: the most whole tiles whose bytes in each of its
// inputs (tileBytes per tile in each; 0 for none) one binding of limit
// bytes holds, in a multiple that keeps every window's offset a multiple
// of minStorageBufferOffsetAlignment (a power of two). It is 0 where no
// such count fits.
func WindowTiles(info vk.DeviceInfo, limit uint64, tileBytes ...uint64) uint32 {
	t, step := uint64(1<<32-1), uint64(1)
	for _, b := range tileBytes {
		if b == 0 {
			continue
		}
		t = min(t, limit/b)
		if a := info.MinStorageBufferOffsetAlignment; a > 0 {
			step = max(step, a/gcd(b, a))
		}
	}
	return uint32(t / step * step)
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// OutWindowBytes is the bytes of each window of a compaction's output
// past one binding (limit bytes): limit rounded down to
// minStorageBufferOffsetAlignment and to 16 bytes.
func OutWindowBytes(info vk.DeviceInfo, limit uint64) uint64 {
	w := limit &^ 15
	if a := info.MinStorageBufferOffsetAlignment; a > 0 {
		w -= w % a
	}
	return w
}
