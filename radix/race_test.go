//go:build race

package radix_test

// raceEnabled: the race detector slows the Go reference sort of the
// largest inputs past what CI allows.
const raceEnabled = true
