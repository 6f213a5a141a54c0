package scan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSliceTypeConflicts: a Scan.Elem that conflicts with the slice's Go
// type, or describes structs, is refused with vk.ErrInvalid naming both,
// before any GPU work (a nil context gives the same refusal); a zero or
// matching one sums as the Go type, against a Go reference.
func TestSliceTypeConflicts(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, c := range []struct {
		name string
		call func(ctx *vk.Context) error
		want []string
	}{
		{"Scan{Elem: Plain(Float32)} with []uint32", func(ctx *vk.Context) error {
			_, _, err := scan.ScanSlice(ctx, []uint32{1, 2}, scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32)})
			return err
		}, []string{"Scan.Elem Plain(f32)", "Go type uint32 (u32)"}},
		{"Scan{Elem: Plain(Uint32)} with []int32", func(ctx *vk.Context) error {
			_, _, err := scan.ScanSlice(ctx, []int32{1, 2}, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Inclusive: true})
			return err
		}, []string{"Scan.Elem Plain(u32)", "Go type int32 (i32)"}},
		{"Scan{Elem: Plain(Int64)} with []float32", func(ctx *vk.Context) error {
			_, _, err := scan.ScanSlice(ctx, []float32{1, 2}, scan.Scan{Elem: vkcompact.Plain(vkcompact.Int64)})
			return err
		}, []string{"Scan.Elem Plain(i64)", "Go type float32 (f32)"}},
		{"Scan{Elem: Struct(8, 4, Uint32)} with []uint32", func(ctx *vk.Context) error {
			_, _, err := scan.ScanSlice(ctx, []uint32{1, 2}, scan.Scan{Elem: vkcompact.Struct(8, 4, vkcompact.Uint32)})
			return err
		}, []string{"Scan.Elem Struct(8, 4, u32) describes structs"}},
	} {
		for _, ctx := range []*vk.Context{nil, ctx} {
			err := c.call(ctx)
			if !errors.Is(err, vk.ErrInvalid) {
				t.Errorf("%s (context %p): %v, want vk.ErrInvalid", c.name, ctx, err)
				continue
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s (context %p): %q does not say %q", c.name, ctx, err, w)
				}
			}
		}
	}
	if _, err := scan.NewPlan(ctx, 2, scan.Scan{Elem: vkcompact.Struct(8, 0, vkcompact.Uint32)}); !errors.Is(err, vk.ErrInvalid) ||
		!strings.Contains(err.Error(), "Scan.Elem Struct(8, 0, u32) describes structs") {
		t.Errorf("a plan of Struct(8, 0, Uint32): %v, want vk.ErrInvalid naming the struct layout", err)
	}
	data := []int32{-5, 7, -1, 3, 1 << 30, 1 << 30}
	want, total := []int32{-5, 2, 1, 4, 1<<30 + 4, -1<<31 + 4}, int32(-1<<31+4) // wrapping
	for _, s := range []scan.Scan{{Inclusive: true}, {Elem: vkcompact.Plain(vkcompact.Int32), Inclusive: true}, {Elem: vkcompact.Struct(4, 0, vkcompact.Int32), Inclusive: true}} {
		got, tot, err := scan.ScanSlice(ctx, data, s)
		if err != nil || !slices.Equal(got, want) || tot != total {
			t.Errorf("ScanSlice of []int32 with Elem %v: %v, %d, %v; want %v, %d", s.Elem, got, tot, err, want, total)
		}
	}
}
