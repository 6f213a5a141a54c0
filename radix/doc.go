// Package radix sorts keys, or key-value pairs, on the GPU with a stable
// least-significant-digit radix sort built on the same three phases as
// package compact (Billeter, Olsson and Assarsson, section 5.3): per pass,
// each processor (a workgroup owning one contiguous chunk) counts its keys
// per digit; one scan over all the counts, digit-major, gives every
// (digit, processor) its first slot; each processor walks its chunk again
// and scatters its keys, ranking equal digits with subgroup ballots so
// that equal keys keep their input order. With fused counts
// (Options.Counts; by default on a GPU for digits of up to 6 bits over
// large chunks) each scatter but the last also counts the next pass's digits
// per next-pass processor, so that only the first pass has a count phase.
//
// Keys are uint32, int32, float32 or uint64, with an optional uint32
// value per key (an index, typically). Signed keys sort by value; float32
// keys by IEEE 754 totalOrder: -NaN < -Inf < ... < -0.0 < +0.0 < ... < +Inf
// < +NaN, so NaNs with the sign bit set come first and the others last
// (descending reverses that). Descending order is stable too: equal keys
// keep their input order. A bit range sorts by bits [BeginBit, EndBit) of
// the order-mapped key only, as CUB's begin_bit and end_bit do.
//
// Structs sort by a key field (StructPlan, SortStructsSlice): the keys are
// copied out on the GPU, sorted with each struct's index as its value,
// and the structs gathered into the output in that order, stably; after a
// compaction, the kept count can come from the GPU.
//
// ArgsortSlice returns the stable order that sorts keys (NumPy's
// argsort(kind="stable")): a sort of the keys with their indices as values.
//
// A segmented sort (SegmentedPlan, SortSegmentsSlice, SortSegmentPairsSlice)
// sorts keys, or pairs, within segments given by offsets in a GPU buffer,
// each segment on its own, stably: segments of at most the device's block
// capacity (SegmentCapacity; SegmentedSort.MaxSegment, or a choice the GPU
// makes) are sorted one workgroup each in shared memory, short ones several
// to a workgroup; any others by two whole radix sorts, of the keys with
// their indices and then of those indices by segment.
//
// A pass handles at most Options.DigitBits bits (by default on a GPU 6
// for 32-bit keys, with values or not, so 6 passes of 6, 6, 5, 5, 5 and
// 5 bits, and 4 for 64-bit keys; 8 on a CPU device): in the three phases
// the bits are shared out evenly, wider passes first, and each width has
// its own kernels (the single pass keeps DigitBits-bit passes, the last
// one narrower). Each round of the scatter loads the next round's keys
// before writing its own out. Where a round's part of a digit's run ends
// inside a 32-byte sector, the scatter can hold those last keys back and
// write them at the head of the run's next round (Options.Tails; by
// default for pairs on a GPU), so that partly written sectors, which the
// H100 pays for dearly (BENCHMARKS-history.md), remain only at the ends of whole
// runs. The passes ping-pong between the output and scratch so that the
// result ends in the buffer the caller names.
//
// Options.Path = vkcompact.PathSinglePass takes an Onesweep-style sort
// instead (Adinets and Merrill): one pass counts every pass's digits, then
// each digit pass reads the keys once, a workgroup per tile of keys, with
// a chained scan over (tile, digit) status words, decoupled look-back and
// decoupled fallback, so it needs no forward-progress guarantee. PathAuto
// takes it on a GPU for the smaller sorts of 32-bit keys only, where it
// measured faster (Options.Path); past them it measured slower than the
// three phases (BENCHMARKS-history.md).
//
// On a CPU device (lavapipe, SwiftShader), where a workgroup runs on one
// thread and a subgroup is one SIMD register, PathAuto takes two sorts of
// its own where the other Options are left to it: small inputs in one
// workgroup's shared memory (Tuning.OneWorkgroup), and up to 2^24 keys in
// one binding the lane-serial sort (Tuning.LaneSerial), in which each
// invocation counts and scatters its own contiguous run of keys alone,
// as a CPU thread's radix sort does, with no ballot and no barrier inside
// the walk (docs/tuning.md, "Radix sort on CPU devices"). Where the context has
// shaderInt64 and subgroups of at most 8 lanes, it moves 64-bit words
// (Tuning.Words64): 32-bit keys with values then travel packed between
// its passes, and Plan.ScratchSize holds two regions of 8 bytes a key.
//
// Plan.Record, StructPlan.Record and SegmentedPlan.Record follow the
// synchronisation contract ("Synchronisation"), the counts from the GPU
// (Buffers.Count, StructBuffers.Count; a segmented sort takes none) and
// the concurrency rules in package vkcompact's documentation. A sort's
// inputs are Keys, Values and Count; its outputs KeysOut, ValuesOut (Keys
// and Values in place) and Scratch.
package radix
