// Package keepop names the keep-if tests of package compact that its API
// does not: the selections the operations built on compact's plans ask
// for, which a caller reaches through those operations. compact.Op(x) is
// the test for each x here.
package keepop

// RunEdges keeps the first and the last element of each run longer than
// one of equal elements (compact.Keep.Equal says when two are equal), so
// that the kept elements come in (first, last) pairs in order; an element
// of a run of one is not kept. Package runs finds the runs longer than one
// (runs.NonTrivial) with it.
const RunEdges = 10
