// Package compact runs GPU stream compaction and stream split on Vulkan
// compute shaders, after Billeter, Olsson and Assarsson's three-phase
// algorithm.
//
// The input is cut into chunks, one per processor (a subgroup). A
// selection (NewPlan, Select, SelectSlice) counts the kept elements of each
// chunk, scans the counts into each chunk's first output slot, and moves
// the kept elements there with subgroup ballots; Split writes the rejected
// ones after them. Results stay on
// the GPU: the kept count and indirect arguments in the result block.
//
// A selection can also run in one pass over its input (Options.Path,
// PathSinglePass): tiles (a compaction's by workgroup index on a GPU, a
// split's and any tile on a CPU device from a counter) publish their kept
// counts, and find their output offset by decoupled look-back over their
// predecessors' status words; a predecessor that has not published within
// Options.Spins re-reads is counted by the waiting tile itself (decoupled
// fallback), so no forward-progress guarantee is assumed. A split on that
// path writes the rejected elements reversed (Selection.ReverseRejected).
// PathAuto takes the single pass on GPUs wherever it applies; on CPU
// devices it takes it for small inputs (up to 256 KiB on lavapipe, 64
// KiB on SwiftShader) and the three phases past them.
//
// What a selection keeps is its Keep: a comparison of each element's key
// with a constant (KeepIf, KeepMask, KeepNonZero, ParseKeep), a flag per
// element (KeepFlagged; SelectFlaggedSlice), or a comparison with the
// element before it: unique keeps the first element of each run of equal
// ones (KeepUnique, KeepFirstOfRun with an Equality; UniqueSlice), as
// CUB's DeviceSelect::Unique, in the same kernels. Selection.Output writes
// the kept elements' indices instead of the elements (OutputIndices;
// SelectIndicesSlice), or both (OutputBoth), which package runs builds
// its run-length encoding on (on GPUs with an output of its own that
// writes the runs' lengths in the same pass). Unique by key (Selection.Values; CUB's
// DeviceSelect::UniqueByKey, UniqueByKeySlice) moves a second array of
// values beside the elements, each kept element's value to the same slot
// of Buffers.ValuesOut, in the same pass.
//
// A three-way partition (NewPartition3Plan, Partition3Slice) writes the
// elements a first predicate keeps, then of the others those a second
// keeps, then the rest, to three outputs, each in input order, in one such
// pass whose tiles publish two counts.
//
// Element types and layouts (vkcompact.Elem) and the paths are package
// vkcompact's; so are the synchronisation contract ("Synchronisation"),
// GPU-side counts and the concurrency rules that every operation's Record
// follows. The copy every benchmark divides by is package transfer's.
package compact
