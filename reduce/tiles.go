package reduce

import (
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/vk"
)

// The tiles of the segmented reduction and the reduction by key
// (shaders/reduce/reduce_runs.glsl): a workgroup per tile of
// WorkgroupSize * LoadsPerLane uvec4s, each invocation holding
// consecutive elements.

// tileTuning is a tiled plan's resolved choices.
type tileTuning struct {
	wg, loads    uint32
	tile, ntiles uint32 // elements per tile, tiles
	// recOff is where the tile records start in the scratch (after the
	// reduction by key's status words).
	recOff uint64
}

// recordWords is the 32-bit words of a tile's record (reduce_runs.glsl,
// TILE_WORDS).
const recordWords = 8

// recordsSize is the bytes of the tile records.
func (t tileTuning) recordsSize() uint64 {
	if t.ntiles == 0 {
		return 0
	}
	return align.Up(uint64(t.ntiles)*recordWords*4, 256)
}

// tileShared is the shared memory a tile kernel of workgroups of wg
// invocations and tiles of tile elements declares at most
// (reduce_segments: a code per element, the run scan's two arrays of a
// flag and a value, a few words).
func tileShared(wg, tile uint32) uint64 { return 4*uint64(tile) + 24*uint64(wg) + 64 }

// tuneTiles resolves the tile options for n elements of size bytes
// (the values'), checks them, and cuts the input into tiles.
func tuneTiles(info vk.DeviceInfo, n, size uint64, o Options) (tileTuning, error) {
	wg := o.WorkgroupSize
	if wg == 0 {
		wg = 256
		if info.CPU() {
			wg = 64 // lavapipe and SwiftShader run a workgroup on one thread: small tiles spread small inputs
		}
		wg = min(max(wg/info.MaxSubgroupSize, 1)*info.MaxSubgroupSize, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])
	}
	if wg%info.MaxSubgroupSize != 0 || wg > info.MaxWorkgroupInvocations || wg > info.MaxWorkgroupSize[0] {
		return tileTuning{}, invalid("workgroup size %d: want a multiple of the largest subgroup size %d up to %d", wg, info.MaxSubgroupSize,
			min(info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0]))
	}
	loads := o.LoadsPerLane
	if loads > maxTileLoads {
		return tileTuning{}, invalid("%d loads per lane: at most %d", loads, maxTileLoads)
	}
	epv := uint32(16 / size)
	if loads == 0 {
		loads = maxTileLoads
		for loads > 1 && tileShared(wg, wg*loads*epv) > uint64(info.MaxSharedMemory) {
			loads--
		}
	}
	t := tileTuning{wg: wg, loads: loads, tile: wg * loads * epv}
	if need := tileShared(wg, t.tile); need > uint64(info.MaxSharedMemory) {
		return tileTuning{}, invalid("tiles of %d elements in workgroups of %d need %d bytes of shared memory; the device has %d", t.tile, wg, need, info.MaxSharedMemory)
	}
	t.ntiles = uint32(align.CeilDiv(n, uint64(t.tile)))
	return t, nil
}

// maxTileLoads bounds LoadsPerLane on the tiled plans: an invocation
// keeps its 16 elements (8 of 64 bits) in registers.
const maxTileLoads = 4
