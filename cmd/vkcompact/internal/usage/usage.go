// Package usage marks the errors of a bad invocation of vkcompact or of
// bad input, which the command reports with exit status 2; every other
// failure exits with status 1.
package usage

import "fmt"

// Error is an error of the invocation (a flag, a missing file) or of an
// input (its format, its size, a field it lacks).
type Error struct {
	Err error // what is wrong
}

// Error returns the message of the error it marks.
func (e Error) Error() string { return e.Err.Error() }

// Unwrap returns the error it marks.
func (e Error) Unwrap() error { return e.Err }

// Errorf formats an Error, as fmt.Errorf does.
func Errorf(format string, args ...any) error { return Error{fmt.Errorf(format, args...)} }
