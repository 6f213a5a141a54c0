package scan

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/vk"
)

// The prefix sum's measured choices, by device class: data that the pure
// tuning (tune.go) reads, as CUB's tuning structs and Mesa's radix sort
// target configs are. The figures behind them are in docs/tuning.md
// ("Compaction and prefix sum"). The choices shared with the selection (default
// workgroup size and processors, PathAuto's choice, spins, tile order,
// self-reset) are package tiling's.

// deviceClass is a kind of device measured choices are made for.
type deviceClass uint8

const (
	classGPU deviceClass = iota // any GPU (measured on the H100)
	classCPU                    // lavapipe, SwiftShader
	deviceClasses
)

// classOf returns the class of the device with info.
func classOf(info vk.DeviceInfo) deviceClass {
	if info.CPU() {
		return classCPU
	}
	return classGPU
}

// loadStep is a single pass's loads per lane for inputs of at most maxN
// elements.
type loadStep struct {
	maxN  uint64
	loads uint32
}

// passTuning is the single pass's measured choices on one device class.
type passTuning struct {
	// maxWorkgroup is the largest workgroup the single pass takes: a
	// workgroup of 1024 never finished on the H100 (cause not found),
	// while 512 and 256 passed every stress run.
	maxWorkgroup uint32
	// smallLoads are the loads per lane, when the caller chose neither
	// the workgroup size nor the loads, for inputs up to each step's size
	// in turn (smaller tiles fill a large GPU at engine sizes); past the
	// last step, or where the caller chose the workgroup size, loads.
	smallLoads [2]loadStep
	loads      uint32
	// autoElems: on a CPU device (where tiling.AutoSinglePass takes the
	// three phases), PathAuto takes the single pass for up to this many
	// elements, where it measured faster on lavapipe and SwiftShader
	// (docs/tuning.md, "Which algorithm: PathAuto").
	autoElems uint32
}

// passTunings is the single pass's tuning table, by device class.
var passTunings = [deviceClasses]passTuning{
	classGPU: {maxWorkgroup: 512, smallLoads: [2]loadStep{{1 << 17, 1}, {1 << 19, 2}}, loads: vkcompact.MaxLoadsPerLane},
	classCPU: {maxWorkgroup: 512, loads: vkcompact.MaxLoadsPerLane, autoElems: 1 << 12},
}

// passLoads returns the single pass's loads per lane for n elements: the
// caller's, else the table's for n (small steps only where the caller
// chose no workgroup size either).
func (t passTuning) passLoads(o Options, n uint64) uint32 {
	if o.LoadsPerLane != 0 {
		return o.LoadsPerLane
	}
	if o.WorkgroupSize == 0 {
		for _, s := range t.smallLoads {
			if s.loads != 0 && n <= s.maxN {
				return s.loads
			}
		}
	}
	return t.loads
}
