package vkcompact

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/vkcompact/vkcompact/internal/errs"
)

// Type is the type of an element's key: the element itself for plain
// arrays, or one field of a struct. The zero Type, Unset, gives none: the
// helpers that take a Go slice (compact.SelectSlice, radix.SortSlice,
// scan.ScanSlice and their kin) take the key type from the slice's Go
// type, and the plans, which have no Go type, take Uint32
// (Type.OrUint32).
type Type uint8

// The key types, after Unset.
const (
	// Unset is no type given: inferred from the Go type where there is
	// one, Uint32 otherwise.
	Unset Type = iota
	Uint32
	Int32
	Float32
	Uint64
	Int64
	Float64
)

var typeNames = [...]string{"unset", "u32", "i32", "f32", "u64", "i64", "f64"}

// String returns the type's short name: u32, i32, f32, u64, i64 or f64,
// and unset for Unset.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Size returns the key's size in bytes (4 or 8), or 0 for Unset and an
// unknown type.
func (t Type) Size() uint32 {
	switch t {
	case Uint32, Int32, Float32:
		return 4
	case Uint64, Int64, Float64:
		return 8
	}
	return 0
}

// OrUint32 returns t, or Uint32 where t is Unset: the key type of a plan
// given none.
func (t Type) OrUint32() Type {
	if t == Unset {
		return Uint32
	}
	return t
}

// ParseType parses a short type name (u32, i32, f32, u64, i64, f64).
// "unset" is not a type name.
func ParseType(s string) (Type, error) {
	for t := Uint32; t <= Float64; t++ {
		if s == typeNames[t] {
			return t, nil
		}
	}
	return Unset, errs.Invalidf("unknown type %q (want one of %s)", s, strings.Join(typeNames[Uint32:], ", "))
}

// Elem describes the elements: plain keys, or structs of Stride bytes with
// the key at byte KeyOffset. The zero Elem gives nothing: the helpers that
// take a Go slice infer it from the slice's element type (a key type's
// own keys; a struct's layout needs at least the key's offset), and the
// plans take it as plain uint32 keys. Any other Elem, Plain(Uint32)
// included, is what the caller said, and those helpers check it against
// the Go type, refusing a conflict.
type Elem struct {
	// Key is the key's type. Unset takes the Go type's where a helper has
	// one (for a struct, the type of the field at KeyOffset), and Uint32
	// in a plan.
	Key Type
	// Stride is the bytes per element, a multiple of 4 from 4 to
	// MaxStride; 0 means the Go type's size in a helper, and the key's
	// size in a plan.
	Stride    uint32
	KeyOffset uint32 // byte offset of the key in the element, a multiple of 4
}

// MaxStride is the largest element, in bytes.
const MaxStride = 256

// Plain describes an array of keys of type t. Plain(Unset) is the zero
// Elem.
func Plain(t Type) Elem { return Elem{Key: t} }

// Struct describes structs of stride bytes with a key of type t at byte
// offset off.
func Struct(stride uint32, off uint32, t Type) Elem {
	return Elem{Key: t, Stride: stride, KeyOffset: off}
}

// String writes e as the call that makes it: Plain(f32), or
// Struct(32, 28, f32).
func (e Elem) String() string {
	if e.Stride == 0 && e.KeyOffset == 0 {
		return fmt.Sprintf("Plain(%v)", e.Key)
	}
	return fmt.Sprintf("Struct(%d, %d, %v)", e.Stride, e.KeyOffset, e.Key)
}

// Size returns the element's size in bytes: the Stride, or without one
// the key's size (an unset key's as Uint32's).
func (e Elem) Size() uint32 {
	if e.Stride == 0 {
		return e.Key.OrUint32().Size()
	}
	return e.Stride
}

// Check reports what is wrong with e as a plan takes it, if anything: an
// unset key is checked as Uint32.
func (e Elem) Check() error {
	key := e.Key.OrUint32()
	if key.Size() == 0 {
		return errs.Invalidf("vkcompact: unknown key type %d", e.Key)
	}
	s := e.Size()
	if s%4 != 0 || s < 4 || s > MaxStride {
		return errs.Invalidf("vkcompact: element stride %d bytes: want a multiple of 4 from 4 to %d", s, MaxStride)
	}
	if e.KeyOffset%4 != 0 {
		return errs.Invalidf("vkcompact: key offset %d is not a multiple of 4", e.KeyOffset)
	}
	if e.KeyOffset+key.Size() > s || e.KeyOffset >= s {
		return errs.Invalidf("vkcompact: a %s key at byte %d does not fit in a %d-byte element", key, e.KeyOffset, s)
	}
	return nil
}

// TypeOf returns the key type of a Go type (by its kind: a named type
// whose underlying type is float32 is Float32), and Unset and false for a
// type that is not one of them.
func TypeOf(t reflect.Type) (Type, bool) {
	if t == nil {
		return Unset, false
	}
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
	return Unset, false
}

// StructOf describes the elements of a slice of the struct T, with the
// key at T's field named field, of one of the key types: for example
// vkcompact.StructOf[Particle]("Life"). The field's offset must be a
// multiple of 4 and T's size a multiple of 4 up to MaxStride.
func StructOf[T any](field string) (Elem, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return Elem{}, errs.Invalidf("vkcompact: StructOf[%v]: %v is not a struct", t, t)
	}
	f, ok := t.FieldByName(field)
	if !ok || len(f.Index) != 1 {
		return Elem{}, errs.Invalidf("vkcompact: StructOf[%v]: no field %q", t, field)
	}
	key, ok := TypeOf(f.Type)
	if !ok {
		return Elem{}, errs.Invalidf("vkcompact: StructOf[%v]: field %s is a %v, not one of the key types (uint32, int32, float32, uint64, int64, float64)", t, field, f.Type)
	}
	e := Struct(uint32(t.Size()), uint32(f.Offset), key)
	if err := e.Check(); err != nil {
		return Elem{}, fmt.Errorf("vkcompact: StructOf[%v](%q): %w", t, field, err)
	}
	return e, nil
}
