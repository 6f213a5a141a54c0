package fileio

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/vk"
)

// ElemFlags are what a file command's flags say of the elements of its
// -in file: -type, and for the commands that take structs -stride and
// -key. The input's .npy header says the rest: a plain array's dtype is
// the type, and a record array's dtype (a structured dtype) gives the
// stride and, by its name, the key field.
type ElemFlags struct {
	Op      string           // the command, for messages
	Set     map[string]bool  // the flags given, by name ("type", "stride", "key")
	Type    string           // -type
	Stride  uint             // -stride
	Key     string           // -key: OFFSET:T, or a record's field name
	Types   []vkcompact.Type // the key types the command takes
	Structs bool             // the command takes structs and records (-stride, -key)
	// Whole: the command moves its elements whole and reads no key
	// (gather, scatter), so structs take -stride alone, a .npy of void
	// items ('|VS') gives the stride, and records need no -key.
	Whole   bool
	Missing string // the message for a raw file of no -type
}

// Layout is the elements of an input as the flags and the file give
// them: their layout on the GPU, their count, and how they are written
// out.
type Layout struct {
	Elem  vkcompact.Elem // on the GPU
	N     uint64         // elements
	Dtype string         // the outputs' .npy dtype, as a Python literal: '<f4', '|V32', a record's fields
	// Size and KeyOffset are the element's bytes and its key's offset
	// in the file: the GPU's, except for records repacked (records).
	Size, KeyOffset uint64
	Field           string // a record's key field, by name; "" for others
	// records lays out a record array's records for the GPU: a record
	// whose size or key offset is not a multiple of 4 goes in a slot of
	// a multiple of 4 bytes, at the byte that aligns its key.
	records vkcompact.Records
}

// Records reports whether the elements are a record array's records.
func (l *Layout) Records() bool { return l.records.Size != 0 }

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

// Resolve checks the flags against the input and returns its elements.
// Its errors are usage errors naming what is wrong.
func (f *ElemFlags) Resolve(in *Input) (Layout, error) {
	if in.Npy != nil && in.Npy.Record != nil {
		return f.records(in)
	}
	var e vkcompact.Elem
	var err error
	switch {
	case f.Structs && f.Set["type"] && (f.Set["stride"] || f.Set["key"]):
		return Layout{}, usage.Errorf("give -type T for plain elements, or -stride BYTES and -key OFFSET:T for structs, not both")
	case f.Set["key"] && !f.Set["stride"] && !strings.Contains(f.Key, ":"):
		return Layout{}, f.fieldWithoutRecords(in)
	case f.Set["stride"] || f.Set["key"]:
		if e, err = f.structElem(); err != nil {
			return Layout{}, err
		}
	case f.Set["type"]:
		t, err := f.ParseType()
		if err != nil {
			return Layout{}, err
		}
		e = vkcompact.Plain(t)
	case in.Npy == nil:
		return Layout{}, usage.Error{Err: fmt.Errorf("%s", f.Missing)}
	case f.Whole && strings.HasPrefix(in.Npy.Descr, "|V") && in.Npy.ItemSize <= 1<<16:
		if s := in.Npy.ItemSize; s < 4 || s > vkcompact.MaxStride || s%4 != 0 {
			return Layout{}, usage.Errorf("%s: dtype '%s': %s moves void items of a multiple of 4 bytes from 4 to %d (a record array's records may be of any size)",
				in.Name, in.Npy.Descr, f.Op, vkcompact.MaxStride)
		}
		e = vkcompact.Struct(uint32(in.Npy.ItemSize), 0, vkcompact.Uint32)
	default:
		t, err := f.npyType(in)
		if err != nil {
			return Layout{}, err
		}
		e = vkcompact.Plain(t)
	}
	n, err := in.elements(e)
	if err != nil {
		return Layout{}, err
	}
	l := Layout{Elem: e, N: n, Dtype: npy.Quote(npy.Dtype(e.Key)), Size: uint64(e.Size()), KeyOffset: uint64(e.KeyOffset)}
	if e.Stride != 0 {
		l.Dtype = npy.Quote(fmt.Sprintf("|V%d", e.Stride))
	}
	return l, nil
}

