package glslblock

import (
	"fmt"
	"io/fs"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// glslTypes maps the Go field kinds a block may hold to their GLSL types:
// each is one 32-bit word (a bool as a VkBool32).
var glslTypes = map[reflect.Kind]string{
	reflect.Uint32:  "uint",
	reflect.Int32:   "int",
	reflect.Float32: "float",
	reflect.Bool:    "bool",
}

// Words returns the fields of block, a struct, as 32-bit words in field
// order: uint32 as it is, int32 in two's complement, float32 as its IEEE
// 754 bits, bool as 1 or 0. The fields of an embedded struct stand in its
// place. It panics on any other field type, a programming error that
// Fields reports. A struct of 32-bit numbers only (push constants,
// typically: Words runs for every dispatch) is copied as it lies in
// memory, where it has no padding; others are read field by field.
func Words[T any](block T) []uint32 {
	t := reflect.TypeFor[T]()
	if plainWords(t) {
		return slices.Clone(unsafe.Slice((*uint32)(unsafe.Pointer(&block)), t.Size()/4))
	}
	v := reflect.ValueOf(block)
	return appendWords(make([]uint32, 0, v.NumField()), v)
}

// plain caches plainWords by type.
var plain sync.Map // reflect.Type -> bool

// plainWords reports whether t is a struct of 32-bit numbers (uint32,
// int32, float32; embedded structs of them), which lies in memory as its
// words.
func plainWords(t reflect.Type) bool {
	if ok, found := plain.Load(t); found {
		return ok.(bool)
	}
	ok := false
	if t.Kind() == reflect.Struct {
		n, all := plainCount(t)
		ok = all && n > 0 && t.Size() == 4*n
	}
	plain.Store(t, ok)
	return ok
}

// plainCount counts the 32-bit numbers of struct t, embedded structs'
// included; false where a field is anything else.
func plainCount(t reflect.Type) (uintptr, bool) {
	n := uintptr(0)
	for i := range t.NumField() {
		f := t.Field(i)
		switch f.Type.Kind() {
		case reflect.Uint32, reflect.Int32, reflect.Float32:
			n++
		case reflect.Struct:
			m, ok := plainCount(f.Type)
			if !ok || !f.Anonymous {
				return 0, false
			}
			n += m
		default:
			return 0, false
		}
	}
	return n, true
}

func appendWords(out []uint32, v reflect.Value) []uint32 {
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Uint32:
			out = append(out, uint32(f.Uint()))
		case reflect.Int32:
			out = append(out, uint32(int32(f.Int())))
		case reflect.Float32:
			out = append(out, math.Float32bits(float32(f.Float())))
		case reflect.Bool:
			w := uint32(0)
			if f.Bool() {
				w = 1
			}
			out = append(out, w)
		case reflect.Struct:
			if !v.Type().Field(i).Anonymous {
				panic(fmt.Sprintf("glslblock: field %s of %s: a struct field must be embedded", v.Type().Field(i).Name, v.Type()))
			}
			out = appendWords(out, f)
		default:
			panic(fmt.Sprintf("glslblock: field %s of %s: type %s is not a 32-bit GLSL scalar", v.Type().Field(i).Name, v.Type(), f.Type()))
		}
	}
	return out
}

// Fields returns the GLSL fields that block, a struct, stands for, in
// the order Words writes them: each field's name is its `glsl` tag, or
// its Go name without one; its type the GLSL type of its kind (uint32
// "uint", int32 "int", float32 "float", bool "bool").
func Fields(block any) ([]Field, error) {
	t := reflect.TypeOf(block)
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("glslblock: %v is not a struct", t)
	}
	return appendFields(nil, t)
}

func appendFields(out []Field, t reflect.Type) ([]Field, error) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			var err error
			if out, err = appendFields(out, f.Type); err != nil {
				return nil, err
			}
			continue
		}
		typ, ok := glslTypes[f.Type.Kind()]
		if !ok {
			return nil, fmt.Errorf("glslblock: field %s of %s: type %s is not a 32-bit GLSL scalar", f.Name, t, f.Type)
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("glsl"); ok {
			name = tag
		}
		out = append(out, Field{Type: typ, Name: name})
	}
	return out, nil
}

