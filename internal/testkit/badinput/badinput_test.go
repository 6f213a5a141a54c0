package badinput

import (
	"errors"
	"strings"
	"testing"
)

// TestLint refuses the cases that cannot fail: no Want, an empty
// alternative, a message too short to name a problem.
func TestLint(t *testing.T) {
	want := errors.New("x")
	for _, tc := range []struct {
		c   Case
		bad string
	}{
		{Case{Entry: "e", Input: "i", Want: want, Msg: "minStorageBufferOffsetAlignment"}, ""},
		{Case{Entry: "e", Input: "i", Want: want, Msg: "minStorageBufferOffsetAlignment|not a multiple"}, ""},
		{Case{Entry: "e", Input: "i", Msg: "minStorageBufferOffsetAlignment"}, "no Want"},
		{Case{Entry: "e", Input: "i", Want: want, Msg: "minStorageBufferOffsetAlignment|"}, `alternative ""`},
		{Case{Entry: "e", Input: "i", Want: want, Msg: ""}, `alternative ""`},
		{Case{Entry: "e", Input: "i", Want: want, Msg: "nil"}, `alternative "nil"`},
		{Case{Entry: "e", Input: "i", Want: want, Msg: "timer"}, `alternative "timer"`},
		{Case{Entry: "e", Input: "i", Want: want, Msg: "bytes|exceeds the buffer"}, `alternative "bytes"`},
	} {
		err := Lint(tc.c)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("Lint(%+v) = %v, want nil", tc.c, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("Lint(%+v) = %v, want an error naming %s", tc.c, err, tc.bad)
		}
	}
}