// fieldWithoutRecords is the error of -key FIELD (a name, not
// OFFSET:T) on an input that is not a record array.
func (f *ElemFlags) fieldWithoutRecords(in *Input) error {
	what := "a raw file"
	if in.Npy != nil {
		what = fmt.Sprintf("a plain array (dtype '%s')", in.Npy.Descr)
	}
	return usage.Errorf("-key %s names a field: -key FIELD needs a record array (a .npy of a structured dtype), and %s is %s; for structs without field names give -stride BYTES -key OFFSET:T",
		f.Key, in.Name, what)
}

// ParseType parses -type: one of the command's types.
func (f *ElemFlags) ParseType() (vkcompact.Type, error) {
	if len(f.Types) < 6 {
		return parseTypeOf(f.Op, f.Type, f.Types...)
	}
	t, err := vkcompact.ParseType(f.Type)
	if err != nil {
		return 0, usage.Errorf("-type: %v", err)
	}
	return t, nil
}

// npyType returns the key type a plain .npy array's dtype gives, in place
// of -type.
func (f *ElemFlags) npyType(in *Input) (vkcompact.Type, error) {
	h := in.Npy
	for _, t := range f.Types {
		if h.Descr == npy.Dtype(t) {
			return t, nil
		}
	}
	want := fmt.Sprintf("%s takes %s (%s)", f.Op, typeList(f.Types), dtypeList(f.Types))
	if t := npy.KeyType(h.Descr); t != vkcompact.Unset {
		return 0, usage.Errorf("%s: dtype '%s' (%s): %s", in.Name, h.Descr, t, want)
	}
	if le := "<" + h.Descr[min(1, len(h.Descr)):]; strings.HasPrefix(h.Descr, ">") && npy.KeyType(le) != vkcompact.Unset {
		return 0, usage.Errorf("%s: big-endian dtype '%s' is not supported: save the array little-endian (a.astype('%s'))", in.Name, h.Descr, le)
	}
	if f.Structs && strings.HasPrefix(h.Descr, "|V") {
		return 0, usage.Errorf("%s: dtype '%s' holds structs of %s bytes: give -stride %[3]s -key OFFSET:T", in.Name, h.Descr, h.Descr[2:])
	}
	return 0, usage.Errorf("%s: dtype '%s' is not an element type: %s", in.Name, h.Descr, want)
}

// structElem returns the raw structs -stride and -key describe.
func (f *ElemFlags) structElem() (vkcompact.Elem, error) {
	if f.Whole && !f.Set["key"] {
		// Moved whole: the stride is all there is to the element.
		if s := f.Stride; s < 4 || s > vkcompact.MaxStride || s%4 != 0 {
			return vkcompact.Elem{}, usage.Errorf("-stride %d: want a multiple of 4 from 4 to %d", s, vkcompact.MaxStride)
		}
		return vkcompact.Struct(uint32(f.Stride), 0, vkcompact.Uint32), nil
	}
	if !f.Set["stride"] || !f.Set["key"] {
		return vkcompact.Elem{}, usage.Errorf("struct elements need both -stride BYTES and -key OFFSET:T")
	}
	stride, key := f.Stride, f.Key
	if stride < 4 || stride > vkcompact.MaxStride || stride%4 != 0 {
		return vkcompact.Elem{}, usage.Errorf("-stride %d: want a multiple of 4 from 4 to %d", stride, vkcompact.MaxStride)
	}
	off, t, err := parseKeyOffset(key)
	if err != nil {
		return vkcompact.Elem{}, err
	}
	e := vkcompact.Struct(uint32(stride), uint32(off), t)
	if err := e.Check(); err != nil {
		return vkcompact.Elem{}, usage.Errorf("-stride %d -key %s: %v", stride, key, err)
	}
	if !slices.Contains(f.Types, t) {
		return vkcompact.Elem{}, usage.Errorf("-key %s: %s takes keys of %s", key, f.Op, typeList(f.Types))
	}
	return e, nil
}

// parseKeyOffset parses -key OFFSET:T.
func parseKeyOffset(key string) (uint64, vkcompact.Type, error) {
	offText, typText, ok := strings.Cut(key, ":")
	off, err := strconv.ParseUint(offText, 10, 32)
	if !ok || err != nil {
		return 0, 0, usage.Errorf("-key %q: want OFFSET:T, a byte offset and a type (e.g. 28:f32); a field name needs a record array (a .npy of a structured dtype)", key)
	}
	t, err := vkcompact.ParseType(typText)
	if err != nil {
		return 0, 0, usage.Errorf("-key %q: %v", key, err)
	}
	return off, t, nil
}

