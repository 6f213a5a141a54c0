package histogram

import "github.com/vkcompact/vkcompact/vk"

// NewPlanSegmentLimit is NewPlan with the bytes one dispatch binds
// lowered to limit, so that a test cuts small inputs into segments.
func NewPlanSegmentLimit(ctx *vk.Context, n uint64, h Histogram, limit uint64) (*Plan, error) {
	return newPlan(ctx, n, h, limit)
}
