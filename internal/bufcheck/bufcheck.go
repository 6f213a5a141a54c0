// Package bufcheck validates the buffer ranges an operation is recorded
// with, for compact and radix: presence, context, size, alignment and
// overlap, each failure an error wrapping vk.ErrInvalid that names the
// range.
package bufcheck

import (
	"fmt"
	"strings"

	"github.com/vkcompact/vkcompact/vk"
)

// Range is one range an operation uses.
type Range struct {
	Name  string   // as the error messages call it: "source", "scratch"
	Range vk.Range // the caller's range
	Need  uint64   // bytes the operation touches from its offset
	Exact bool     // the range must be Need bytes, no more (a count word)
	Write bool     // whether the operation writes it
}

// Check validates list for ctx: every range present, of ctx, valid, at
// least Need bytes long (exactly, with Exact), at an offset that is a multiple of
// minStorageBufferOffsetAlignment, and overlapping no other range unless
// both are only read. prefix starts each message ("compact", "radix").
func Check(prefix string, ctx *vk.Context, list []Range) error {
	align := ctx.Info().MinStorageBufferOffsetAlignment
	for _, x := range list {
		if x.Range.Buffer == nil {
			return vk.Invalidf("%s: no %s buffer", prefix, x.Name)
		}
		if err := x.Range.Check(); err != nil {
			return fmt.Errorf("%s: %s: %w", prefix, x.Name, err)
		}
		if x.Range.Buffer.Context() != ctx {
			return vk.Invalidf("%s: %s: the buffer belongs to another context", prefix, x.Name)
		}
		if x.Range.Size < x.Need {
			return vk.Invalidf("%s: %s range of %d bytes: %d needed", prefix, x.Name, x.Range.Size, x.Need)
		}
		if x.Exact && x.Range.Size != x.Need {
			return vk.Invalidf("%s: %s range of %d bytes: it must be exactly %d", prefix, x.Name, x.Range.Size, x.Need)
		}
		if align > 0 && x.Range.Offset%align != 0 {
			return vk.Invalidf("%s: %s offset %d is not a multiple of minStorageBufferOffsetAlignment %d", prefix, x.Name, x.Range.Offset, align)
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
				return vk.Invalidf("%s: the %s and %s ranges overlap%s", prefix, a.Name, b.Name, hint)
			}
		}
	}
	return nil
}

func isOutput(r Range) bool {
	return r.Write && (strings.Contains(r.Name, "destination") || strings.Contains(r.Name, "output"))
}
