// Package keepop names the keep-if tests and outputs of package compact
// that its API does not: the selections the operations built on compact's
// plans ask for, which a caller reaches through those operations.
// compact.Op(x) is the test for each test x here, compact.Output(x) the
// output for each output.
package keepop

// RunEdges keeps the first and the last element of each run longer than
// one of equal elements (compact.Keep.Equal says when two are equal), so
// that the kept elements come in (first, last) pairs in order; an element
// of a run of one is not kept. Package runs finds the runs longer than one
// (runs.NonTrivial) with it.
const RunEdges = 10

// RunLengths is the output of a FirstOfRun compaction that writes, for
// each kept element (each run's first), its run's length to Dst as a
// uint32 (the next run's first index less its own; the last run's, the
// elements covered less its own) and the element itself to
// Buffers.Elements: run-length encoding in the selection's own pass and
// a small fix-up dispatch over its tiles or chunks. Package runs encodes
// with it (runs.Encode, runs.LengthsInSelection).
const RunLengths = 16
