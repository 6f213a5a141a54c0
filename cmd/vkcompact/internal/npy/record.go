package npy

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
)

// Record is a structured dtype, records: a .npy header's descr that is a
// list of fields, as NumPy's dtype.descr writes it and
// numpy.lib.format.descr_to_dtype reads it back. Each field is a tuple
// (name, dtype) or (name, dtype, shape): name a string, or (title, name);
// dtype a dtype string ('<f4'), a list of fields (a nested struct), or a
// tuple (dtype, shape); shape a tuple of integers (or one integer), which
// makes the field a sub-array. The fields follow one another, each at the
// offset where the one before ends; an unnamed void field (name "", dtype '|V3') is
// padding, which NumPy writes where the dtype has gaps (align=True, or
// explicit offsets) and at the end when the itemsize is larger.
type Record struct {
	// Fields are the named fields in the order of the descr, each
	// nested struct's own fields after it (named by their path,
	// "pos.x"); the fields of a sub-array of structs are not listed.
	Fields   []Field
	ItemSize uint64 // bytes per record
	// Object is set when a field holds Python objects: the path of the
	// first such field ("" for padding). NumPy pickles such arrays.
	Object  *string
	Literal string // the descr as NumPy writes it: a Python list literal
}

// Field is one field of a record.
type Field struct {
	Name   string   // its path: "x", or "pos.x" in the struct field pos
	Offset uint64   // its byte offset in the record
	Size   uint64   // bytes, a sub-array's all
	Descr  string   // a value's dtype ('<f4'), or a sub-array's item dtype; "" for a struct
	Shape  []uint64 // a sub-array's shape; nil for one value
	Object bool     // it holds Python objects, somewhere
	Parent int      // the index of its struct among the record's fields; -1 at the top
}

// maxRecord bounds a dtype's size in bytes while it is parsed, so that
// sizes and offsets cannot overflow: larger than any record an input
// takes, it is refused as too wide further on.
const maxRecord = 1 << 40

// String describes the field for messages: its name, dtype and shape:
// "'x': '<f4'", "'v': '<f4' (3,)", "'pos': a struct".
func (f *Field) String() string {
	s := pyRepr(f.Name) + ": "
	switch {
	case f.Descr == "":
		s += "a struct"
	default:
		s += pyRepr(f.Descr)
	}
	if f.Shape != nil {
		s += " " + FormatShape(f.Shape)
	}
	return s
}

// KeyType returns the key type of a field that holds one little-endian
// value of a type the library has, and Unset for any other field.
func (f *Field) KeyType() vkcompact.Type {
	if f.Shape != nil {
		return vkcompact.Unset
	}
	return KeyType(f.Descr)
}

