//go:build !linux && !windows

package main

import "os"

// isTerminal reports whether f is a character device, the nearest this
// build can tell to a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
