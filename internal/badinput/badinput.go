// Package badinput runs the reliability tests' tables of bad inputs: each
// case calls one public entry point with one bad argument, which must
// return an error of the right kind naming the problem, and must not
// panic.
package badinput

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Case is one bad input: Call must return an error matching Want (any
// error when Want is nil) whose message contains Msg, or one of its
// |-separated alternatives.
type Case struct {
	Entry, Input string
	Want         error
	Msg          string
	Call         func() error
}

// Check runs c and fails t with what is wrong with its outcome. Each case
// is logged as "case | entry | input | error", the reliability report's
// table.
func Check(t *testing.T, c Case) {
	t.Helper()
	var err error
	panicked := false
	func() {
		defer func() {
			if p := recover(); p != nil {
				err, panicked = fmt.Errorf("panic: %v", p), true
			}
		}()
		err = c.Call()
	}()
	t.Logf("case | %s | %s | %v", c.Entry, c.Input, err)
	switch {
	case panicked:
		t.Errorf("%s: %s: panicked (%v)", c.Entry, c.Input, err)
	case err == nil:
		t.Errorf("%s: %s: no error", c.Entry, c.Input)
	case c.Want != nil && !errors.Is(err, c.Want):
		t.Errorf("%s: %s: %v, want an error matching %v", c.Entry, c.Input, err, c.Want)
	case !Mentions(err, c.Msg):
		t.Errorf("%s: %s: %q does not mention %q", c.Entry, c.Input, err, c.Msg)
	}
}

// Mentions reports whether err's message contains msg or one of its
// |-separated alternatives.
func Mentions(err error, msg string) bool {
	for _, m := range strings.Split(msg, "|") {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}
