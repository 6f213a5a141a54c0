// Package scan runs prefix sums of uint32, int32 and float32 elements on
// Vulkan compute shaders: exclusive or inclusive, in place or not, with
// the total left on the GPU.
//
// Two algorithms run a sum (Options.Path). The three phases are
// Billeter, Olsson and Assarsson's, as package compact runs them with
// sums in place of counts: the input is cut into chunks, one per subgroup;
// each chunk is summed, one workgroup scans the chunk sums into each
// chunk's starting value, and each chunk is summed again from it, writing
// the running sums. The single pass reads the input once: tiles publish
// their sums and find their starting value by decoupled look-back over
// their predecessors' status words; a predecessor that has not published
// within Options.Spins re-reads is summed by the waiting tile itself
// (decoupled fallback), so no forward-progress guarantee is assumed.
//
// A Plan is made once per size (NewPlan), recorded into a command buffer
// (Plan.Record) or run on the context's queue (Plan.Run); ScanSlice sums
// a host slice. Recording follows the contract, GPU-side counts
// (Buffers.Count) and concurrency rules in package vkcompact's
// documentation.
package scan
