package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/vk"
)

// elemFlags are what a file command's flags say of the elements of its
// -in file: -type, and for the commands that take structs -stride and
// -key. The input's .npy header says the rest: a plain array's dtype is
// the type, and a record array's dtype (a structured dtype) gives the
// stride and, by its name, the key field.
type elemFlags struct {
	op      string          // the command
	set     map[string]bool // the flags given
	typ     string          // -type
	stride  uint            // -stride
	key     string          // -key: OFFSET:T, or a record's field name
	types   []vkcompact.Type
	structs bool   // the command takes structs and records (-stride, -key)
	missing string // the message for a raw file of no -type
}

// elemLayout is the elements of an input as the flags and the file give
// them: their layout on the GPU, their count, and how they are written
// out.
type elemLayout struct {
	elem  vkcompact.Elem // on the GPU
	n     uint64
	dtype string // the outputs' .npy dtype, as a Python literal: '<f4', '|V32', a record's fields
	// size and keyOffset are the element's bytes and its key's offset
	// in the file: the GPU's, except for records repacked (records).
	size, keyOffset uint64
	field           string // a record's key field, by name; "" for others
	// records lays out a record array's records for the GPU: a record
	// whose size or key offset is not a multiple of 4 goes in a slot of
	// a multiple of 4 bytes, at the byte that aligns its key.
	records vkcompact.Records
}

// typeList writes types for a message: "u32, i32, f32 or u64".
func typeList(types []vkcompact.Type) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.String()
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// dtypeList writes the dtypes of types for a message: "'<u4', '<i4',
// '<f4' or '<u8'".
func dtypeList(types []vkcompact.Type) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = "'" + npy.Dtype(t) + "'"
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// resolve checks the flags against the input and returns its elements.
func (f *elemFlags) resolve(in *inputFile) (elemLayout, error) {
	if in.npy != nil && in.npy.Record != nil {
		return f.records(in)
	}
	var e vkcompact.Elem
	var err error
	switch {
	case f.structs && f.set["type"] && (f.set["stride"] || f.set["key"]):
		return elemLayout{}, usagef("give -type T for plain elements, or -stride BYTES and -key OFFSET:T for structs, not both")
	case f.set["key"] && !f.set["stride"] && !strings.Contains(f.key, ":"):
		return elemLayout{}, f.fieldWithoutRecords(in)
	case f.set["stride"] || f.set["key"]:
		if e, err = f.structElem(); err != nil {
			return elemLayout{}, err
		}
	case f.set["type"]:
		t, err := f.parseType()
		if err != nil {
			return elemLayout{}, err
		}
		e = vkcompact.Plain(t)
	case in.npy == nil:
		return elemLayout{}, usageError{fmt.Errorf("%s", f.missing)}
	default:
		t, err := f.npyType(in)
		if err != nil {
			return elemLayout{}, err
		}
		e = vkcompact.Plain(t)
	}
	n, err := in.elements(e)
	if err != nil {
		return elemLayout{}, err
	}
	l := elemLayout{elem: e, n: n, dtype: npy.Quote(npy.Dtype(e.Key)), size: uint64(e.Size()), keyOffset: uint64(e.KeyOffset)}
	if e.Stride != 0 {
		l.dtype = npy.Quote(fmt.Sprintf("|V%d", e.Stride))
	}
	return l, nil
}

// fieldWithoutRecords is the error of -key FIELD (a name, not
// OFFSET:T) on an input that is not a record array.
func (f *elemFlags) fieldWithoutRecords(in *inputFile) error {
	what := "a raw file"
	if in.npy != nil {
		what = fmt.Sprintf("a plain array (dtype '%s')", in.npy.Descr)
	}
	return usagef("-key %s names a field: -key FIELD needs a record array (a .npy of a structured dtype), and %s is %s; for structs without field names give -stride BYTES -key OFFSET:T",
		f.key, in.name, what)
}

// parseType parses -type: one of the command's types.
func (f *elemFlags) parseType() (vkcompact.Type, error) {
	if len(f.types) < 6 {
		return parseTypeOf(f.op, f.typ, f.types...)
	}
	t, err := vkcompact.ParseType(f.typ)
	if err != nil {
		return 0, usagef("-type: %v", err)
	}
	return t, nil
}

