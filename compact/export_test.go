package compact

import "github.com/vkcompact/vkcompact/vk"

// SetWindowLimit makes the single pass hold at most bytes in one binding
// (0: the device's maxStorageBufferRange), so a test cuts small inputs
// into windows; it returns the function that restores the limit.
func SetWindowLimit(bytes uint64) (restore func()) {
	old := testWindowLimit
	testWindowLimit = bytes
	return func() { testWindowLimit = old }
}

// NewPlanSegmentLimit is NewPlan with the three phases' segments, and so
// their destination pages and in-place copy-back pieces, bound at most
// bytes at a time (0: the device's maxStorageBufferRange), so that a test
// runs several segments at small n. Unlike SetWindowLimit it sets no
// package state: the limit is an argument of the tuning (tuneSegments).
// It follows NewPlan; TestSelectSegments checks that with no limit both
// plan alike.
func NewPlanSegmentLimit(ctx *vk.Context, n uint64, sel Selection, bytes uint64) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("compact: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := ctx.Info()
	p, err := tuneSegments(info, n, sel, bytes)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	words := uint32(p.size / 4)
	if p.onepass {
		return p, p.singlePassPipelines(info, words)
	}
	return p, p.threePhasePipelines(info, words)
}
