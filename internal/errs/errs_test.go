package errs_test

import (
	"errors"
	"io"
	"testing"

	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/vk"
)

// TestInvalidf checks the message, that the error matches vk.ErrInvalid
// and what its message wraps, and nothing else.
func TestInvalidf(t *testing.T) {
	err := errs.Invalidf("compact: source: %w", io.ErrUnexpectedEOF)
	if got, want := err.Error(), "compact: source: unexpected EOF"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, vk.ErrInvalid) {
		t.Error("does not match vk.ErrInvalid")
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("does not match the error it wraps")
	}
	if errors.Is(err, vk.ErrTimeout) || errors.Is(errs.Invalidf("plain"), io.ErrUnexpectedEOF) {
		t.Error("matches an error it does not wrap")
	}
}
