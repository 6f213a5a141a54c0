// Package scan runs prefix scans of uint32, int32 and float32 elements on
// Vulkan compute shaders: prefix sums, running minimums and maximums
// (Scan.Op), exclusive or inclusive, in place or not, with the total left
// on the GPU; and scans by key (ByKey), which start again at each run of
// equal consecutive keys.
//
// Two algorithms run a scan (Options.Path). The three phases are
// Billeter, Olsson and Assarsson's, as package compact runs them with
// sums in place of counts: the input is cut into chunks, one per subgroup;
// each chunk is summed, one workgroup scans the chunk sums into each
// chunk's starting value, and each chunk is summed again from it, writing
// the running sums. The single pass reads the input once: tiles publish
// their sums and find their starting value by decoupled look-back over
// their predecessors' status words; a predecessor that has not published
// within Options.Spins re-reads is summed by the waiting tile itself
// (decoupled fallback), so no forward-progress guarantee is assumed.
// Min and max run on keys that order the elements as the op does
// (float32 as Go's min and max: Op), so they are exact in any order, and
// the single pass runs them for every type; float32 sums, whose value
// depends on the order of the additions, keep the three phases.
//
// # ByKey
//
// A scan by key (CUB's InclusiveScanByKey and ExclusiveScanByKey) scans
// separate values (uint32, int32, float32) by keys (uint32, int32,
// float32, uint64; equal as compact.EqualKeys has them) with Sum, Min or
// Max. Its one pass is the single pass above carrying a pair (whether a
// run starts in what lies behind, the value since that start): keys and
// values are read once and the scans written once, and only the tiles a
// run crosses wait on their predecessors. Float32 sums by key are
// bitwise reproducible run to run on one device (ByKey): the value
// carried across tiles is folded in tile order, and the fallback computes
// a late tile with its own workgroup's operations. Past one binding it
// runs in windows, as the single pass does.
//
// A Plan or ByKeyPlan is made once per size (NewPlan, NewByKeyPlan),
// recorded into a command buffer (Record) or run on the context's queue
// (Run); ScanSlice and ScanByKeySlice scan host slices. Recording follows
// the contract, GPU-side counts (Buffers.Count, ByKeyBuffers.Count) and
// concurrency rules in package vkcompact's documentation.
package scan
