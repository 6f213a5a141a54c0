package gotype_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/vk"
)

type particle struct {
	Pos  [3]float32
	ID   uint32
	Vel  [3]float32
	Life float32
}

type inner struct {
	Hits uint32
	Dist float32
}

type nested struct {
	Tag   uint16
	_     uint16
	Inner inner
	Runs  [2]inner
	Big   uint64
	Flag  bool
	// 7 bytes of padding follow Flag: Last is at byte 48 of 56.
	Last int64
}

type named float32

// TestKey: an unset key type is the Go type's; the same type is accepted;
// any other is refused naming both.
func TestKey(t *testing.T) {
	for _, c := range []struct {
		goType reflect.Type
		key    vkcompact.Type
		want   vkcompact.Type
		err    []string // substrings of the error; nil: accepted
	}{
		{reflect.TypeFor[uint32](), vkcompact.Unset, vkcompact.Uint32, nil},
		{reflect.TypeFor[float32](), vkcompact.Unset, vkcompact.Float32, nil},
		{reflect.TypeFor[named](), vkcompact.Unset, vkcompact.Float32, nil},
		{reflect.TypeFor[int32](), vkcompact.Int32, vkcompact.Int32, nil},
		{reflect.TypeFor[uint64](), vkcompact.Uint64, vkcompact.Uint64, nil},
		{reflect.TypeFor[uint32](), vkcompact.Float32, 0, []string{"ByKey.Value f32", "Go type uint32 (u32)"}},
		{reflect.TypeFor[int32](), vkcompact.Uint64, 0, []string{"ByKey.Value u64", "Go type int32 (i32)"}},
		{reflect.TypeFor[float32](), vkcompact.Uint32, 0, []string{"ByKey.Value u32", "Go type float32 (f32)"}},
		{reflect.TypeFor[uint32](), vkcompact.Type(9), 0, []string{"ByKey.Value Type(9)", "uint32"}},
		{reflect.TypeFor[uint16](), vkcompact.Unset, 0, []string{"uint16", "not one of the key types"}},
	} {
		got, err := gotype.Key(c.goType, c.key, "ByKey.Value")
		check(t, "Key("+c.goType.String()+", "+c.key.String()+")", err, c.err)
		if c.err == nil && got != c.want {
			t.Errorf("Key(%v, %v) = %v, want %v", c.goType, c.key, got, c.want)
		}
	}
}

// TestPlain: a zero Elem or an unset key is the Go type's; a plain Elem
// of the same type (Plain, or a Struct of the key's size with the key at
// 0) is accepted; another key type is refused naming both, and an Elem
// describing structs is refused as such.
func TestPlain(t *testing.T) {
	u32, f32 := reflect.TypeFor[uint32](), reflect.TypeFor[float32]()
	for _, c := range []struct {
		goType reflect.Type
		elem   vkcompact.Elem
		want   vkcompact.Type
		err    []string // substrings of the error; nil: accepted
	}{
		{u32, vkcompact.Elem{}, vkcompact.Uint32, nil},
		{f32, vkcompact.Elem{}, vkcompact.Float32, nil},
		{reflect.TypeFor[named](), vkcompact.Elem{}, vkcompact.Float32, nil},
		{f32, vkcompact.Plain(vkcompact.Float32), vkcompact.Float32, nil},
		{f32, vkcompact.Struct(4, 0, vkcompact.Float32), vkcompact.Float32, nil},
		{f32, vkcompact.Elem{Stride: 4}, vkcompact.Float32, nil},
		{reflect.TypeFor[uint64](), vkcompact.Struct(8, 0, vkcompact.Uint64), vkcompact.Uint64, nil},
		{u32, vkcompact.Plain(vkcompact.Float32), 0, []string{"Scan.Elem Plain(f32)", "Go type uint32 (u32)", "leave Scan.Elem zero"}},
		{f32, vkcompact.Plain(vkcompact.Int32), 0, []string{"Scan.Elem Plain(i32)", "Go type float32 (f32)"}},
		{u32, vkcompact.Struct(8, 4, vkcompact.Uint32), 0, []string{"Scan.Elem Struct(8, 4, u32) describes structs", "vkcompact.Plain"}},
		{u32, vkcompact.Struct(8, 0, vkcompact.Uint32), 0, []string{"Scan.Elem Struct(8, 0, u32) describes structs"}},
		{u32, vkcompact.Elem{Stride: 8}, 0, []string{"describes structs"}},
		{reflect.TypeFor[uint16](), vkcompact.Elem{}, 0, []string{"uint16", "not one of the key types"}},
	} {
		got, err := gotype.Plain(c.goType, c.elem, "Scan.Elem")
		check(t, "Plain("+c.goType.String()+", "+c.elem.String()+")", err, c.err)
		if c.err == nil && got != c.want {
			t.Errorf("Plain(%v, %v) = %v, want %v", c.goType, c.elem, got, c.want)
		}
	}
	if k, err := gotype.PlainKey(vkcompact.Elem{}, "Scan.Elem"); k != vkcompact.Unset || err != nil {
		t.Errorf("PlainKey of the zero Elem: %v, %v; want Unset", k, err)
	}
}

