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

// TestSliceTypeConflicts: a Sum.Type that conflicts with the slice's Go
// type is refused with vk.ErrInvalid naming both, before any GPU work (a
// nil context gives the same refusal); an unset or matching one sums as
// the Go type, against a Go reference.
func TestSliceTypeConflicts(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, c := range []struct {
		name string
		call func(ctx *vk.Context) error
		want []string
	}{
		{"Sum{Type: Float32} with []uint32", func(ctx *vk.Context) error {
			_, _, err := scan.Slice(ctx, []uint32{1, 2}, scan.Sum{Type: vkcompact.Float32})
			return err
		}, []string{"Sum.Type f32", "Go type uint32 (u32)"}},
		{"Sum{Type: Uint32} with []int32", func(ctx *vk.Context) error {
			_, _, err := scan.Slice(ctx, []int32{1, 2}, scan.Sum{Type: vkcompact.Uint32, Inclusive: true})
			return err
		}, []string{"Sum.Type u32", "Go type int32 (i32)"}},
		{"Sum{Type: Int64} with []float32", func(ctx *vk.Context) error {
			_, _, err := scan.Slice(ctx, []float32{1, 2}, scan.Sum{Type: vkcompact.Int64})
			return err
		}, []string{"Sum.Type i64", "Go type float32 (f32)"}},
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
	data := []int32{-5, 7, -1, 3, 1 << 30, 1 << 30}
	want, total := []int32{-5, 2, 1, 4, 1<<30 + 4, -1<<31 + 4}, int32(-1<<31+4) // wrapping
	for _, s := range []scan.Sum{{Inclusive: true}, {Type: vkcompact.Int32, Inclusive: true}} {
		got, tot, err := scan.Slice(ctx, data, s)
		if err != nil || !slices.Equal(got, want) || tot != total {
			t.Errorf("Slice of []int32 with Type %v: %v, %d, %v; want %v, %d", s.Type, got, tot, err, want, total)
		}
	}
}