// records returns the elements of a record array: the key field -key
// names, its offset and type from the dtype.
func (f *ElemFlags) records(in *Input) (Layout, error) {
	h, r := in.Npy, in.Npy.Record
	fail := func(format string, args ...any) (Layout, error) {
		return Layout{}, usage.Errorf("%s: "+format, append([]any{in.Name}, args...)...)
	}
	switch {
	case r.Object != nil:
		return fail("field %s holds Python objects ('|O'): NumPy pickled the array, and objects cannot go to the GPU", npy.Quote(*r.Object))
	case !f.Structs:
		return fail("a record array (structured dtype %s): %s takes a plain array of %s", h.Descr, f.Op, typeList(f.Types))
	case h.Fortran:
		return fail("fortran_order is True: save a C-order array")
	case len(h.Shape) != 1:
		return fail("shape %s: want a 1-D array of records", h.ShapeString())
	case !f.Set["key"] && f.Whole:
		return f.wholeRecords(in)
	case !f.Set["key"]:
		return fail("a record array: name the key field with -key FIELD (fields: %s)", r.FieldList())
	}
	fd, err := f.keyField(in)
	if err != nil {
		return Layout{}, err
	}
	t := fd.KeyType()
	if f.Set["type"] {
		want, err := f.ParseType()
		if err != nil {
			return Layout{}, err
		}
		if want != t {
			return fail("-type %s contradicts the key field %s, which is %s ('%s')", want, npy.Quote(fd.Name), t, fd.Descr)
		}
	}
	if f.Set["stride"] && uint64(f.Stride) != r.ItemSize {
		return fail("-stride %d contradicts the records' %d bytes (their dtype's itemsize)", f.Stride, r.ItemSize)
	}
	l := Layout{N: h.Count, Dtype: r.Literal, Size: r.ItemSize, KeyOffset: fd.Offset, Field: fd.Name}
	if r.ItemSize > 1<<31 { // no uint32 slot: far past MaxStride
		return fail("records of %d bytes: at most %d (the library's MaxStride)", r.ItemSize, vkcompact.MaxStride)
	}
	l.records = vkcompact.Records{Size: uint32(r.ItemSize), KeyOffset: uint32(fd.Offset), Key: t}
	l.Elem = l.records.Elem()
	switch stride := uint64(l.Elem.Stride); {
	case stride > vkcompact.MaxStride && stride == r.ItemSize:
		return fail("records of %d bytes: at most %d (the library's MaxStride)", r.ItemSize, vkcompact.MaxStride)
	case stride > vkcompact.MaxStride:
		return fail("records of %d bytes with the key at byte %d take %d bytes on the GPU, aligned to 4: at most %d (the library's MaxStride)",
			r.ItemSize, fd.Offset, stride, vkcompact.MaxStride)
	}
	if err := l.records.Check(); err != nil {
		return Layout{}, err // cannot happen: the field is a key within the record
	}
	if l.N > compact.MaxElements {
		return fail("%d elements: at most %d", l.N, uint64(compact.MaxElements))
	}
	return l, nil
}

// wholeRecords returns the elements of a record array moved whole, with
// no key: each record in a slot of its size rounded up to 4 bytes.
func (f *ElemFlags) wholeRecords(in *Input) (Layout, error) {
	h, r := in.Npy, in.Npy.Record
	if f.Set["stride"] && uint64(f.Stride) != r.ItemSize {
		return Layout{}, usage.Errorf("%s: -stride %d contradicts the records' %d bytes (their dtype's itemsize)", in.Name, f.Stride, r.ItemSize)
	}
	if f.Set["type"] {
		return Layout{}, usage.Errorf("%s: a record array: -type is for plain arrays (the records move whole)", in.Name)
	}
	if r.ItemSize < 4 || r.ItemSize > vkcompact.MaxStride {
		return Layout{}, usage.Errorf("%s: records of %d bytes: %s moves records of 4 to %d bytes", in.Name, r.ItemSize, f.Op, vkcompact.MaxStride)
	}
	l := Layout{N: h.Count, Dtype: r.Literal, Size: r.ItemSize}
	l.records = vkcompact.Records{Size: uint32(r.ItemSize), Key: vkcompact.Uint32}
	l.Elem = l.records.Elem()
	if err := l.records.Check(); err != nil {
		return Layout{}, usage.Errorf("%s: records of %d bytes: %v", in.Name, r.ItemSize, err)
	}
	if l.N > compact.MaxElements {
		return Layout{}, usage.Errorf("%s: %d elements: at most %d", in.Name, l.N, uint64(compact.MaxElements))
	}
	return l, nil
}