// Compare returns nil where goFields (from Fields) match glsl field for
// field, names compared without regard to case, and otherwise an error
// listing every difference.
func Compare(goFields, glsl []Field) error {
	var diffs []string
	for i := range max(len(goFields), len(glsl)) {
		switch {
		case i >= len(glsl):
			diffs = append(diffs, fmt.Sprintf("%d: Go %s %s, GLSL nothing", i, goFields[i].Type, goFields[i].Name))
		case i >= len(goFields):
			diffs = append(diffs, fmt.Sprintf("%d: Go nothing, GLSL %s %s", i, glsl[i].Type, glsl[i].Name))
		case goFields[i].Type != glsl[i].Type || !strings.EqualFold(goFields[i].Name, glsl[i].Name):
			diffs = append(diffs, fmt.Sprintf("%d: Go %s %s, GLSL %s %s", i, goFields[i].Type, goFields[i].Name, glsl[i].Type, glsl[i].Name))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d of %d fields differ: %s", len(diffs), max(len(goFields), len(glsl)), strings.Join(diffs, "; "))
	}
	return nil
}

// ConstantFields returns the fields of constants whose IDs run 0, 1, 2,
// ... in order, for Compare against a struct of specialization constants
// (field i is constant_id i); an error where an ID is missing.
func ConstantFields(constants []Constant) ([]Field, error) {
	out := make([]Field, len(constants))
	for i, c := range constants {
		if c.ID != uint32(i) {
			return nil, fmt.Errorf("glslblock: constant %s has constant_id %d where %d was next: the IDs must run 0, 1, 2, ... without a gap", c.Name, c.ID, i)
		}
		out[i] = c.Field
	}
	return out, nil
}

// Interface is a kernel's Go side: its name (its GLSL file is name.comp),
// the words of push constants its pipeline.Kernel declares, and zero
// values of its push constant, specialization constant and bindings
// structs.
type Interface struct {
	Name                 string
	PushWords            int
	Push, Spec, Bindings any
}

// CheckKernel compares a kernel's Go push and specialization constants
// (zero values of its structs) with the GLSL source name in fsys,
// includes followed: push field for field against the Push block's
// members, spec field i against constant_id i, each by name, order and
// type; pushWords (the Kernel's) against push's words; and the bindings
// struct field for field against the storage buffers, binding by binding,
// by block name and use (CompareBindings). It returns an error naming
// every difference, or nil.
func CheckKernel(fsys fs.FS, name string, pushWords int, push, spec, bindings any) error {
	d, err := Parse(fsys, name)
	if err != nil {
		return err
	}
	var errs []string
	goPush, err := Fields(push)
	if err != nil {
		return err
	}
	if err := Compare(goPush, d.Push); err != nil {
		errs = append(errs, fmt.Sprintf("push constants %T against the GLSL Push block: %v", push, err))
	}
	if pushWords != len(goPush) {
		errs = append(errs, fmt.Sprintf("PushWords %d, %T has %d fields", pushWords, push, len(goPush)))
	}
	goSpec, err := Fields(spec)
	if err != nil {
		return err
	}
	glslSpec, err := ConstantFields(d.Constants)
	if err != nil {
		return err
	}
	if err := Compare(goSpec, glslSpec); err != nil {
		errs = append(errs, fmt.Sprintf("specialization constants %T against the GLSL constant_ids: %v", spec, err))
	}
	goBindings, err := BindingFields(bindings)
	if err != nil {
		return err
	}
	if err := CompareBindings(goBindings, d.Buffers); err != nil {
		errs = append(errs, fmt.Sprintf("bindings %T against the GLSL storage buffers: %v", bindings, err))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %s", name, strings.Join(errs, "; "))
	}
	return nil
}
