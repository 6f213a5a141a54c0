//go:build !race

package radix_test

const raceEnabled = false
