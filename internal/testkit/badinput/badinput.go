// Package badinput runs the reliability tests' tables of bad inputs: each
// case calls one public entry point with one bad argument, which must
// return an error of the right kind naming the problem, and must not
// panic.
package badinput

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/vk"
)

// Case is one bad input: Call must return an error matching Want whose
// message contains Msg, or one of its |-separated alternatives. Want must
// be set, and each alternative of Msg must be at least MinMsg bytes long:
// an empty alternative, or a word as short as "nil", matches errors that
// do not name the problem.
type Case struct {
	Entry, Input string
	Want         error
	Msg          string
	Call         func() error
}

// MinMsg is the shortest expected message (or alternative) a case may
// give.
const MinMsg = 10

// Lint returns what makes c unable to tell a right error from a wrong
// one, or nil.
func Lint(c Case) error {
	if c.Want == nil {
		return fmt.Errorf("%s: %s: no Want: any error would pass", c.Entry, c.Input)
	}
	for _, m := range strings.Split(c.Msg, "|") {
		if len(m) < MinMsg {
			return fmt.Errorf("%s: %s: the expected message %q has an alternative %q shorter than %d bytes, which errors that do not name the problem can contain", c.Entry, c.Input, c.Msg, m, MinMsg)
		}
	}
	return nil
}

// Check runs c and fails t with what is wrong with its outcome, or with the
// case itself (Lint). Each case is logged as "case | entry | input |
// error", the reliability report's table.
func Check(t *testing.T, c Case) {
	t.Helper()
	if err := Lint(c); err != nil {
		t.Errorf("bad case: %v", err)
	}
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

// Unchanged fails t when a buffer no longer holds the bytes bufs gives
// for it: a bad input must leave the caller's buffers alone.
func Unchanged(t *testing.T, what string, bufs map[*vk.Buffer][]byte) {
	t.Helper()
	for b, want := range bufs {
		got := make([]byte, len(want))
		if err := vk.Download(b.All(), got); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: a caller's buffer was modified", what)
		}
	}
}

// CheckAll checks each case (Check) and then that the buffers in
// watched still hold their bytes (Unchanged). A case whose Input says
// "not aligned" is skipped where the device's
// minStorageBufferOffsetAlignment, align, is 4 or less: no offset of
// whole words is misaligned there.
func CheckAll(t *testing.T, cases []Case, watched map[*vk.Buffer][]byte, align uint64) {
	t.Helper()
	for _, c := range cases {
		if align <= 4 && strings.Contains(c.Input, "not aligned") {
			continue
		}
		Check(t, c)
		Unchanged(t, c.Entry+": "+c.Input, watched)
	}
}
