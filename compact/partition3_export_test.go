package compact

import "github.com/vkcompact/vkcompact/vk"

// NewPartition3PlanWindowLimit is NewPartition3Plan with at most bytes in
// one binding (0: the device's maxStorageBufferRange), so that a test cuts
// small inputs into windows; like NewPlanWindowLimit it sets no package
// state.
func NewPartition3PlanWindowLimit(ctx *vk.Context, n uint64, part Partition3, bytes uint64) (*Partition3Plan, error) {
	return newPartition3Plan(ctx, n, part, partition3Limits{windowBytes: bytes})
}

// NewPartition3PlanByIndex is NewPartition3Plan with tiles taken by
// workgroup index (as on GPUs up to 1024 tiles), whatever the device.
func NewPartition3PlanByIndex(ctx *vk.Context, n uint64, part Partition3) (*Partition3Plan, error) {
	return newPartition3Plan(ctx, n, part, partition3Limits{tilesByIndex: true})
}
