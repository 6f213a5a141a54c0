package compact

import (
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/vk"
)

// The measured choices of a selection's tuning, as data: one row per
// class of device, which the pure tuning (tuneThreePhase, tuneSinglePass)
// reads. docs/tuning.md gives the measurements behind them. The choices a selection shares with the prefix
// sum are package tiling's: PathAuto's path (tiling.AutoSinglePass), the
// processors and the three phases' loads (tiling.Resolve), the spins
// (tiling.Spins), tiles by index (tiling.TilesByIndex) and the self-reset
// bound (tiling.SelfResetMaxTiles).

// deviceClass is a class of device the tuning tells apart.
type deviceClass uint8

const (
	gpuClass         deviceClass = iota // a GPU: discrete, integrated or virtual
	cpuClass                            // a CPU device: lavapipe, and any other but SwiftShader
	swiftShaderClass                    // SwiftShader
)

// classTuning is the measured choices for one class of device.
type classTuning struct {
	// autoStaged: WriteAuto takes the staged write wherever its stage
	// fits shared memory (the scattered write otherwise).
	autoStaged bool
	// singlePassLoads is the single pass's loads per lane where the
	// caller chose none and the small tiles do not apply: as many as fit
	// shared memory, up to this. Fewer, larger tiles (less look-back)
	// beat the registers fewer loads save.
	singlePassLoads uint32
	// smallInputBytes is the largest input, in bytes, on which the single
	// pass takes small tiles where the caller chose neither the workgroup
	// size nor the loads: workgroups of smallTileWorkgroup invocations
	// with smallTileLoads loads per lane (none where smallTileWorkgroup is
	// 0). The default tiles leave most of a large GPU idle at engine
	// sizes, and a smaller tile is a shorter chain of loads per lane.
	smallInputBytes                    uint64
	smallTileWorkgroup, smallTileLoads uint32
	// autoSinglePassBytes: on a CPU device (where tiling.AutoSinglePass
	// takes the three phases), PathAuto takes the single pass for inputs
	// of at most this many bytes, where it measured faster on lavapipe
	// and SwiftShader (docs/tuning.md, "Which algorithm: PathAuto").
	autoSinglePassBytes uint64
	// workgroup is a selection's default workgroup where the caller
	// chose none (the three-way partition keeps its own); 0:
	// tiling.Resolve's (256).
	workgroup uint32
	// stageUnits: the single pass ranks its loaded units read back one at
	// a time from shared memory (fewer registers: more workgroups fit on
	// a GPU) rather than from registers (select_onepass.glsl,
	// STAGE_UNITS). A CPU driver has no registers to save and pays a loop
	// over the SIMD lanes for every shared-memory store and load.
	stageUnits bool
	// stageRejected: the single pass's compaction, and the three phases'
	// with the staged write, stage their rejected elements too (at the
	// back of their segment or step, unread), so that no store to shared
	// memory is masked by the predicate (select_onepass.glsl,
	// select_move.glsl: STAGE_REJECTED).
	stageRejected bool
	// threePhaseLoads is the three phases' loads per lane where the
	// caller chose none; 0: tiling.Resolve's.
	threePhaseLoads uint32
}

// tuningTable is the measured choices by class of device.
var tuningTable = [...]classTuning{
	gpuClass: {autoStaged: true, singlePassLoads: vkcompact.MaxLoadsPerLane, smallInputBytes: 4 << 20, smallTileWorkgroup: 512, smallTileLoads: 1, stageUnits: true},
	// lavapipe: the rejected elements staged too (select_if at 2^16,
	// keep 0.5, single pass 1.06-1.66 -> 0.84-1.36 ms; at 2^20, three
	// phases, the move 8.3-9.3 -> 5.9-7.1; docs/tuning.md, "Compaction
	// and prefix sum").
	cpuClass: {autoStaged: true, singlePassLoads: vkcompact.MaxLoadsPerLane, autoSinglePassBytes: 256 << 10, stageRejected: true},
	// SwiftShader, its SPIR-V specialized (pipeline.SpecializesSPIRV):
	// the single pass up to 2^14 words (select_if 0.40-0.42 ms at 2^12
	// and 0.81-1.03 at 2^14 against the three phases' 0.63 and 1.53-1.57),
	// the three phases from 2^15 (1.71-1.80 against 2.23-3.43 ms; at 2^16
	// 2.30-2.40 against 5.54-5.86); workgroups of 64 and the scattered
	// write (select_if at 2^12 0.26-0.27 ms against 0.31-0.43, at 2^16
	// 2.18-2.27 against 3.08-3.53, at 2^20 31.7-33.2 against 37.4-39.2;
	// docs/tuning.md, "Compaction and prefix sum"). One load per lane in
	// the three phases (select_if at 2^20 21.7-31.0 ms against 25.2-32.1,
	// partition_if 28.7-34.7 against 34.1-46.3).
	swiftShaderClass: {autoStaged: false, singlePassLoads: vkcompact.MaxLoadsPerLane, autoSinglePassBytes: 64 << 10, workgroup: 64, threePhaseLoads: 1},
}

// defaultGroupSize is Options.GroupSize's default.
const defaultGroupSize = 64

// tuningFor returns the measured choices for a device with info.
func tuningFor(info vk.DeviceInfo) *classTuning {
	switch {
	case info.CPU() && strings.HasPrefix(info.Name, "SwiftShader"):
		return &tuningTable[swiftShaderClass]
	case info.CPU():
		return &tuningTable[cpuClass]
	}
	return &tuningTable[gpuClass]
}

// autoSinglePass is PathAuto's choice of the single pass (where it
// applies) for an input of bytes bytes.
func (c *classTuning) autoSinglePass(info vk.DeviceInfo, bytes uint64) bool {
	return tiling.AutoSinglePass(info) || bytes <= c.autoSinglePassBytes
}

// smallTiles returns the single pass's small tiles (workgroup size and
// loads per lane) for an input of bytes bytes where the caller chose
// neither wg nor loads, the class has small tiles, and the device runs
// workgroups of that size; ok is false where they do not apply.
func (c *classTuning) smallTiles(info vk.DeviceInfo, bytes uint64, wg, loads uint32) (uint32, uint32, bool) {
	w := c.smallTileWorkgroup
	if w == 0 || wg != 0 || loads != 0 || bytes > c.smallInputBytes ||
		info.MaxWorkgroupInvocations < w || info.MaxWorkgroupSize[0] < w || w%info.MaxSubgroupSize != 0 {
		return 0, 0, false
	}
	return w, c.smallTileLoads, true
}