// npyType returns the key type a plain .npy array's dtype gives, in place
// of -type.
func (f *elemFlags) npyType(in *inputFile) (vkcompact.Type, error) {
	h := in.npy
	for _, t := range f.types {
		if h.Descr == npy.Dtype(t) {
			return t, nil
		}
	}
	want := fmt.Sprintf("%s takes %s (%s)", f.op, typeList(f.types), dtypeList(f.types))
	if t := npy.KeyType(h.Descr); t != vkcompact.Unset {
		return 0, usagef("%s: dtype '%s' (%s): %s", in.name, h.Descr, t, want)
	}
	if le := "<" + h.Descr[min(1, len(h.Descr)):]; strings.HasPrefix(h.Descr, ">") && npy.KeyType(le) != vkcompact.Unset {
		return 0, usagef("%s: big-endian dtype '%s' is not supported: save the array little-endian (a.astype('%s'))", in.name, h.Descr, le)
	}
	if f.structs && strings.HasPrefix(h.Descr, "|V") {
		return 0, usagef("%s: dtype '%s' holds structs of %s bytes: give -stride %[3]s -key OFFSET:T", in.name, h.Descr, h.Descr[2:])
	}
	return 0, usagef("%s: dtype '%s' is not an element type: %s", in.name, h.Descr, want)
}

// structElem returns the raw structs -stride and -key describe.
func (f *elemFlags) structElem() (vkcompact.Elem, error) {
	if !f.set["stride"] || !f.set["key"] {
		return vkcompact.Elem{}, usagef("struct elements need both -stride BYTES and -key OFFSET:T")
	}
	stride, key := f.stride, f.key
	if stride < 4 || stride > vkcompact.MaxStride || stride%4 != 0 {
		return vkcompact.Elem{}, usagef("-stride %d: want a multiple of 4 from 4 to %d", stride, vkcompact.MaxStride)
	}
	off, t, err := parseKeyOffset(key)
	if err != nil {
		return vkcompact.Elem{}, err
	}
	e := vkcompact.Struct(uint32(stride), uint32(off), t)
	if err := e.Check(); err != nil {
		return vkcompact.Elem{}, usagef("-stride %d -key %s: %v", stride, key, err)
	}
	if !slices.Contains(f.types, t) {
		return vkcompact.Elem{}, usagef("-key %s: %s takes keys of %s", key, f.op, typeList(f.types))
	}
	return e, nil
}

// parseKeyOffset parses -key OFFSET:T.
func parseKeyOffset(key string) (uint64, vkcompact.Type, error) {
	offText, typText, ok := strings.Cut(key, ":")
	off, err := strconv.ParseUint(offText, 10, 32)
	if !ok || err != nil {
		return 0, 0, usagef("-key %q: want OFFSET:T, a byte offset and a type (e.g. 28:f32); a field name needs a record array (a .npy of a structured dtype)", key)
	}
	t, err := vkcompact.ParseType(typText)
	if err != nil {
		return 0, 0, usagef("-key %q: %v", key, err)
	}
	return off, t, nil
}

// records returns the elements of a record array: the key field -key
// names, its offset and type from the dtype.
func (f *elemFlags) records(in *inputFile) (elemLayout, error) {
	h, r := in.npy, in.npy.Record
	fail := func(format string, args ...any) (elemLayout, error) {
		return elemLayout{}, usagef("%s: "+format, append([]any{in.name}, args...)...)
	}
	switch {
	case r.Object != nil:
		return fail("field %s holds Python objects ('|O'): NumPy pickled the array, and objects cannot go to the GPU", npy.Quote(*r.Object))
	case !f.structs:
		return fail("a record array (structured dtype %s): %s takes a plain array of %s", h.Descr, f.op, typeList(f.types))
	case h.Fortran:
		return fail("fortran_order is True: save a C-order array")
	case len(h.Shape) != 1:
		return fail("shape %s: want a 1-D array of records", h.ShapeString())
	case !f.set["key"]:
		return fail("a record array: name the key field with -key FIELD (fields: %s)", r.FieldList())
	}
	fd, err := f.keyField(in)
	if err != nil {
		return elemLayout{}, err
	}
	t := fd.KeyType()
	if f.set["type"] {
		want, err := f.parseType()
		if err != nil {
			return elemLayout{}, err
		}
		if want != t {
			return fail("-type %s contradicts the key field %s, which is %s ('%s')", want, npy.Quote(fd.Name), t, fd.Descr)
		}
	}
	if f.set["stride"] && uint64(f.stride) != r.ItemSize {
		return fail("-stride %d contradicts the records' %d bytes (their dtype's itemsize)", f.stride, r.ItemSize)
	}
	l := elemLayout{n: h.Count, dtype: r.Literal, size: r.ItemSize, keyOffset: fd.Offset, field: fd.Name}
	if r.ItemSize > 1<<31 { // no uint32 slot: far past MaxStride
		return fail("records of %d bytes: at most %d (the library's MaxStride)", r.ItemSize, vkcompact.MaxStride)
	}
	l.records = vkcompact.Records{Size: uint32(r.ItemSize), KeyOffset: uint32(fd.Offset), Key: t}
	l.elem = l.records.Elem()
	switch stride := uint64(l.elem.Stride); {
	case stride > vkcompact.MaxStride && stride == r.ItemSize:
		return fail("records of %d bytes: at most %d (the library's MaxStride)", r.ItemSize, vkcompact.MaxStride)
	case stride > vkcompact.MaxStride:
		return fail("records of %d bytes with the key at byte %d take %d bytes on the GPU, aligned to 4: at most %d (the library's MaxStride)",
			r.ItemSize, fd.Offset, stride, vkcompact.MaxStride)
	}
	if err := l.records.Check(); err != nil {
		return elemLayout{}, err // cannot happen: the field is a key within the record
	}
	if l.n > compact.MaxElements {
		return fail("%d elements: at most %d", l.n, uint64(compact.MaxElements))
	}
	return l, nil
}

