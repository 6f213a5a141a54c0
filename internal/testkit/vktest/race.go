//go:build race

package vktest

// Race is true in a test binary built with the race detector.
const Race = true
