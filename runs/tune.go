package runs

import (
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/vk"
)

// finishTuning is the second dispatch's shape for one class of device.
type finishTuning struct {
	workgroup   uint32 // invocations per workgroup
	groupsPerCU uint32 // workgroups per compute unit, at most
}

// finishTable is runs_finish's shape by class of device: on a GPU enough
// workgroups to keep every compute unit busy (the loop strides over the
// runs), on a CPU device one or two per core.
var finishTable = struct{ gpu, cpu finishTuning }{
	gpu: finishTuning{workgroup: 256, groupsPerCU: 8},
	cpu: finishTuning{workgroup: 64, groupsPerCU: 2},
}

// finishGrid returns runs_finish's workgroup size and workgroups for n
// elements on a device with info: a pure function of both. At least one
// workgroup runs, which writes the result block.
func finishGrid(info vk.DeviceInfo, n uint64) (wg uint32, groups uint64) {
	t := finishTable.gpu
	if info.CPU() {
		t = finishTable.cpu
	}
	wg = min(t.workgroup, max(info.MaxWorkgroupInvocations, 1), max(info.MaxWorkgroupSize[0], 1))
	cap := uint64(max(info.ComputeUnits, 1)) * uint64(t.groupsPerCU)
	groups = min(max(align.CeilDiv(n, uint64(wg)), 1), cap, uint64(max(info.MaxWorkgroupCount[0], 1)))
	return wg, groups
}