// keyField returns the record's field that -key names, checked as a key
// of the command: by name (a nested field's path, "pos.x"), or as
// OFFSET:T, the field of type T at byte OFFSET.
func (f *elemFlags) keyField(in *inputFile) (*npy.Field, error) {
	r := in.npy.Record
	fd := r.Field(f.key)
	if fd == nil {
		off, t, err := parseKeyOffset(f.key)
		if err != nil {
			return nil, usagef("-key %s: %s has no field of that name; its fields: %s", npy.Quote(f.key), in.name, r.FieldList())
		}
		for i := range r.Fields {
			if r.Fields[i].Offset == off && r.Fields[i].KeyType() == t {
				fd = &r.Fields[i]
				break
			}
		}
		if fd == nil {
			return nil, usagef("-key %s: %s has no %s field ('%s') at byte %d; its fields: %s", f.key, in.name, t, npy.Dtype(t), off, r.Offsets())
		}
	}
	keys := fmt.Sprintf("%s takes keys of %s (%s)", f.op, typeList(f.types), dtypeList(f.types))
	switch t := fd.KeyType(); {
	case fd.Descr == "" && fd.Shape == nil:
		var sub []string
		for _, g := range r.Fields {
			if strings.HasPrefix(g.Name, fd.Name+".") {
				sub = append(sub, g.Name)
			}
		}
		return nil, usagef("-key %s: field %s is a struct: name one of its fields (%s)", f.key, npy.Quote(fd.Name), strings.Join(sub, ", "))
	case fd.Shape != nil:
		items := npy.Quote(fd.Descr)
		if fd.Descr == "" {
			items = "structs"
		}
		return nil, usagef("-key %s: field %s is a sub-array (%s %s): a key is one value, and sub-arrays cannot be keys", f.key, npy.Quote(fd.Name), items, npy.FormatShape(fd.Shape))
	case t == vkcompact.Unset && len(fd.Descr) > 1 && fd.Descr[0] == '>' && slices.Contains(f.types, npy.KeyType("<"+fd.Descr[1:])):
		return nil, usagef("-key %s: field %s is big-endian ('%s'): save the records little-endian (a.astype(a.dtype.newbyteorder('<')))", f.key, npy.Quote(fd.Name), fd.Descr)
	case t == vkcompact.Unset:
		return nil, usagef("-key %s: field %s is '%s': %s", f.key, npy.Quote(fd.Name), fd.Descr, keys)
	case !slices.Contains(f.types, t):
		return nil, usagef("-key %s: field %s is %s ('%s'): %s", f.key, npy.Quote(fd.Name), t, fd.Descr, keys)
	}
	return fd, nil
}

// upload reads the input's elements into host memory in the GPU's layout
// and copies them to r. It returns the host memory, for download to
// reuse.
func (l *elemLayout) upload(in *inputFile, r vk.Range) ([]byte, error) {
	stride := uint64(l.elem.Size())
	data, err := in.read(l.n * stride)
	if err != nil {
		return nil, err
	}
	if l.size != stride {
		if err := l.records.Spread(data, l.n); err != nil {
			return nil, err
		}
	}
	return data, vk.Upload(r, data[:l.n*stride])
}

// download copies the first n elements of r into host, memory of at least
// n elements in the GPU's layout (upload's), and returns them in the
// file's layout.
func (l *elemLayout) download(r vk.Range, host []byte, n uint64) ([]byte, error) {
	stride := uint64(l.elem.Size())
	b := host[:n*stride]
	if err := vk.Download(r.Sub(0, n*stride), b); err != nil {
		return nil, err
	}
	if l.size != stride {
		return l.records.Gather(b, n)
	}
	return b, nil
}
