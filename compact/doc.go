// Package compact runs GPU stream compaction, stream split and prefix sum
// on Vulkan compute shaders, after Billeter, Olsson and Assarsson's
// three-phase algorithm (count, offsets, move).
//
// Today it holds the vectorised copy (Copy, RecordCopy): the kernel every
// later benchmark divides by, since a compaction can move data no faster
// than a copy. Compaction, split and scan build on the same layers
// (vk, shaders, pipeline).
package compact
