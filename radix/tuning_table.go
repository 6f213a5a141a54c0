package radix

import (
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The sort's measured choices, as data by device class (as CUB's
// sm90_tuning structs and Mesa's radix_sort_vk_target_config are): what
// the tuning takes where Options leave a choice to it. Everything else
// it derives from these, the device's information and the request
// (tune.go). docs/tuning.md, "Radix sort on a GPU" and "Radix sort on
// CPU devices", gives the figures behind each row.

// deviceTuning is the measured choices for one class of device.
type deviceTuning struct {
	// keys32, pairs32 and keys64 are the default digit bits and keys
	// per lane of 32-bit keys alone, with values, and 64-bit keys
	// (alone or with values).
	keys32, pairs32, keys64 digitShape
	// workgroup is the default workgroup, halved (down to the largest
	// subgroup size) while the scatter's shared memory does not fit.
	workgroup uint32
	// singlePassKeysPerLane bounds the single pass's default keys per
	// lane; fewRoundsKeysPerLane replaces a larger default where its
	// rounds would be too few to give every processor one.
	singlePassKeysPerLane, fewRoundsKeysPerLane uint32
	// holdPairTails: TailsAuto holds the three phases' run tails back
	// for keys with values (autoHold).
	holdPairTails bool
	// fusedChunkPerCounter: CountsAuto fuses the counts where a chunk
	// holds at least this many keys per counter (4^w for w-bit digits).
	fusedChunkPerCounter uint64
	// selfResetTiles bounds, for keys alone and for pairs, the single
	// pass's tiles with self-reset.
	selfResetTiles struct{ keys, pairs uint32 }
	// fitScan: the three phases' scan of the digit counts takes a
	// workgroup of just enough subgroups for one digit's row of counts
	// (one per processor), not the largest (scanWorkgroup).
	fitScan bool
	// keysSmall and pairsSmall are the shapes PathAuto tries for up to
	// SmallSortKeys 32-bit keys (smallSorts): the first row that holds n.
	keysSmall, pairsSmall []smallSortRow
	// segBlock is the segmented sort's block path: its workgroup and
	// keys per invocation (segBlockShape fits them to the segments).
	segBlock segBlockTuning
	// oneGroupKeys: PathAuto sorts up to this many keys (and no more than
	// the block path holds) as one segment of the segmented sort's block
	// path, one workgroup in shared memory (oneGroupShape); 0: never.
	oneGroupKeys uint64
	// lanes is the lane-serial sort's row (lanes.go); its most 0: never.
	lanes lanesTuning
}

// segBlockTuning is the segmented sort's block shape.
type segBlockTuning struct{ workgroup, keysPerLane uint32 }

// digitShape is a digit width and keys per lane.
type digitShape struct{ bits, keysPerLane uint32 }

// smallSortRow is the shapes PathAuto tries, in order, for up to
// most keys: the first one tuneAs takes.
type smallSortRow struct {
	most   uint64
	shapes []smallShape
}

// smallShape is a path, digit width and keys per lane (0: the default).
type smallShape struct {
	path              vkcompact.Path
	bits, keysPerLane uint32
}

// SmallSortKeys is the most keys for which PathAuto on a GPU picks the
// sort's shape for 32-bit keys by their count (docs/tuning.md, "Radix
// sort on a GPU").
const SmallSortKeys = 1 << 26

var (
	singlePass8 = smallShape{path: vkcompact.PathSinglePass, bits: 8}

	// gpuTuning is every GPU's, measured on the H100.
	gpuTuning = deviceTuning{
		keys32: digitShape{6, 20}, pairs32: digitShape{6, 16}, keys64: digitShape{4, 8},
		workgroup: 256, singlePassKeysPerLane: 8, fewRoundsKeysPerLane: 8,
		holdPairTails: true, fusedChunkPerCounter: 16,
		selfResetTiles: struct{ keys, pairs uint32 }{keys: 512, pairs: 256},
		// Measured on the H100 in one call
		// (results/2026-11-28-h100-issue36-onesweep.csv): the single pass with tiles of 256 x 30 keys against the three
		// phases took keys at 2^22 0.2007 vs 0.2038 ms, 2^24 0.559 vs
		// 0.639, 2^26 1.977 vs 2.197 (at 2^28 its tiles of 256 x 16 and
		// 384 x 20 took 10.2 vs 7.7); pairs at 256 x 16 (at 30 keys a
		// lane 152 registers leave one workgroup an SM) 0.0948 vs 0.1046
		// at 2^20, 0.2691 vs 0.2684 at 2^22, 0.837 vs 0.882 at 2^24, 3.122
		// vs 3.145 at 2^26. The three-phase shapes after them are the
		// fallback where the single pass does not fit.
		keysSmall: []smallSortRow{
			{most: 1<<20 - 1, shapes: []smallShape{singlePass8}},
			{most: 1 << 21, shapes: []smallShape{{vkcompact.PathSinglePass, 8, 16}, singlePass8}},
			{most: 1 << 22, shapes: []smallShape{{vkcompact.PathSinglePass, 8, 30}, {vkcompact.PathThreePhase, 7, 0}}},
			{most: 1 << 25, shapes: []smallShape{{vkcompact.PathSinglePass, 8, 30}, {vkcompact.PathThreePhase, 7, 16}}},
			{most: SmallSortKeys, shapes: []smallShape{{vkcompact.PathSinglePass, 8, 30}}},
		},
		pairsSmall: []smallSortRow{
			{most: 1<<20 - 1, shapes: []smallShape{singlePass8}},
			{most: SmallSortKeys, shapes: []smallShape{{vkcompact.PathSinglePass, 8, 16}, singlePass8}},
		},
		segBlock: segBlockTuning{workgroup: 64, keysPerLane: 16},
	}

	// cpuTuning is a CPU device's: 8-bit digits, half the passes over
	// memory; 16 keys per lane for 32-bit keys (fewer, longer rounds:
	// lavapipe at subgroups 4, 8 and 16 and SwiftShader, docs/tuning.md,
	// "Radix sort on CPU devices"); the scan fitted to the processors (fitScan); the rest
	// the GPU's, unmeasured there.
	cpuTuning = deviceTuning{
		keys32: digitShape{8, 16}, pairs32: digitShape{8, 16}, keys64: digitShape{8, 4},
		workgroup: 256, singlePassKeysPerLane: 8, fewRoundsKeysPerLane: 8,
		fusedChunkPerCounter: 16,
		selfResetTiles:       struct{ keys, pairs uint32 }{keys: 512, pairs: 256},
		fitScan:              true,
		segBlock:             segBlockTuning{workgroup: 64, keysPerLane: 16},
		// One workgroup sorting 4096 keys in shared memory took 0.94 ms
		// on lavapipe (subgroup 8) where the three phases took 4.6
		// (docs/tuning.md, "Radix sort on CPU devices").
		oneGroupKeys: segMaxCapacity,
		lanes:        lanesTuning{most: 1 << 24, workgroup: 8, minProcs: 4, minLaneKeys: 1024, laneKeys: 8192, words64: true, words64Lanes: 8},
	}
)

// swiftShaderTuning is SwiftShader's: the CPU devices' but for small
// sorts, which the lane-serial sort takes past 2048 keys. With its SPIR-V
// specialized (pipeline.SpecializesSPIRV) the one workgroup in shared
// memory took keys at 2^11 1.01-1.08 ms against the lane-serial sort's
// 1.43-1.79, at 2^12 2.62-2.85 against 1.43-1.59 (docs/tuning.md,
// "Radix sort on CPU devices").
var swiftShaderTuning = func() deviceTuning {
	t := cpuTuning
	t.oneGroupKeys = 2048
	return t
}()

// tuningFor returns the measured choices for a device's class: a GPU, or
// a CPU device, SwiftShader's own (by its device name) or every other's.
func tuningFor(info vk.DeviceInfo) *deviceTuning {
	switch {
	case info.CPU() && strings.HasPrefix(info.Name, "SwiftShader"):
		return &swiftShaderTuning
	case info.CPU():
		return &cpuTuning
	}
	return &gpuTuning
}

// scanWorkgroup returns the workgroup of the three phases' scan, which
// scans one digit's row of procs counts per workgroup (radix_scan): the
// largest the device offers (pipeline.ScanWorkgroup), or with fitScan just
// enough whole subgroups for the row. A CPU driver runs a workgroup's
// invocations in turn on a few threads, with a switch at every barrier:
// 1024 invocations for a row of 8 counts made the scan most of a small
// sort's time on lavapipe (docs/tuning.md, "Radix sort on CPU devices").
func (t *deviceTuning) scanWorkgroup(info vk.DeviceInfo, procs uint32) uint32 {
	wg := pipeline.ScanWorkgroup(info)
	if !t.fitScan {
		return wg
	}
	sg := max(info.MaxSubgroupSize, 1)
	return min(wg, uint32(max(align.CeilDiv(uint64(procs), uint64(sg)), 1))*sg)
}

// defaultShape returns the default digit bits and keys per lane of s.
func (t *deviceTuning) defaultShape(s Sort) digitShape {
	switch {
	case s.Elem.Key == vkcompact.Uint64:
		return t.keys64
	case s.Values:
		return t.pairs32
	}
	return t.keys32
}

// smallSorts returns the shapes PathAuto tries, in order, for n 32-bit
// keys when the caller left the path, the digit width, the keys per lane
// and the tails to it; where none applies (tuneAs refuses each), tune
// keeps s.
func (t *deviceTuning) smallSorts(n uint64, s Sort) []Sort {
	if n == 0 || (s.EndBit != 0 && s.EndBit <= s.BeginBit) || s.Elem.Key.Size() != 4 || s.Path != vkcompact.PathAuto || s.DigitBits != 0 || s.KeysPerLane != 0 || s.Tails != TailsAuto {
		return nil
	}
	rows := t.keysSmall
	if s.Values {
		rows = t.pairsSmall
	}
	for _, row := range rows {
		if n > row.most {
			continue
		}
		sorts := make([]Sort, len(row.shapes))
		for i, sh := range row.shapes {
			sorts[i] = s
			sorts[i].Path, sorts[i].DigitBits, sorts[i].KeysPerLane = sh.path, sh.bits, sh.keysPerLane
		}
		return sorts
	}
	return nil
}

// selfResetMaxTiles is the most tiles for which the single pass leaves
// its next run's scratch zero (radix_onesweep's SELF_RESET).
func (t *deviceTuning) selfResetMaxTiles(values bool) uint32 {
	if values {
		return t.selfResetTiles.pairs
	}
	return t.selfResetTiles.keys
}