// FormatShape writes a shape as Python does: (3,), (2, 3), ().
func FormatShape(shape []uint64) string {
	if len(shape) == 1 {
		return fmt.Sprintf("(%d,)", shape[0])
	}
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.FormatUint(d, 10)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// fieldType is a dtype of a record's field while it is parsed: its size,
// and what it is.
type fieldType struct {
	size     uint64
	descr    string   // a value's dtype string; "" for a struct
	fields   []Field  // a struct's, at offsets in the struct
	shape    []uint64 // a sub-array's shape
	object   bool     // holds Python objects
	objectAt string   // in a struct: the path of the first field that holds them
}

// parseRecord parses a structured descr, the list of fields.
func parseRecord(descr pyList) (*Record, error) {
	d, err := parseStruct(descr)
	if err != nil {
		return nil, err
	}
	// A nested field is named by its path, "pos.x", and a name may hold
	// a dot itself: two fields of one path could not be told apart.
	paths := make(map[string]int, len(d.fields))
	for i, f := range d.fields {
		if j, ok := paths[f.Name]; ok {
			return nil, fmt.Errorf("two fields have the path %s (%s and %s): a field's name holds a dot", pyRepr(f.Name), d.fields[j].String(), f.String())
		}
		paths[f.Name] = i
	}
	r := &Record{Fields: d.fields, ItemSize: d.size, Literal: pyRepr(descr)}
	if d.object {
		r.Object = &d.objectAt
	}
	return r, nil
}

// parseDtype parses a field's dtype: a string, a list of fields or a
// (dtype, shape) tuple.
func parseDtype(v any) (fieldType, error) {
	switch v := v.(type) {
	case string:
		size, pickled, err := descrSize(v)
		if err != nil {
			return fieldType{}, err
		}
		if pickled {
			size = 8 // a pointer, as NumPy lays an object field out
		}
		return fieldType{size: size, descr: v, object: pickled}, nil
	case pyList:
		return parseStruct(v)
	case pyTuple:
		if len(v) != 2 {
			return fieldType{}, fmt.Errorf("dtype %s: want a dtype string, a list of fields or (dtype, shape)", pyRepr(v))
		}
		d, err := parseDtype(v[0])
		if err != nil {
			return fieldType{}, err
		}
		return subArray(d, v[1])
	}
	return fieldType{}, fmt.Errorf("dtype %s: want a dtype string, a list of fields or (dtype, shape)", pyRepr(v))
}

// subArray returns d repeated in the shape v, a tuple of integers or one
// integer, as numpy.dtype((d, v)) makes it: an empty shape leaves d as
// it is, and a sub-array of sub-arrays is one of the shapes joined.
func subArray(d fieldType, v any) (fieldType, error) {
	var shape []uint64
	switch v := v.(type) {
	case uint64:
		shape = []uint64{v}
	case pyTuple:
		for _, n := range v {
			k, ok := n.(uint64)
			if !ok {
				return fieldType{}, fmt.Errorf("sub-array shape %s: want a tuple of integers", pyRepr(v))
			}
			shape = append(shape, k)
		}
	default:
		return fieldType{}, fmt.Errorf("sub-array shape %s: want a tuple of integers", pyRepr(v))
	}
	if len(shape) == 0 {
		return d, nil
	}
	size := d.size
	for _, n := range shape {
		hi, lo := bits.Mul64(size, n)
		if hi != 0 || lo > maxRecord {
			return fieldType{}, fmt.Errorf("sub-array of shape %s: too large", FormatShape(shape))
		}
		size = lo
	}
	d.shape = append(shape, d.shape...)
	d.size = size
	d.fields = nil // a sub-array of structs: its fields are arrays, no keys
	return d, nil
}

// parseStruct parses a list of fields, as descr_to_dtype reads it.
func parseStruct(list pyList) (fieldType, error) {
	d := fieldType{}
	names := map[string]bool{}
	for i, item := range list {
		t, ok := item.(pyTuple)
		if !ok || len(t) < 2 || len(t) > 3 {
			return fieldType{}, fmt.Errorf("field %d, %s: want (name, dtype) or (name, dtype, shape)", i, pyRepr(item))
		}
		name, title, titled := "", "", false
		switch n := t[0].(type) {
		case string:
			name = n
		case pyTuple:
			var ok1, ok2 bool
			if len(n) == 2 {
				title, ok1 = n[0].(string)
				name, ok2 = n[1].(string)
			}
			if !ok1 || !ok2 {
				return fieldType{}, fmt.Errorf("field %d: name %s: want a string or (title, name)", i, pyRepr(n))
			}
			titled = true
		default:
			return fieldType{}, fmt.Errorf("field %d: name %s: want a string or (title, name)", i, pyRepr(t[0]))
		}
		if j := strings.IndexFunc(name+title, func(r rune) bool { return r < ' ' || r == 0x7f }); j >= 0 {
			return fieldType{}, fmt.Errorf("field %d: name %q has control characters", i, name)
		}
		ft, err := parseDtype(t[1])
		if err == nil && len(t) == 3 {
			ft, err = subArray(ft, t[2])
		}
		if err != nil {
			return fieldType{}, fmt.Errorf("field %s: %w", pyRepr(name), err)
		}
		off := d.size
		if d.size += ft.size; d.size > maxRecord {
			return fieldType{}, errors.New("a record of more than 2^40 bytes")
		}
		if ft.object && !d.object {
			d.object, d.objectAt = true, name
			if ft.objectAt != "" {
				d.objectAt += "." + ft.objectAt
			}
		}
		// NumPy's padding: an unnamed field of void bytes, or of any
		// sub-array (whose type is void too), not a struct.
		void := len(ft.descr) > 1 && ft.descr[1] == 'V'
		if !titled && name == "" && ft.fields == nil && (ft.shape != nil || void) {
			continue
		}
		keys := []string{name}
		if titled {
			keys = append(keys, title)
		}
		for _, n := range keys {
			if names[n] {
				return fieldType{}, fmt.Errorf("field name %s appears twice (as a name or a title)", pyRepr(n))
			}
			names[n] = true
		}
		f := Field{Name: name, Offset: off, Size: ft.size, Descr: ft.descr, Shape: ft.shape, Object: ft.object, Parent: -1}
		at := len(d.fields)
		d.fields = append(d.fields, f)
		for _, sub := range ft.fields {
			sub.Name = name + "." + sub.Name
			sub.Offset += off
			if sub.Parent < 0 {
				sub.Parent = at
			} else {
				sub.Parent += at + 1
			}
			d.fields = append(d.fields, sub)
		}
	}
	return d, nil
}

// FieldList lists a record's fields for a message: "'x': '<f4', 'y':
// '<f4', 'pos': a struct, 'pos.x': '<f4'", the first 24 of them.
func (r *Record) FieldList() string {
	if len(r.Fields) == 0 {
		return "none"
	}
	var s []string
	for i := range r.Fields {
		if i == 24 {
			s = append(s, fmt.Sprintf("and %d more", len(r.Fields)-i))
			break
		}
		s = append(s, r.Fields[i].String())
	}
	return strings.Join(s, ", ")
}

// Field returns the field of the name (a nested field's path, "pos.x"),
// or nil.
func (r *Record) Field(name string) *Field {
	for i := range r.Fields {
		if r.Fields[i].Name == name {
			return &r.Fields[i]
		}
	}
	return nil
}

// Offsets lists a record's fields with their offsets for a message:
// "'x': '<f4' at 0, 'y': '<f4' at 4".
func (r *Record) Offsets() string {
	if len(r.Fields) == 0 {
		return "none"
	}
	var s []string
	for i := range r.Fields {
		if i == 24 {
			s = append(s, fmt.Sprintf("and %d more", len(r.Fields)-i))
			break
		}
		s = append(s, fmt.Sprintf("%s at %d", &r.Fields[i], r.Fields[i].Offset))
	}
	return strings.Join(s, ", ")
}
