package glslblock

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Buffer is a storage-buffer block, layout(binding = N) [qualifiers]
// buffer Name { ... }: its binding, its block name, and whether the
// shader declares it readonly or writeonly (neither: it reads and writes).
type Buffer struct {
	Binding   uint32
	Name      string
	ReadOnly  bool
	WriteOnly bool
}

// Use is the buffer's access as the Go bindings structs write it: "read",
// "write" or "readwrite".
func (b Buffer) Use() string {
	switch {
	case b.ReadOnly && !b.WriteOnly:
		return "read"
	case b.WriteOnly && !b.ReadOnly:
		return "write"
	}
	return "readwrite"
}

// bufferDecl reads "[qualifiers] buffer Name" from toks[i:]; binding is the
// layout's binding value. A uniform block is not a storage buffer and is
// refused, as the kernels bind storage buffers only.
func bufferDecl(toks []string, i int, binding string) (Buffer, int, error) {
	n, err := strconv.ParseUint(binding, 0, 32)
	if err != nil {
		return Buffer{}, 0, fmt.Errorf("binding %q: %w", binding, err)
	}
	b := Buffer{Binding: uint32(n)}
	for ; i < len(toks); i++ {
		switch toks[i] {
		case "readonly":
			b.ReadOnly = true
		case "writeonly":
			b.WriteOnly = true
		case "coherent", "volatile", "restrict":
		case "buffer":
			if i+1 >= len(toks) || !isIdent(toks[i+1]) {
				return Buffer{}, 0, fmt.Errorf("binding %d: buffer without a block name", n)
			}
			b.Name = toks[i+1]
			return b, i + 2, nil
		default:
			return Buffer{}, 0, fmt.Errorf("binding %d: %q where a storage buffer's qualifiers or \"buffer\" belong", n, toks[i])
		}
	}
	return Buffer{}, 0, fmt.Errorf("binding %d: declaration ends before \"buffer\"", n)
}

func addBuffer(d *Decls, b Buffer) error {
	for _, o := range d.Buffers {
		if o.Binding == b.Binding {
			return fmt.Errorf("binding %d names both %s and %s", b.Binding, o.Name, b.Name)
		}
	}
	d.Buffers = append(d.Buffers, b)
	return nil
}

// BindingFields returns the bindings of a Go bindings struct (see
// pipeline.Bindings): for field i, binding i, its GLSL block name (the
// field's `glsl` tag, else its name) and its `use` tag.
func BindingFields(bindings any) ([]Buffer, error) {
	t := reflect.TypeOf(bindings)
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("bindings %T: not a struct", bindings)
	}
	var out []Buffer
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Name
		if tag, ok := f.Tag.Lookup("glsl"); ok {
			name = tag
		}
		b := Buffer{Binding: uint32(i), Name: name}
		switch use := f.Tag.Get("use"); use {
		case "read":
			b.ReadOnly = true
		case "write":
			b.WriteOnly = true
		case "readwrite":
		default:
			return nil, fmt.Errorf("bindings %T: field %s: use tag %q, not read, write or readwrite", bindings, f.Name, use)
		}
		out = append(out, b)
	}
	return out, nil
}

// covers reports whether the GLSL block's qualifiers allow the Go use: a
// readonly block only "read", a writeonly block only "write", a block with
// neither any use (a kernel may bind, say, an in-place range without
// qualifiers and still only read it: the Go use is what the barriers are
// made from, so it must say what the kernel does).
func covers(glsl, goUse Buffer) bool {
	return glsl.Use() == "readwrite" || glsl.Use() == goUse.Use()
}

// CompareBindings compares a Go bindings struct's bindings (BindingFields)
// with a shader's storage buffers, binding by binding: the block name, and
// the use, which the GLSL's qualifiers must allow (covers). It returns an
// error naming every difference, or nil.
func CompareBindings(goBindings, glsl []Buffer) error {
	var errs []string
	for i := range max(len(goBindings), len(glsl)) {
		switch {
		case i >= len(glsl):
			errs = append(errs, fmt.Sprintf("binding %d: Go %s (%s), GLSL none", i, goBindings[i].Name, goBindings[i].Use()))
		case glsl[i].Binding != uint32(i):
			errs = append(errs, fmt.Sprintf("GLSL bindings skip %d (next is %d, %s)", i, glsl[i].Binding, glsl[i].Name))
			return fmt.Errorf("%s", strings.Join(errs, "; "))
		case i >= len(goBindings):
			errs = append(errs, fmt.Sprintf("binding %d: Go none, GLSL %s (%s)", i, glsl[i].Name, glsl[i].Use()))
		case goBindings[i].Name != glsl[i].Name || !covers(glsl[i], goBindings[i]):
			errs = append(errs, fmt.Sprintf("binding %d: Go %s (%s), GLSL %s (%s)", i, goBindings[i].Name, goBindings[i].Use(), glsl[i].Name, glsl[i].Use()))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
