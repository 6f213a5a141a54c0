package vktest

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/vk"
)

// PathConfig is one way a single-pass-capable operation can run.
type PathConfig struct {
	Name  string
	Path  vkcompact.Path
	Spins int32 // Options.Spins: 0 the device's default, -1 the fallback at once
}

// PathConfigs are the ways a selection or a prefix sum can run: the three
// phases, the single pass with the device's default spins, and the single
// pass with its fallback taken at the first unpublished predecessor.
var PathConfigs = []PathConfig{
	{"three-phase", vkcompact.PathThreePhase, 0},
	{"single-pass", vkcompact.PathSinglePass, 0},
	{"single-pass-fallback", vkcompact.PathSinglePass, -1},
}

// SmallTiles returns the workgroup size and loads per lane that give a
// CPU device's single pass many small tiles (one subgroup, one load per
// lane), and zeros (the defaults) on a GPU.
func SmallTiles(info vk.DeviceInfo) (workgroup, loads uint32) {
	if info.CPU() {
		return info.MaxSubgroupSize, 1
	}
	return 0, 0
}
