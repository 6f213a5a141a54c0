// Package vkcompact holds the vocabulary every operation of the module
// shares: the element types and layouts (Type, Elem, StructOf; Records
// for packed records whose size or key offset is not a multiple of 4) and
// the choice of algorithm (Path); and, in its documentation, the
// synchronisation contract of every recording (Synchronisation), GPU-side
// counts and the concurrency rules.
//
// The operations are packages of their own, each with the same shape (a
// description, a Plan made once per size, Buffers, Record into a command
// buffer, Run on the context's queue, and host-slice helpers):
// compact (stream compaction and split, compact.Plan, unique and unique
// by key among them, compact.Selection.Values; the three-way partition,
// compact.Partition3Plan), scan (prefix sums, mins and maxes, scan.Plan
// with scan.Op; by key, scan.ByKeyPlan), runs (run-length encoding and
// the runs longer than one, runs.Plan), radix (sorts: of keys or pairs,
// radix.Plan, and the order that sorts keys, radix.ArgsortSlice; of
// structs by a key, radix.StructPlan; within segments,
// radix.SegmentedPlan), reduce (reductions: to one value,
// reduce.Plan; within segments, reduce.SegmentedPlan; by key,
// reduce.ByKeyPlan), histogram (counts of samples in bins,
// histogram.Plan) and permute (gather and scatter by indices,
// permute.Plan). Package transfer records the vectorised copy and fill
// between them. Package vk opens or borrows a Vulkan device and holds its
// buffers; package pipeline records the dispatches.
//
// # Embedding in an engine
//
// An engine that creates its own device asks vk.DeviceRequirements what to
// enable (Vulkan 1.1 with subgroup ballot and arithmetic is all it needs;
// subgroup size control and shaderInt64 are worth enabling where the
// device has them), hands its handles to vk.Borrow and its buffers to
// Context.WrapBuffer, and records into its own command buffer through
// pipeline.Record(ctx.Wrap(cmd)), handing the library the fence of each
// submission of it with ctx.Submitted(cmd, fence) (or calling
// ctx.Completed(cmd) once its work has completed), so that the descriptor
// sets bound there may be reused and Release waits for it. Releasing the
// context destroys only what the library created. compact's
// Example_particles shows it; docs/embedding.md in the repository is the
// guide.
//
// # Synchronisation
//
// This section is the one statement of the synchronisation contract; the
// packages' Record functions and pipeline.Recorder refer to it.
// compact.Plan.Record, compact.Partition3Plan.Record, scan.Plan.Record,
// scan.ByKeyPlan.Record, runs.Plan.Record, radix.Plan.Record, radix.StructPlan.Record,
// radix.SegmentedPlan.Record, reduce.Plan.Record, reduce.SegmentedPlan.Record,
// reduce.ByKeyPlan.Record, histogram.Plan.Record, permute.Plan.Record,
// transfer.RecordCopy, transfer.RecordCopyCount and
// transfer.RecordFill (their src, count and dst ranges as inputs and
// outputs below) append compute dispatches to the recorder's command
// buffer and submit nothing; so does any sequence recorded through a
// pipeline.Recorder, for its bindings. For each:
//
//   - First access to every input range (Src, Flags, Count, the Keys,
//     Values of a sort, a reduction or a scan by key, the Values of a
//     unique by key, the Offsets of a segmented sort or reduction, a
//     histogram's Edges, a permutation's Indices): a read in
//     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with VK_ACCESS_SHADER_READ_BIT.
//     First access to every written range (Dst, Result, Total, Src in
//     place, a partition's First, Second and Rest, the runs' Keys,
//     Lengths and Offsets, a sort's and a reduction by key's KeysOut and
//     ValuesOut, a unique by key's ValuesOut, a histogram's Counts, a
//     permutation's Dst and Status): a
//     write in the same stage with VK_ACCESS_SHADER_WRITE_BIT; to Scratch,
//     and to a histogram's Counts with Accumulate, a read and a write (the
//     single pass reads the status words its last run left there).
//   - Before: the caller records a barrier making its earlier writes of
//     the inputs available to that stage and access (for instance
//     COMPUTE_SHADER/SHADER_WRITE to COMPUTE_SHADER/SHADER_READ after its
//     own update shader, or TRANSFER/TRANSFER_WRITE after an upload), and
//     orders its earlier reads of the written ranges before them (an
//     execution dependency), and makes earlier writes of Scratch (an
//     earlier run's) available to COMPUTE_SHADER/SHADER_READ|SHADER_WRITE.
//     A sequence of a caller's own through pipeline.Recorder whose first
//     use of a range is the arguments of DispatchIndirect reads it first
//     in DRAW_INDIRECT/INDIRECT_COMMAND_READ: the caller's barrier before
//     it makes that range available there.
//   - Last access to every output (each written range above, Scratch): a
//     compute-shader write. After: the caller records a
//     barrier from COMPUTE_SHADER/SHADER_WRITE to the stage and access
//     of its next use: COMPUTE_SHADER/SHADER_READ for a shader,
//     DRAW_INDIRECT/INDIRECT_COMMAND_READ to use the result block's
//     dispatch or draw arguments (ResultDispatchOffset,
//     ResultDrawOffset), VERTEX_INPUT/VERTEX_ATTRIBUTE_READ to draw the
//     kept elements as vertices, TRANSFER/TRANSFER_READ to copy them.
//   - Between the library's own dispatches the Recorder inserts the
//     buffer barriers itself, also across Record calls on the same
//     Recorder (a compaction then a sort of its survivors needs none from
//     the caller). Commands the caller records in between, outside the
//     Recorder, are not tracked: order them with barriers of its own.
//   - Every range's offset must be a multiple of the device's
//     minStorageBufferOffsetAlignment, but a Count's and the ranges of
//     transfer.RecordCopy and RecordCopyCount, which need only be
//     multiples of 4: the library binds such a range from its offset
//     rounded down to the alignment, so the caller's barrier before the
//     pass covers those bytes too; each binding is at most
//     maxStorageBufferRange bytes (larger inputs are bound piecewise by
//     the library itself).
//   - Bound state: recording binds compute pipelines, descriptor sets (or
//     push descriptors, with vk.Options.PushDescriptors or
//     vk.Handles.PushDescriptor) and push constants. The caller's bound
//     compute pipeline, descriptor sets and push constants are not
//     preserved: bind them again afterwards. Graphics state is untouched.
//   - Errors (a range too small, overlapping ranges, a plan of another
//     context) are kept by the Recorder, which then records nothing more:
//     check Recorder.Err before submitting the command buffer.
//
// # Counts from the GPU
//
// Every Record call but radix.SegmentedPlan's and reduce.SegmentedPlan's
// can take its element count from a GPU buffer instead of from the host:
// compact.Buffers.Count, compact.Partition3Buffers.Count,
// scan.Buffers.Count, scan.ByKeyBuffers.Count, runs.Buffers.Count,
// radix.Buffers.Count, radix.StructBuffers.Count, reduce.Buffers.Count,
// reduce.ByKeyBuffers.Count, histogram.Buffers.Count,
// permute.Buffers.Count and transfer.RecordCopyCount read a uint32
// count (for instance the kept
// count a compaction left at Result + compact.ResultKeptOffset) when the
// command buffer runs. The plan's n is then a capacity; elements past the
// count are not read, and outputs past it are not written (in place,
// they keep their values). So compact, then sort the survivors, then draw
// them with compact.ResultDrawOffset's arguments chains on the GPU with
// no read back. A count may be any word of a result block at any offset
// that is a multiple of 4 (a three-way partition's second and third
// counts at bytes 4 and 8 too), as may the ranges of transfer.RecordCopy,
// which copies such a word where the next pass wants it. A segmented
// sort takes no count: its segments already
// come from the GPU (radix.SegmentedBuffers.Offsets), and it reads and
// writes all n keys, those outside the segments copied through; plan it
// for the keys it must cover. Nor does a segmented reduction, whose
// segments come from the GPU as well (reduce.SegmentedBuffers.Offsets).
//
// # Concurrency
//
// Plans (compact.Plan, compact.Partition3Plan, scan.Plan, scan.ByKeyPlan,
// runs.Plan,
// radix.Plan, radix.StructPlan, radix.SegmentedPlan, reduce.Plan,
// reduce.SegmentedPlan, reduce.ByKeyPlan, histogram.Plan, permute.Plan)
// are immutable and may be shared and
// recorded from several goroutines at once, each into its own command
// buffer with its own Recorder. A Recorder, and the command buffer it
// records into, belongs to one goroutine at a time. The calls that submit
// (every Run, compact.Select, the slice helpers, transfer.Copy, vk.Upload and
// vk.Download) may be called concurrently: the context serialises
// its use of the queue. On a borrowed context that queue is the engine's
// (Handles.Queue): the engine must not submit to it from another
// goroutine while such a call runs, or hand the library a queue of its
// own. Concurrent operations must not share written buffers (Scratch,
// Result, outputs). Two plans (of any operation) may share one scratch
// range when their recordings are ordered: one after the other in one
// Recorder (which puts the barrier between them), or in submissions that
// do not overlap. The pipeline cache (pipeline.For) is safe for
// concurrent first use.
//
// # Scratch between runs
//
// The single pass (compact and scan, Path SinglePass) keeps its tile
// counter and status words at the start of its scratch. Up to 1024 tiles
// (Tuning.SelfReset) its last workgroup sets them back to zero as it
// finishes, so that the next run needs no clear dispatch (one dispatch,
// and no barrier, fewer per run); past that a clear is recorded before
// every run. The radix sort's single pass (radix.Tuning.SelfReset: up to
// 512 tiles of keys, 256 of pairs, with an even number of digit passes)
// does the same with its digit counts, tile counters and first status
// region, and saves its scan dispatch too. A reduction's single pass
// (reduce.Plan) resets the counter of its workgroups done, and a
// reduction by key (reduce.ByKeyPlan, up to 1024 tiles:
// reduce.ByKeyTuning.SelfReset) and a scan by key (scan.ByKeyPlan,
// scan.ByKeyTuning.SelfReset) their look-back's status words.
// Whether they are zero is known at record time, in recording order
// (vk.Range.KnownZero): Record records a clear first when it is not
// known, at the first recording with a scratch range and after anything
// else wrote it. Every write vkcompact records or makes (dispatches of
// any plan, fills, copies, uploads) counts, so plans may still share
// scratch as above; a command buffer of the library's that is never
// submitted takes back what it would have zeroed. Tell vkcompact
// (vk.Range.NoteWritten) when commands of your own write a plan's
// scratch, and when you discard an engine's command buffer (Wrap)
// holding a recorded plan instead of submitting it; submit an engine's
// command buffers in the order they were recorded when they share a
// scratch range. A command buffer recorded once and submitted again runs
// with what its scratch holds then: replay one only if nothing else
// writes the plan's scratch between its runs (give each plan a scratch
// range of its own), or call NoteWritten on the scratch before Record, so
// that the recording clears it every time it runs. A run cut short by a lost device cannot leave wrong
// status words for a later run: a lost device ends the context. A wait
// that times out leaves the run in flight, which still resets them.
package vkcompact
