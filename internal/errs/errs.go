// Package errs holds the library's one helper for the errors it returns
// on bad input: Invalidf, an error matching vk.ErrInvalid whose message
// names what was wrong. Package vk makes its own the same way, below this
// package.
package errs

import (
	"fmt"

	"github.com/vkcompact/vkcompact/vk"
)

// Invalidf formats an error matching vk.ErrInvalid, as fmt.Errorf does
// (%w wraps): the error the library returns for an argument that does
// not fit, its message naming the problem. Its message reads context
// first and cause last ("compact: source: nil buffer"), and errors.Is
// matches both vk.ErrInvalid and whatever the message wraps.
func Invalidf(format string, args ...any) error {
	return &invalidError{err: fmt.Errorf(format, args...)}
}

// invalidError is an error of Invalidf.
type invalidError struct{ err error }

func (e *invalidError) Error() string   { return e.err.Error() }
func (e *invalidError) Unwrap() []error { return []error{e.err, vk.ErrInvalid} }
