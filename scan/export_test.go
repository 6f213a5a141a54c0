package scan

import "github.com/vkcompact/vkcompact/vk"

// NewPlanWindowLimit is NewPlan with the bytes the single pass holds in
// one binding lowered to limit (0: the device's maxStorageBufferRange),
// so that a test cuts small inputs into windows.
func NewPlanWindowLimit(ctx *vk.Context, n uint64, s Scan, limit uint64) (*Plan, error) {
	return newPlan(ctx, n, s, limit)
}

// NewByKeyPlanWindowLimit is NewByKeyPlan with the bytes one binding
// holds lowered to limit (0: the device's maxStorageBufferRange), so
// that a test cuts small inputs into windows.
func NewByKeyPlanWindowLimit(ctx *vk.Context, n uint64, b ByKey, limit uint64) (*ByKeyPlan, error) {
	return newByKeyPlan(ctx, n, b, limit)
}
