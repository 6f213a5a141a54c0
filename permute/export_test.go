package permute

import "github.com/vkcompact/vkcompact/vk"

// NewPlanSegmentLimit is NewPlan with the bytes one dispatch binds of the
// in-order side lowered to limit, so that a test cuts small inputs into
// segments.
func NewPlanSegmentLimit(ctx *vk.Context, n uint64, p Permutation, limit uint64) (*Plan, error) {
	return newPlan(ctx, n, p, limit)
}
