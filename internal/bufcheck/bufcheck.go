// Package bufcheck validates the buffer ranges an operation is recorded
// with, for compact and radix: presence, context, size, alignment and
// overlap, each failure an error wrapping vk.ErrInvalid that names the
// range.
package bufcheck

import (
	"fmt"
	"strings"

	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Range is one range an operation uses.
type Range struct {
	Name  string   // as the error messages call it: "source", "scratch"
	Range vk.Range // the caller's range
	Need  uint64   // bytes the operation touches from its offset
	Exact bool     // the range must be Need bytes, no more (a count word)
	Write bool     // whether the operation writes it
	// Word: a count word, bound by CountWord, whose offset need only be
	// a multiple of 4.
	Word bool
}

// CountWord returns how a kernel binds a GPU-side count word, count (4
// bytes at an offset that is a multiple of 4), and the countOn push
// constant that finds it there (shaders/include/common.glsl: countWord):
// the range from count's offset rounded down to the device's
// minStorageBufferOffsetAlignment through the word, and 1 + the word's
// index in it. So any count word chains, the second count of a result
// block at byte 4 included, where the alignment is 256.
func CountWord(ctx *vk.Context, count vk.Range) (bind vk.Range, countOn uint32) {
	bind, word := pipeline.Unaligned(ctx, count.Sub(0, min(count.Size, 4)))
	return bind, word + 1
}

// Check validates list for ctx: every range present, of ctx, valid, at
// least Need bytes long (exactly, with Exact), at an offset that is a multiple of
// minStorageBufferOffsetAlignment (of 4 for a Word), and overlapping no
// other range unless both are only read. prefix starts each message
// ("compact", "radix").
func Check(prefix string, ctx *vk.Context, list []Range) error {
	align := ctx.Info().MinStorageBufferOffsetAlignment
	for _, x := range list {
		if x.Range.Buffer == nil {
			return errs.Invalidf("%s: no %s buffer", prefix, x.Name)
		}
		if err := x.Range.Check(); err != nil {
			return fmt.Errorf("%s: %s: %w", prefix, x.Name, err)
		}
		if x.Range.Buffer.Context() != ctx {
			return errs.Invalidf("%s: %s: the buffer belongs to another context", prefix, x.Name)
		}
		if x.Range.Size < x.Need {
			return errs.Invalidf("%s: %s range of %d bytes: %d needed", prefix, x.Name, x.Range.Size, x.Need)
		}
		if x.Exact && x.Range.Size != x.Need {
			return errs.Invalidf("%s: %s range of %d bytes: it must be exactly %d", prefix, x.Name, x.Range.Size, x.Need)
		}
		if x.Word && x.Range.Offset%4 != 0 {
			return errs.Invalidf("%s: %s offset %d is not a multiple of 4", prefix, x.Name, x.Range.Offset)
		}
		if !x.Word && align > 0 && x.Range.Offset%align != 0 {
			return errs.Invalidf("%s: %s offset %d is not a multiple of minStorageBufferOffsetAlignment %d", prefix, x.Name, x.Range.Offset, align)
		}
	}
	for i, a := range list {
		for _, b := range list[i+1:] {
			if !a.Write && !b.Write {
				continue
			}
			if a.Range.Buffer == b.Range.Buffer && a.Range.Offset < b.Range.Offset+b.Need && b.Range.Offset < a.Range.Offset+a.Need {
				hint := ""
				if isOutput(a) && !b.Write || isOutput(b) && !a.Write {
					hint = "; to work in place, set InPlace and leave the output range empty"
				}
				return errs.Invalidf("%s: the %s and %s ranges overlap%s", prefix, a.Name, b.Name, hint)
			}
		}
	}
	return nil
}

func isOutput(r Range) bool {
	return r.Write && (strings.Contains(r.Name, "destination") || strings.Contains(r.Name, "output"))
}
