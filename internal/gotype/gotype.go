// Package gotype checks what a caller said about the elements (a key type,
// an element layout) against the Go type of the slice they come in, for
// the helpers that take both: an unset key type or a zero layout is taken
// from the Go type, and a conflict is refused with an error naming both.
// Errors wrap vk.ErrInvalid and leave the operation's name to the caller.
package gotype

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
)

// Key returns the key type of elements of Go type t where the caller
// gave key (named by field, such as "ByKey.Value"): t's own where key is
// Unset, key where the two agree, and otherwise an error naming both.
func Key(t reflect.Type, key vkcompact.Type, field string) (vkcompact.Type, error) {
	own, ok := vkcompact.TypeOf(t)
	switch {
	case !ok:
		return key, errs.Invalidf("a slice of %v: not one of the key types (%s)", t, keyTypes)
	case key != vkcompact.Unset && key != own:
		return key, errs.Invalidf("%s %v does not match the elements' Go type %v (%v): leave %s unset to take it from the slice",
			field, key, t, own, field)
	}
	return own, nil
}

// PlainKey returns the key type of e where e describes plain keys (the
// zero Elem, vkcompact.Plain, or a Struct of the key's own size with the
// key at byte 0), and an error naming field (such as "Scan.Elem")
// otherwise. An unset key stays Unset.
func PlainKey(e vkcompact.Elem, field string) (vkcompact.Type, error) {
	if e.KeyOffset != 0 || e.Stride != 0 && e.Stride != e.Key.OrUint32().Size() {
		return e.Key, errs.Invalidf("%s %v describes structs: want plain keys (vkcompact.Plain)", field, e)
	}
	return e.Key, nil
}

// Plain returns the key type of plain elements of Go type t where the
// caller gave e (named by field, such as "Scan.Elem"): t's own where e's
// key is Unset (the zero Elem), e's where the two agree, and otherwise an
// error naming both; e describing structs is refused as PlainKey refuses
// it.
func Plain(t reflect.Type, e vkcompact.Elem, field string) (vkcompact.Type, error) {
	key, err := PlainKey(e, field)
	if err != nil {
		return key, err
	}
	own, ok := vkcompact.TypeOf(t)
	switch {
	case !ok:
		return key, errs.Invalidf("a slice of %v: not one of the key types (%s)", t, keyTypes)
	case key != vkcompact.Unset && key != own:
		return key, errs.Invalidf("%s %v does not match the elements' Go type %v (%v): leave %s zero to take it from the slice",
			field, e, t, own, field)
	}
	return own, nil
}

// keyTypes names the Go types of the key types.
const keyTypes = "uint32, int32, float32, uint64, int64, float64"

// Elem returns the layout of elements of Go type t where the caller gave
// e (named by field, such as "Selection.Elem"). A zero e is t's own keys
// when t is a key type; a struct needs at least the key's offset. Any
// other e must fit t: a Stride of 0 or t's size, and at KeyOffset the
// start of a value (t itself, a field, an array element, nested) of a key
// type, which is e's Key, or becomes it where e's Key is Unset. The
// returned Elem's Stride is t's size.
func Elem(t reflect.Type, e vkcompact.Elem, field string) (vkcompact.Elem, error) {
	if t == nil {
		return e, errs.Invalidf("%s: no Go type", field)
	}
	size := t.Size()
	if e == (vkcompact.Elem{}) {
		key, ok := vkcompact.TypeOf(t)
		if !ok {
			return e, errs.Invalidf("a slice of %v: say where its key is (%s: vkcompact.StructOf or vkcompact.Struct)", t, field)
		}
		return vkcompact.Struct(uint32(size), 0, key), nil
	}
	if e.Stride != 0 && uint64(e.Stride) != uint64(size) {
		return e, errs.Invalidf("%s %v does not match the elements' Go type %v: a stride of %d bytes for a %d-byte %v",
			field, e, t, e.Stride, size, t)
	}
	at, err := keyAt(t, uintptr(e.KeyOffset))
	if err != nil {
		return e, errs.Invalidf("%s %v does not match the elements' Go type %v: %v", field, e, t, err)
	}
	if e.Key != vkcompact.Unset && e.Key != at.key {
		return e, errs.Invalidf("%s %v does not match the elements' Go type %v: %s is a %v (%v), not %v",
			field, e, t, at.name(), at.typ, at.key, e.Key)
	}
	return vkcompact.Struct(uint32(size), e.KeyOffset, at.key), nil
}

// place is a value inside an element: where it starts, the path of
// fields and indices that reaches it ("" for the element itself), its Go
// type, and its key type (Unset for none).
type place struct {
	start uintptr
	path  string
	typ   reflect.Type
	key   vkcompact.Type
}

// name describes p inside an element.
func (p place) name() string {
	if p.path == "" {
		return "the element itself"
	}
	return fmt.Sprintf("%s at byte %d", strings.TrimPrefix(p.path, "."), p.start)
}

// keyAt finds the value of a key type that starts at byte off of a t,
// or says why none does: off past t's end, in padding, inside a key
// (not at its start), or in a value of another type.
func keyAt(t reflect.Type, off uintptr) (place, error) {
	if off >= t.Size() {
		return place{}, fmt.Errorf("byte %d is past its end (%d bytes)", off, t.Size())
	}
	p, ok := descend(place{typ: t}, off)
	switch {
	case !ok:
		return p, fmt.Errorf("byte %d is padding, in no field", off)
	case p.key == vkcompact.Unset:
		return p, fmt.Errorf("byte %d lies in %s, a %v, not one of the key types (%s)", off, p.name(), p.typ, keyTypes)
	case p.start != off:
		return p, fmt.Errorf("byte %d lies inside %s, a %v, not at its start", off, p.name(), p.typ)
	}
	return p, nil
}

// descend returns the innermost value of p that holds byte off (an
// offset from the element's start): p itself where it is a key type or
// neither a struct nor an array. It returns false where off falls in a
// struct's padding.
func descend(p place, off uintptr) (place, bool) {
	if key, ok := vkcompact.TypeOf(p.typ); ok {
		p.key = key
		return p, true
	}
	rel := off - p.start
	switch p.typ.Kind() {
	case reflect.Struct:
		for i := range p.typ.NumField() {
			f := p.typ.Field(i)
			if rel >= f.Offset && rel < f.Offset+f.Type.Size() {
				return descend(place{start: p.start + f.Offset, path: p.path + "." + f.Name, typ: f.Type}, off)
			}
		}
		return p, false
	case reflect.Array:
		if es := p.typ.Elem().Size(); es > 0 {
			i := rel / es
			return descend(place{start: p.start + i*es, path: fmt.Sprintf("%s[%d]", p.path, i), typ: p.typ.Elem()}, off)
		}
	}
	return p, true
}
