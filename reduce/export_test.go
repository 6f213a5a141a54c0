package reduce

import "github.com/vkcompact/vkcompact/vk"

// NewPlanWindowLimit is NewPlan with the bytes one binding holds lowered
// to limit (0: the device's maxStorageBufferRange), so that a test cuts
// small inputs into windows.
func NewPlanWindowLimit(ctx *vk.Context, n uint64, r Reduce, limit uint64) (*Plan, error) {
	return newPlan(ctx, n, r, limit)
}
