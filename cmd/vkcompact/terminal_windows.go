package main

import (
	"os"
	"syscall"
)

// isTerminal reports whether f is a console: whether GetConsoleMode
// answers for its handle (a pipe, a file or NUL, a character device
// though it is, does not).
func isTerminal(f *os.File) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(f.Fd()), &mode) == nil
}
