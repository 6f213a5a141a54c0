package scan

import (
	"fmt"

	"github.com/vkcompact/vkcompact/internal/errs"
)

// Op is what a scan combines its elements with.
type Op uint8

const (
	// Sum adds the elements: integers wrap modulo 2^32 (int32 in two's
	// complement); float32 follows IEEE 754 in the order Scan describes.
	Sum Op = iota
	// Min is the least element so far: by value for integers (int32
	// signed); for float32 as Go's min: -0.0 is below +0.0, and a NaN
	// makes the result a NaN (of several NaNs, the one whose bits are the
	// least as a uint32). Its identity, which an exclusive scan's first
	// element and the total of no elements hold, is the type's greatest
	// value: math.MaxUint32, math.MaxInt32, +Inf.
	Min
	// Max is the greatest element so far, as Go's max for float32: +0.0
	// is above -0.0, and NaNs as Min has them. Its identity is the type's
	// least value: 0, math.MinInt32, -Inf.
	Max
)

var opNames = [...]string{"sum", "min", "max"}

// String names the operation: sum, min or max.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ParseOp parses an operation's name (sum, min or max).
func ParseOp(s string) (Op, error) {
	for o := Sum; o <= Max; o++ {
		if s == opNames[o] {
			return o, nil
		}
	}
	return 0, errs.Invalidf("scan: unknown operation %q (want sum, min or max)", s)
}

// checkOp refuses an Op the scans do not know.
func checkOp(o Op) error {
	if o > Max {
		return errs.Invalidf("scan: unknown operation %d: want Sum, Min or Max", uint8(o))
	}
	return nil
}