// TestElem: a zero Elem is a key type's own keys; an explicit Elem must
// fit the Go type, its key at the start of a value of exactly its type
// (found through nested structs and arrays); an unset Key takes that
// value's type; every conflict names both.
func TestElem(t *testing.T) {
	p := reflect.TypeFor[particle]()
	n := reflect.TypeFor[nested]()
	f32 := reflect.TypeFor[float32]()
	for _, c := range []struct {
		name   string
		goType reflect.Type
		e      vkcompact.Elem
		want   vkcompact.Elem
		err    []string
	}{
		{"zero for float32", f32, vkcompact.Elem{}, vkcompact.Struct(4, 0, vkcompact.Float32), nil},
		{"zero for uint64", reflect.TypeFor[uint64](), vkcompact.Elem{}, vkcompact.Struct(8, 0, vkcompact.Uint64), nil},
		{"Plain(f32) for float32", f32, vkcompact.Plain(vkcompact.Float32), vkcompact.Struct(4, 0, vkcompact.Float32), nil},
		{"Struct(4, 0, f32) for float32", f32, vkcompact.Struct(4, 0, vkcompact.Float32), vkcompact.Struct(4, 0, vkcompact.Float32), nil},
		{"Plain(u32) for float32", f32, vkcompact.Plain(vkcompact.Uint32), vkcompact.Elem{},
			[]string{"Selection.Elem Plain(u32)", "Go type float32", "is a float32 (f32), not u32"}},
		{"Plain(u64) for float32", f32, vkcompact.Plain(vkcompact.Uint64), vkcompact.Elem{}, []string{"Plain(u64)", "float32 (f32)"}},
		{"stride 8 for uint32", reflect.TypeFor[uint32](), vkcompact.Struct(8, 0, vkcompact.Uint32), vkcompact.Elem{},
			[]string{"Struct(8, 0, u32)", "uint32", "a stride of 8 bytes for a 4-byte uint32"}},
		{"zero for a struct", p, vkcompact.Elem{}, vkcompact.Elem{}, []string{"gotype_test.particle", "say where its key is"}},
		{"Life", p, vkcompact.Struct(32, 28, vkcompact.Float32), vkcompact.Struct(32, 28, vkcompact.Float32), nil},
		{"Life, zero stride", p, vkcompact.Elem{KeyOffset: 28, Key: vkcompact.Float32}, vkcompact.Struct(32, 28, vkcompact.Float32), nil},
		{"Life, unset key", p, vkcompact.Struct(32, 28, vkcompact.Unset), vkcompact.Struct(32, 28, vkcompact.Float32), nil},
		{"ID", p, vkcompact.Struct(32, 12, vkcompact.Uint32), vkcompact.Struct(32, 12, vkcompact.Uint32), nil},
		{"Pos[2]", p, vkcompact.Struct(32, 8, vkcompact.Float32), vkcompact.Struct(32, 8, vkcompact.Float32), nil},
		{"Plain(u32) for a struct whose first field is a float32", p, vkcompact.Plain(vkcompact.Uint32), vkcompact.Elem{},
			[]string{"Plain(u32)", "gotype_test.particle", "Pos[0] at byte 0 is a float32 (f32), not u32"}},
		{"Life as u32", p, vkcompact.Struct(32, 28, vkcompact.Uint32), vkcompact.Elem{},
			[]string{"Struct(32, 28, u32)", "gotype_test.particle", "Life at byte 28 is a float32 (f32), not u32"}},
		{"ID as f32", p, vkcompact.Struct(32, 12, vkcompact.Float32), vkcompact.Elem{},
			[]string{"Struct(32, 12, f32)", "ID at byte 12 is a uint32 (u32), not f32"}},
		{"stride 16 for a 32-byte struct", p, vkcompact.Struct(16, 0, vkcompact.Float32), vkcompact.Elem{},
			[]string{"Struct(16, 0, f32)", "a stride of 16 bytes for a 32-byte gotype_test.particle"}},
		{"past the end", p, vkcompact.Elem{KeyOffset: 32, Key: vkcompact.Float32}, vkcompact.Elem{}, []string{"byte 32 is past its end (32 bytes)"}},
		{"nested Inner.Dist", n, vkcompact.Struct(56, 8, vkcompact.Float32), vkcompact.Struct(56, 8, vkcompact.Float32), nil},
		{"nested Runs[1].Hits", n, vkcompact.Struct(56, 20, vkcompact.Uint32), vkcompact.Struct(56, 20, vkcompact.Uint32), nil},
		{"nested Runs[1].Hits as i32", n, vkcompact.Struct(56, 20, vkcompact.Int32), vkcompact.Elem{},
			[]string{"Runs[1].Hits at byte 20 is a uint32 (u32), not i32"}},
		{"nested Big", n, vkcompact.Struct(56, 32, vkcompact.Uint64), vkcompact.Struct(56, 32, vkcompact.Uint64), nil},
		{"nested Last, unset key", n, vkcompact.Struct(0, 48, vkcompact.Unset), vkcompact.Struct(56, 48, vkcompact.Int64), nil},
		{"inside Big", n, vkcompact.Struct(56, 36, vkcompact.Uint32), vkcompact.Elem{},
			[]string{"Struct(56, 36, u32)", "nested", "byte 36 lies inside Big at byte 32, a uint64, not at its start"}},
		{"a uint16", n, vkcompact.Struct(56, 0, vkcompact.Uint32), vkcompact.Elem{},
			[]string{"byte 0 lies in Tag at byte 0, a uint16, not one of the key types"}},
		{"a bool", n, vkcompact.Struct(56, 40, vkcompact.Uint32), vkcompact.Elem{}, []string{"Flag at byte 40, a bool"}},
		{"padding", n, vkcompact.Struct(56, 44, vkcompact.Uint32), vkcompact.Elem{}, []string{"byte 44 is padding, in no field"}},
		{"padding (blank field)", n, vkcompact.Struct(56, 2, vkcompact.Uint32), vkcompact.Elem{}, []string{"byte 2 lies in _ at byte 2, a uint16"}},
		{"a pointer", reflect.TypeFor[*int](), vkcompact.Plain(vkcompact.Uint64), vkcompact.Elem{}, []string{"the element itself, a *int"}},
		{"an array of keys", reflect.TypeFor[[4]int32](), vkcompact.Struct(16, 12, vkcompact.Int32), vkcompact.Struct(16, 12, vkcompact.Int32), nil},
		{"no Go type", nil, vkcompact.Plain(vkcompact.Uint32), vkcompact.Elem{}, []string{"no Go type"}},
	} {
		got, err := gotype.Elem(c.goType, c.e, "Selection.Elem")
		check(t, c.name, err, c.err)
		if c.err == nil && got != c.want {
			t.Errorf("%s: Elem(%v, %v) = %v, want %v", c.name, c.goType, c.e, got, c.want)
		}
	}
}

// check compares err with the substrings want (nil: no error).
func check(t *testing.T, name string, err error, want []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return
	}
	if !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("%s: %v, want vk.ErrInvalid", name, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", name, err, w)
		}
	}
}
