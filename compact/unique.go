package compact

import (
	"fmt"

	"github.com/vkcompact/vkcompact/internal/errs"
)

// The neighbour selections: an element is kept or not by comparing it with
// the elements beside it, in the same pass that ranks and moves it (one
// more load per unit for the element before it, and for the run edges the
// one after it; select_load.glsl, keepNeighbours). Unique is the selection
// FirstOfRun (keep.go names the tests); package runs builds run-length
// encoding on FirstOfRun and the run edges (internal/keepop.RunEdges) with
// Selection.Output.

// Equality says when two neighbouring elements are equal, for FirstOfRun
// (and the run edges of package runs).
type Equality uint8

const (
	// EqualKeys compares the keys as their type does: integers by value,
	// floats by IEEE 754, so that -0.0 equals 0.0 and a NaN equals nothing
	// (each NaN is a run of its own), as CUB's Unique with operator==.
	EqualKeys Equality = iota
	// EqualKeyBits compares the keys' bits: -0.0 differs from 0.0, and
	// NaNs with the same bits are equal.
	EqualKeyBits
	// EqualElements compares every 32-bit word of the elements, the key
	// and every other field, padding included (a struct's padding must
	// then be zero, or compare as the caller means).
	EqualElements
)

var equalityNames = [...]string{"keys", "key bits", "elements"}

// String names the equality.
func (e Equality) String() string {
	if int(e) < len(equalityNames) {
		return equalityNames[e]
	}
	return fmt.Sprintf("Equality(%d)", uint8(e))
}

// KeepUnique keeps the first element of each run of equal keys
// (EqualKeys): the selection that CUB's DeviceSelect::Unique makes.
func KeepUnique() Keep { return KeepFirstOfRun(EqualKeys) }

// KeepFirstOfRun keeps the first element of each run of elements equal
// under eq.
func KeepFirstOfRun(eq Equality) Keep { return Keep{Op: FirstOfRun, Equal: eq} }

// The neighbour predicates' codes (select_load.glsl): the first of a run
// and a run's edges, each plus the equality.
const (
	predFirst uint32 = 11
	predEdge  uint32 = 14
)

// neighbourString writes a neighbour test.
func (k Keep) neighbourString() string {
	if k.Op == FirstOfRun {
		return "first of each run (" + k.Equal.String() + " equal)"
	}
	return "edges of runs longer than one (" + k.Equal.String() + " equal)"
}

// encodeNeighbours returns a neighbour test's predicate code.
func (k Keep) encodeNeighbours() (pred uint32, lo, hi uint32, err error) {
	if k.Equal > EqualElements {
		return 0, 0, 0, errs.Invalidf("compact: unknown equality %d: want EqualKeys, EqualKeyBits or EqualElements", k.Equal)
	}
	base := predFirst
	if k.Op == runEdges {
		base = predEdge
	}
	return base + uint32(k.Equal), 0, 0, nil
}

// neighbours says whether q's test compares neighbours.
func (q *request) neighbours() bool {
	return q.sel.Keep.Op == FirstOfRun || q.sel.Keep.Op == runEdges
}

// Output chooses what a compaction writes for each kept element
// (Selection.Output).
type Output uint8

const (
	// OutputElements writes the kept elements to Dst.
	OutputElements Output = iota
	// OutputIndices writes each kept element's index in the input, a
	// uint32, to Dst.
	OutputIndices
	// OutputBoth writes the indices to Dst and the elements to
	// Buffers.Elements, in the same pass (each element re-read at its
	// index while the tile is still in cache).
	OutputBoth
)

// outSize is the bytes per element of Dst: 4 for indices, the element's
// size otherwise.
func (q *request) outSize() uint64 {
	if q.sel.Output != OutputElements {
		return 4
	}
	return q.size
}

// outIndex is select_move's and select_onepass's OUT_INDEX: 3 for run
// lengths.
func (q *request) outIndex() uint32 {
	if q.sel.Output == outputRunLengths {
		return 3
	}
	return uint32(q.sel.Output)
}

// stagedWords is the words the staged write stages per element
// (select_move.glsl's OSTRIDE): an index where the output is indices,
// run lengths or goes with values, the element otherwise.
func (q *request) stagedWords() uint32 {
	if q.sel.Output != OutputElements || q.vwords != 0 {
		return 1
	}
	return q.words
}

// writesElements says whether q writes the kept elements to
// Buffers.Elements: with OutputBoth, and with run lengths.
func (q *request) writesElements() bool {
	return q.sel.Output == OutputBoth || q.sel.Output == outputRunLengths
}

// checkIndices refuses an Output where it does not apply.
func checkIndices(sel Selection) error {
	switch {
	case sel.Output == OutputElements:
		return nil
	case sel.Output > OutputBoth && sel.Output != outputRunLengths:
		return errs.Invalidf("compact: unknown output %d", sel.Output)
	case sel.Split:
		return errs.Invalidf("compact: indices (Selection.Output) apply to a compaction, not a split")
	case sel.InPlace:
		return errs.Invalidf("compact: indices (Selection.Output) are uint32s, not elements: they cannot be written in place")
	case sel.Output == outputRunLengths:
		return checkRunLengths(sel)
	}
	return nil
}

// checkOneBinding refuses a neighbour test or indices whose input the
// plan's algorithm cuts into several bindings (segments or windows): an
// element's neighbour would lie in another binding, and an index is
// counted from the binding's start.
func checkOneBinding(q *request, alg algorithm) error {
	if !q.neighbours() && q.sel.Output == OutputElements {
		return nil
	}
	cut := false
	switch a := alg.(type) {
	case *threePhase:
		cut = uint64(a.segElems) < uint64(q.n)
	case *singlePass:
		cut = a.windowTiles > 0
	}
	if !cut {
		return nil
	}
	what := "indices"
	if q.neighbours() {
		what = "a " + q.sel.Keep.Op.String() + " selection"
	}
	return errs.Invalidf("compact: %s needs the input in one binding; %d elements of %d bytes exceed it (maxStorageBufferRange)", what, q.n, q.size)
}
