// Package compact runs GPU stream compaction, stream split and prefix sum
// on Vulkan compute shaders, after Billeter, Olsson and Assarsson's
// three-phase algorithm.
//
// The input is cut into chunks, one per processor (a subgroup). A
// selection (NewPlan, Select, Slice) counts the kept elements of each
// chunk, scans the counts into each chunk's first output slot, and moves
// the kept elements there with subgroup ballots; Split writes the rejected
// ones after them. A prefix sum (NewScanPlan, ScanSlice) runs the same
// phases with sums in place of counts: each chunk is summed, the sums are
// scanned, and each chunk is rescanned from its starting value. Results
// stay on the GPU: the kept count and indirect arguments in the result
// block, the total of a prefix sum.
//
// Copy and RecordCopy are the vectorised copy every benchmark divides by,
// since a compaction can move data no faster than a copy.
package compact
