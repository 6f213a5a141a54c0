package compact

import "github.com/vkcompact/vkcompact/vk"

// NewPlanSegmentLimit is NewPlan with the three phases' segments, and so
// their destination pages and in-place copy-back pieces, bound at most
// bytes at a time (0: the device's maxStorageBufferRange), so that a test
// runs several segments at small n. The limit is an argument of the
// tuning (limits), not package state. TestSelectSegments checks that with
// no limit it plans as NewPlan does.
func NewPlanSegmentLimit(ctx *vk.Context, n uint64, sel Selection, bytes uint64) (*Plan, error) {
	return newPlan(ctx, n, sel, limits{segBytes: bytes})
}

// NewPlanWindowLimit is NewPlan with at most bytes in one binding of the
// single pass (0: the device's maxStorageBufferRange), so that a test
// cuts small inputs into windows. Like NewPlanSegmentLimit it sets no
// package state.
func NewPlanWindowLimit(ctx *vk.Context, n uint64, sel Selection, bytes uint64) (*Plan, error) {
	return newPlan(ctx, n, sel, limits{windowBytes: bytes})
}

// RunEdges is the run-edges test package runs builds on
// (internal/keepop.RunEdges), which the API does not name, for the tests.
const RunEdges = runEdges

// KeepRunEdges keeps the first and the last element of each run longer
// than one of elements equal under eq (RunEdges), for the tests.
func KeepRunEdges(eq Equality) Keep { return Keep{Op: runEdges, Equal: eq} }

// OutputRunLengths is the run lengths' output package runs encodes with
// (internal/keepop.RunLengths), which the API does not name, for the
// tests.
const OutputRunLengths = outputRunLengths
