// Package align holds the integer rounding that every layer uses to size
// tiles, workgroups and buffer regions: one copy, below everything else.
package align

// CeilDiv is a/b rounded up; b must not be 0.
func CeilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

// Up is a rounded up to a multiple of b; b must not be 0.
func Up(a, b uint64) uint64 { return CeilDiv(a, b) * b }
