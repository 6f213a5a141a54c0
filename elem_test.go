package vkcompact_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/vk"
)

// TestTypeUnset: the zero Type is Unset, so that an explicit Uint32 (and
// Plain(Uint32)) can be told from none; names parse back to their types
// and "unset" to none; a plan-level Elem takes an unset key as Uint32.
func TestTypeUnset(t *testing.T) {
	var zero vkcompact.Type
	if zero != vkcompact.Unset || zero.String() != "unset" || zero.Size() != 0 || zero.OrUint32() != vkcompact.Uint32 {
		t.Errorf("the zero Type: %v (size %d, OrUint32 %v); want unset, 0, u32", zero, zero.Size(), zero.OrUint32())
	}
	if vkcompact.Plain(vkcompact.Uint32) == (vkcompact.Elem{}) {
		t.Error("Plain(Uint32) is the zero Elem")
	}
	for typ, name := range map[vkcompact.Type]string{vkcompact.Uint32: "u32", vkcompact.Int32: "i32", vkcompact.Float32: "f32",
		vkcompact.Uint64: "u64", vkcompact.Int64: "i64", vkcompact.Float64: "f64"} {
		got, err := vkcompact.ParseType(name)
		if err != nil || got != typ || typ.String() != name || typ.OrUint32() != typ {
			t.Errorf("%s: ParseType = %v, %v; String %q, OrUint32 %v", name, got, err, typ.String(), typ.OrUint32())
		}
	}
	if _, err := vkcompact.ParseType("unset"); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf(`ParseType("unset"): %v, want vk.ErrInvalid`, err)
	}
	if got, ok := vkcompact.TypeOf(reflect.TypeFor[uint16]()); ok || got != vkcompact.Unset {
		t.Errorf("TypeOf(uint16) = %v, %v; want unset, false", got, ok)
	}
	for _, c := range []struct {
		e    vkcompact.Elem
		text string
		size uint32
	}{
		{vkcompact.Elem{}, "Plain(unset)", 4},
		{vkcompact.Plain(vkcompact.Float64), "Plain(f64)", 8},
		{vkcompact.Struct(32, 28, vkcompact.Float32), "Struct(32, 28, f32)", 32},
		{vkcompact.Struct(16, 12, vkcompact.Unset), "Struct(16, 12, unset)", 16},
	} {
		if c.e.String() != c.text || c.e.Size() != c.size || c.e.Check() != nil {
			t.Errorf("%+v: String %q, Size %d, Check %v; want %q, %d, nil", c.e, c.e.String(), c.e.Size(), c.e.Check(), c.text, c.size)
		}
	}
}