// keyField returns the record's field that -key names, checked as a key
// of the command: by name (a nested field's path, "pos.x"), or as
// OFFSET:T, the field of type T at byte OFFSET.
func (f *ElemFlags) keyField(in *Input) (*npy.Field, error) {
	r := in.Npy.Record
	fd := r.Field(f.Key)
	if fd == nil {
		off, t, err := parseKeyOffset(f.Key)
		if err != nil {
			return nil, usage.Errorf("-key %s: %s has no field of that name; its fields: %s", npy.Quote(f.Key), in.Name, r.FieldList())
		}
		for i := range r.Fields {
			if r.Fields[i].Offset == off && r.Fields[i].KeyType() == t {
				fd = &r.Fields[i]
				break
			}
		}
		if fd == nil {
			return nil, usage.Errorf("-key %s: %s has no %s field ('%s') at byte %d; its fields: %s", f.Key, in.Name, t, npy.Dtype(t), off, r.Offsets())
		}
	}
	keys := fmt.Sprintf("%s takes keys of %s (%s)", f.Op, typeList(f.Types), dtypeList(f.Types))
	switch t := fd.KeyType(); {
	case fd.Descr == "" && fd.Shape == nil:
		var sub []string
		for _, g := range r.Fields {
			if strings.HasPrefix(g.Name, fd.Name+".") {
				sub = append(sub, g.Name)
			}
		}
		return nil, usage.Errorf("-key %s: field %s is a struct: name one of its fields (%s)", f.Key, npy.Quote(fd.Name), strings.Join(sub, ", "))
	case fd.Shape != nil:
		items := npy.Quote(fd.Descr)
		if fd.Descr == "" {
			items = "structs"
		}
		return nil, usage.Errorf("-key %s: field %s is a sub-array (%s %s): a key is one value, and sub-arrays cannot be keys", f.Key, npy.Quote(fd.Name), items, npy.FormatShape(fd.Shape))
	case t == vkcompact.Unset && len(fd.Descr) > 1 && fd.Descr[0] == '>' && slices.Contains(f.Types, npy.KeyType("<"+fd.Descr[1:])):
		return nil, usage.Errorf("-key %s: field %s is big-endian ('%s'): save the records little-endian (a.astype(a.dtype.newbyteorder('<')))", f.Key, npy.Quote(fd.Name), fd.Descr)
	case t == vkcompact.Unset:
		return nil, usage.Errorf("-key %s: field %s is '%s': %s", f.Key, npy.Quote(fd.Name), fd.Descr, keys)
	case !slices.Contains(f.Types, t):
		return nil, usage.Errorf("-key %s: field %s is %s ('%s'): %s", f.Key, npy.Quote(fd.Name), t, fd.Descr, keys)
	}
	return fd, nil
}

// Upload reads the input's elements into host memory in the GPU's layout
// and copies them to r. It returns the host memory, for Download to
// reuse.
func (l *Layout) Upload(in *Input, r vk.Range) ([]byte, error) {
	stride := uint64(l.Elem.Size())
	data, err := in.Read(l.N * stride)
	if err != nil {
		return nil, err
	}
	if l.Size != stride {
		if err := l.records.Spread(data, l.N); err != nil {
			return nil, err
		}
	}
	return data, vk.Upload(r, data[:l.N*stride])
}

// Download copies the first n elements of r into host, memory of at
// least n elements in the GPU's layout (Upload's), and returns them in
// the file's layout.
func (l *Layout) Download(r vk.Range, host []byte, n uint64) ([]byte, error) {
	stride := uint64(l.Elem.Size())
	b := host[:n*stride]
	if err := vk.Download(r.Sub(0, n*stride), b); err != nil {
		return nil, err
	}
	if l.Size != stride {
		return l.records.Gather(b, n)
	}
	return b, nil
}

// parseTypeOf parses the -type of the command op: one of the types
// allowed.
func parseTypeOf(op, s string, allowed ...vkcompact.Type) (vkcompact.Type, error) {
	want := typeList(allowed)
	t, err := vkcompact.ParseType(s)
	if err != nil {
		return 0, usage.Errorf("-type: unknown type %q (want %s)", s, want)
	}
	for _, a := range allowed {
		if t == a {
			return t, nil
		}
	}
	return 0, usage.Errorf("-type %s: %s takes %s", s, op, want)
}
