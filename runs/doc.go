// Package runs finds the runs of equal elements of an input on the GPU:
// run-length encoding (Encode: each run's first element and its length,
// as CUB's DeviceRunLengthEncode::Encode) and the runs longer than one
// (NonTrivial: each one's offset and length, as CUB's
// DeviceRunLengthEncode::NonTrivialRuns). Elements are plain keys of any
// vkcompact.Type or structs compared by a key field or whole
// (compact.Equality), as package compact's selections take them.
//
// Each is one of package compact's selections, in one pass over the
// input on a GPU (PathAuto's single pass), and for NonTrivial a second
// dispatch. The selection is made with compact.Selection.Output: for
// NonTrivial it writes the first and the last index of each run longer
// than one (the run edges, a selection of package compact's that its API
// does not name: internal/keepop.RunEdges), which come in pairs in
// order, to the scratch, and the second dispatch
// (shaders/runs/runs_finish.comp) turns them into offsets and lengths
// (last - first + 1) and writes the result block with the runs' count.
// Encode keeps each run's first element (compact.FirstOfRun) and finds
// the lengths one of two ways (Encoding.Lengths, Tuning.Lengths):
//
//   - LengthsInSelection, on GPUs: in the selection's own pass
//     (internal/keepop.RunLengths), which writes each run's first
//     element, the run's key, to Buffers.Keys and its length to
//     Buffers.Lengths: each run's first index less the previous run's
//     ends the previous run, within a tile (or chunk), and a small last
//     dispatch over the tiles ends the last run of each from the first
//     run of the next one, and the last run of all at the elements
//     covered. The selection writes this encoding's result block itself.
//   - LengthsFinish, on CPU devices: the selection writes the index of
//     each run's first element to the scratch and the element itself to
//     Buffers.Keys (compact.OutputBoth: re-read at its index while the
//     tile is still in cache), and runs_finish turns the indices into
//     lengths (the next run's start less this one's, the last one's end
//     being the elements covered) and writes the result block.
//
// runs_finish is one dispatch of a fixed grid whose invocations stride
// over the runs (the count is only known on the GPU), so that the result
// block is written even when there are none. The indices and the
// selection's own result block live in the scratch; the count stays on
// the GPU, in Buffers.Result, for a next pass to read or to dispatch by
// (ResultDispatchOffset).
//
// A typical use, on sorted uint32 cell indices whose count a previous
// compaction left on the GPU:
//
//	p, err := runs.NewPlan(ctx, capacity, runs.Encoding{Op: runs.Encode})
//	...
//	p.Record(rec, runs.Buffers{
//		Src:     cells,                                           // capacity uint32s, sorted
//		Keys:    uniqueCells,                                     // room for capacity uint32s
//		Lengths: counts,                                          // room for capacity uint32s
//		Result:  block,                                           // runs.ResultSize bytes: the runs' count at 0
//		Scratch: scratch,                                         // p.ScratchSize() bytes
//		Count:   prev.Sub(compact.ResultKeptOffset, 4),          // the elements, counted on the GPU
//	})
//
// EncodeSlice and NonTrivialSlice run the same on Go slices.
//
// Synchronisation is package vkcompact's ("Synchronisation"), as for
// every operation's Record.
package runs
