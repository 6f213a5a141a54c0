package vkcompact

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/vkcompact/vkcompact/vk"
)

// Type is the type of an element's key: the element itself for plain
// arrays, or one field of a struct.
type Type uint8

// The key types.
const (
	Uint32 Type = iota
	Int32
	Float32
	Uint64
	Int64
	Float64
)

var typeNames = [...]string{"u32", "i32", "f32", "u64", "i64", "f64"}

// String returns the type's short name: u32, i32, f32, u64, i64 or f64.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Size returns the key's size in bytes (4 or 8), or 0 for an unknown type.
func (t Type) Size() uint32 {
	switch {
	case t <= Float32:
		return 4
	case t <= Float64:
		return 8
	}
	return 0
}

// ParseType parses a short type name (u32, i32, f32, u64, i64, f64).
func ParseType(s string) (Type, error) {
	for i, n := range typeNames {
		if s == n {
			return Type(i), nil
		}
	}
	return 0, vk.Invalidf("unknown type %q (want one of %s)", s, strings.Join(typeNames[:], ", "))
}

// Elem describes the elements: plain keys, or structs of Stride bytes with
// the key at byte KeyOffset.
type Elem struct {
	Key       Type   // the key's type
	Stride    uint32 // bytes per element, a multiple of 4 from 4 to 256; 0 means Key.Size()
	KeyOffset uint32 // byte offset of the key in the element, a multiple of 4
}

// MaxStride is the largest element, in bytes.
const MaxStride = 256

// Plain describes an array of keys of type t.
func Plain(t Type) Elem { return Elem{Key: t} }

// Struct describes structs of stride bytes with a key of type t at byte
// offset off.
func Struct(stride uint32, off uint32, t Type) Elem {
	return Elem{Key: t, Stride: stride, KeyOffset: off}
}

// Size returns the element's size in bytes.
func (e Elem) Size() uint32 {
	if e.Stride == 0 {
		return e.Key.Size()
	}
	return e.Stride
}

// Check reports what is wrong with e, if anything.
func (e Elem) Check() error {
	if e.Key.Size() == 0 {
		return vk.Invalidf("vkcompact: unknown key type %d", e.Key)
	}
	s := e.Size()
	if s%4 != 0 || s < 4 || s > MaxStride {
		return vk.Invalidf("vkcompact: element stride %d bytes: want a multiple of 4 from 4 to %d", s, MaxStride)
	}
	if e.KeyOffset%4 != 0 {
		return vk.Invalidf("vkcompact: key offset %d is not a multiple of 4", e.KeyOffset)
	}
	if e.KeyOffset+e.Key.Size() > s || e.KeyOffset >= s {
		return vk.Invalidf("vkcompact: a %s key at byte %d does not fit in a %d-byte element", e.Key, e.KeyOffset, s)
	}
	return nil
}

// TypeOf returns the key type of a Go type, and false for a type that is
// not one of them.
func TypeOf(t reflect.Type) (Type, bool) {
	switch t.Kind() {
	case reflect.Uint32:
		return Uint32, true
	case reflect.Int32:
		return Int32, true
	case reflect.Float32:
		return Float32, true
	case reflect.Uint64:
		return Uint64, true
	case reflect.Int64:
		return Int64, true
	case reflect.Float64:
		return Float64, true
	}
	return 0, false
}

// StructOf describes the elements of a slice of the struct T, with the
// key at T's field named field, of one of the key types: for example
// vkcompact.StructOf[Particle]("Life"). The field's offset must be a
// multiple of 4 and T's size a multiple of 4 up to MaxStride.
func StructOf[T any](field string) (Elem, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return Elem{}, vk.Invalidf("vkcompact: StructOf[%v]: %v is not a struct", t, t)
	}
	f, ok := t.FieldByName(field)
	if !ok || len(f.Index) != 1 {
		return Elem{}, vk.Invalidf("vkcompact: StructOf[%v]: no field %q", t, field)
	}
	key, ok := TypeOf(f.Type)
	if !ok {
		return Elem{}, vk.Invalidf("vkcompact: StructOf[%v]: field %s is a %v, not one of the key types (uint32, int32, float32, uint64, int64, float64)", t, field, f.Type)
	}
	e := Struct(uint32(t.Size()), uint32(f.Offset), key)
	if err := e.Check(); err != nil {
		return Elem{}, fmt.Errorf("vkcompact: StructOf[%v](%q): %w", t, field, err)
	}
	return e, nil
}
