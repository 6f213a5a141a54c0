package main

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vkcompact/vkcompact"
)

// fieldWant is a field as a test expects it: "name descr@offset" with the
// shape after the descr ("v '<f4' (3,)@8"), a struct's descr "struct".
type recordCase struct {
	descr  string   // the descr as NumPy 1.24 writes it (dtype.descr)
	size   uint64   // the itemsize
	fields []string // "name:descr:shape@offset"
	object string   // the field holding Python objects; "-" for none
}

// numpyRecords are structured dtypes' descrs as NumPy 1.24 writes them
// (np.save), and forms numpy.lib.format.descr_to_dtype reads.
var numpyRecords = []recordCase{
	// np.dtype([('x','<f4'),('y','<f4'),('z','<f4'),('life','<f4')])
	{"[('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('life', '<f4')]", 16, []string{"x:<f4@0", "y:<f4@4", "z:<f4@8", "life:<f4@12"}, "-"},
	// packed: np.dtype([('flag','u1'),('x','<f4'),('id','<u2')])
	{"[('flag', '|u1'), ('x', '<f4'), ('id', '<u2')]", 7, []string{"flag:|u1@0", "x:<f4@1", "id:<u2@5"}, "-"},
	// the same with align=True
	{"[('flag', '|u1'), ('', '|V3'), ('x', '<f4'), ('id', '<u8')]", 16, []string{"flag:|u1@0", "x:<f4@4", "id:<u8@8"}, "-"},
	// nested, sub-arrays, a sub-array of structs, align=True
	{"[('pos', [('x', '<f4'), ('y', '<f4')]), ('v', '<f4', (3,)), ('', '|V4'), ('m', [('a', '|u1'), ('', '|V7'), ('b', '<i8')], (2,))]", 56,
		[]string{"pos:struct@0", "pos.x:<f4@0", "pos.y:<f4@4", "v:<f4:(3,)@8", "m:struct:(2,)@24"}, "-"},
	// a title, a big-endian field
	{"[(('Title', 'x'), '<f4'), ('b', '>i4')]", 8, []string{"x:<f4@0", "b:>i4@4"}, "-"},
	// explicit offsets and itemsize
	{"[('', '|V4'), ('a', '<f4'), ('', '|V4'), ('b', '<u4'), ('', '|V4')]", 20, []string{"a:<f4@4", "b:<u4@12"}, "-"},
	{"[('o', '|O'), ('x', '<f4')]", 12, []string{"o:|O@0", "x:<f4@8"}, "o"},
	{"[('p', [('q', '<u4'), ('o', '|O')])]", 12, []string{"p:struct@0", "p.q:<u4@0", "p.o:|O@4"}, "p.o"},
	{"[('μ', '<f4'), ('é', '<u4')]", 8, []string{"μ:<f4@0", "é:<u4@4"}, "-"},
	{"[('t', '<M8[us]'), ('s', '|S3'), ('u', '<U2')]", 19, []string{"t:<M8[us]@0", "s:|S3@8", "u:<U2@11"}, "-"},
	{"[(\"it's\", '<f4')]", 4, []string{"it's:<f4@0"}, "-"},
	{"[]", 0, nil, "-"},
}

// otherRecords are descrs NumPy reads but does not write, and the
// record each is.
var otherRecords = []struct {
	descr string
	want  recordCase
}{
	{"[('a', '<f4', 3)]", recordCase{"[('a', '<f4', 3)]", 12, []string{"a:<f4:(3,)@0"}, "-"}},
	{"[('a', '<f4', ())]", recordCase{"[('a', '<f4', ())]", 4, []string{"a:<f4@0"}, "-"}},
	{"[('a', ('<f4', (2,)))]", recordCase{"[('a', ('<f4', (2,)))]", 8, []string{"a:<f4:(2,)@0"}, "-"}},
	{"[('a', ('<f4', (2,)), (3,))]", recordCase{"[('a', ('<f4', (2,)), (3,))]", 24, []string{"a:<f4:(3, 2)@0"}, "-"}},
	{"[('', '<f4'), ('b', '<u2')]", recordCase{"[('', '<f4'), ('b', '<u2')]", 6, []string{":<f4@0", "b:<u2@4"}, "-"}},
	{"[('', '<f4', (2,)), ('b', '<u2')]", recordCase{"[('', '<f4', (2,)), ('b', '<u2')]", 10, []string{"b:<u2@8"}, "-"}},
	{"[ ( 'a' , '<f4' , ) , ]", recordCase{"[('a', '<f4')]", 4, []string{"a:<f4@0"}, "-"}},
	{`[("a", "<f4")]`, recordCase{"[('a', '<f4')]", 4, []string{"a:<f4@0"}, "-"}},
}

// fieldStrings writes a record's fields as recordCase.fields does.
func fieldStrings(r *npyRecord) []string {
	var got []string
	for _, f := range r.fields {
		d := f.descr
		if d == "" {
			d = "struct"
		}
		if f.shape != nil {
			d += ":" + shapeText(f.shape)
		}
		got = append(got, fmt.Sprintf("%s:%s@%d", f.name, d, f.offset))
	}
	return got
}

// checkRecord parses descr and checks it against want.
func checkRecord(t *testing.T, descr string, want recordCase) {
	t.Helper()
	p := &pyParser{s: descr}
	v, err := p.value(0)
	list, ok := v.(pyList)
	if err != nil || !ok {
		t.Fatalf("%s: %v, %T", descr, err, v)
	}
	r, err := parseNpyRecord(list)
	if err != nil {
		t.Fatalf("%s: %v", descr, err)
	}
	object := "-"
	if r.object != nil {
		object = *r.object
	}
	if got := fieldStrings(r); !slices.Equal(got, want.fields) || r.itemSize != want.size || r.literal != want.descr || object != want.object {
		t.Errorf("%s: fields %q, itemsize %d, literal %s, object %s; want %q, %d, %s, %s", descr, got, r.itemSize, r.literal, object,
			want.fields, want.size, want.descr, want.object)
	}
}

// TestNpyRecords parses structured descrs as NumPy writes them, and
// others it reads, into their fields, offsets and itemsize, and writes
// them back as NumPy does.
func TestNpyRecords(t *testing.T) {
	for _, c := range numpyRecords {
		checkRecord(t, c.descr, c)
	}
	for _, c := range otherRecords {
		checkRecord(t, c.descr, c.want)
	}
}

// TestNpyRecordFiles reads headers NumPy 1.24 wrote for record arrays
// (np.save of np.zeros(2, dtype)): format 1.0, and 3.0 where a field's
// name is not Latin-1; and writes headers that read back the same, in
// the version NumPy would choose.
func TestNpyRecordFiles(t *testing.T) {
	v1 := "\x93NUMPY\x01\x00\xb6\x00{'descr': [('flag', '|u1'), ('', '|V3'), ('x', '<f4'), ('id', '<u8')], 'fortran_order': False, 'shape': (2,), }" +
		strings.Repeat(" ", 70) + "\n" + string(make([]byte, 32))
	v3 := "\x93NUMPY\x03\x00t\x00\x00\x00{'descr': [('\xce\xbc', '<f4')], 'fortran_order': False, 'shape': (2,), }" + strings.Repeat(" ", 48) + "\n" +
		string(make([]byte, 8))
	latin := npyFile("{'descr': [('\xe9', '<f4')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 8))
	for _, c := range []struct {
		file, name string
		size       uint64
	}{{v1, "x", 16}, {v3, "μ", 4}, {string(latin), "é", 4}} {
		h, err := readNpyBytes([]byte(c.file))
		if err != nil {
			t.Fatalf("%q: %v", c.file[:20], err)
		}
		if h.record == nil || h.record.field(c.name) == nil || h.itemSize != c.size || h.count != 2 || h.dataOff != int64(len(c.file))-int64(2*c.size) {
			t.Errorf("%q: read %+v", c.file[:30], h)
		}
	}
	if _, err := readNpyBytes([]byte(strings.Replace(v3, "\xce\xbc", "\xce\xce", 1))); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("a 3.0 header that is not UTF-8: %v", err)
	}
	for _, c := range []struct {
		literal string
		major   byte
	}{
		{"[('x', '<f4')]", 1}, {"[('é', '<f4')]", 1}, {"[('μ', '<f4')]", 3},
		{"[('" + strings.Repeat("a", 70000) + "', '<f4')]", 2}, {"[('" + strings.Repeat("μ", 40000) + "', '<f4')]", 3},
	} {
		head := npyHeaderFor(c.literal, 5)
		if head[6] != c.major || len(head)%64 != 0 || head[len(head)-1] != '\n' {
			t.Errorf("%.20s: version %d, %d bytes; want version %d, a multiple of 64 bytes ending in a newline", c.literal, head[6], len(head), c.major)
		}
		h, err := readNpyHeader(bytes.NewReader(head), int64(len(head))+20)
		if err != nil || h.record == nil || h.record.literal != c.literal || h.count != 5 {
			t.Errorf("%.20s: read back %+v, %v", c.literal, h, err)
		}
	}
}

// TestRecordLayout: a record's key field sets the GPU's layout: the
// record as it is where its size and the key's offset are multiples of 4,
// else in a slot of a multiple of 4 bytes with the key aligned.
func TestRecordLayout(t *testing.T) {
	for _, c := range []struct {
		descr, key string
		size, key0 uint64         // the record's size and the key's offset in it
		elem       vkcompact.Elem // on the GPU
		shift      uint64
	}{
		{"[('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('life', '<f4')]", "life", 16, 12, vkcompact.Struct(16, 12, vkcompact.Float32), 0},
		{"[('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('life', '<f4')]", "12:f32", 16, 12, vkcompact.Struct(16, 12, vkcompact.Float32), 0},
		{"[('flag', '|u1'), ('x', '<f4'), ('id', '<u2')]", "x", 7, 1, vkcompact.Struct(12, 4, vkcompact.Float32), 3},
		{"[('flag', '|u1'), ('', '|V3'), ('x', '<f4'), ('id', '<u8')]", "id", 16, 8, vkcompact.Struct(16, 8, vkcompact.Uint64), 0},
		{"[('a', '<i4'), ('b', '|u1')]", "a", 5, 0, vkcompact.Struct(8, 0, vkcompact.Int32), 0},
		{"[('a', '<u2'), ('b', '<i8')]", "b", 10, 2, vkcompact.Struct(12, 4, vkcompact.Int64), 2},
		{"[('pos', [('x', '<f4'), ('y', '<f8')]), ('c', '|u1')]", "pos.y", 13, 4, vkcompact.Struct(16, 4, vkcompact.Float64), 0},
		{"[('a', '|V3'), ('k', '<u4'), ('b', '|V248')]", "k", 255, 3, vkcompact.Struct(256, 4, vkcompact.Uint32), 1},
		{"[('k', '<f4'), ('b', '|V252')]", "k", 256, 0, vkcompact.Struct(256, 0, vkcompact.Float32), 0},
	} {
		in := &inputFile{name: "-in r.npy"}
		var err error
		in.npy, err = readNpyBytes(npyFile("{'descr': "+c.descr+", 'fortran_order': False, 'shape': (3,), }", make([]byte, 3*c.size)))
		if err != nil {
			t.Fatalf("%s: %v", c.descr, err)
		}
		f := elemFlags{op: "compact", set: map[string]bool{"key": true}, key: c.key, structs: true,
			types: []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}}
		l, err := f.resolve(in)
		if err != nil || l.elem != c.elem || uint64(l.records.Shift()) != c.shift || l.size != c.size || l.keyOffset != c.key0 || l.n != 3 || l.dtype != c.descr {
			t.Errorf("%s by %s: %+v, %v; want %v shift %d", c.descr, c.key, l, err, c.elem, c.shift)
		}
	}
}

// FuzzNpyRecord: the structured dtype parser never panics, and what it
// accepts is consistent: the fields lie within the record, in order, a
// nested field within its struct; the descr it writes back parses to the
// same record, and so does a header written with it; and a key chosen
// by any field's name is refused with a message or laid out for the GPU
// to the library's rules, holding the field.
func FuzzNpyRecord(f *testing.F) {
	for _, c := range numpyRecords {
		f.Add(c.descr)
	}
	for _, c := range otherRecords {
		f.Add(c.descr)
	}
	for _, s := range []string{"[('a', [('b', [('c', '<u8', (2, 2))])])]", "[('', [])]", "[('a', '|V0'), ('', '|V0')]", "[(('t', 'a'), '<i4')]", "[('a', '|O', (2,))]", "[('', '|O', (2,))]"} {
		f.Add(s)
	}
	all := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}
	f.Add("[('', '<f4'),('.', '<f2'), ('000', '<f2')]")                   // a dot in a name is not a struct's field
	f.Add("[('a', [('b', '<f4')]), ('a.b', '<f4')]")                      // two fields of one path
	f.Add("[('a', [('b', [('c', '<f4')]), ('d', '<i2')]), ('e', '<f4')]") // parents at depth
	f.Add("[('\xff', '<c8')]")                                            // not UTF-8, which a header never is once decoded
	f.Fuzz(func(t *testing.T, descr string) {
		if !utf8.ValidString(descr) {
			return // readNpyHeader decodes every header into UTF-8, or refuses it
		}
		p := &pyParser{s: descr}
		v, err := p.value(0)
		list, ok := v.(pyList)
		if err != nil || !ok {
			return
		}
		r, err := parseNpyRecord(list)
		if err != nil {
			return
		}
		for i, fd := range r.fields {
			if fd.offset+fd.size > r.itemSize || fd.size > npyMaxRecord {
				t.Fatalf("%s: field %s at %d of %d bytes past a record of %d", descr, fd.name, fd.offset, fd.size, r.itemSize)
			}
			if i > 0 && fd.offset < r.fields[i-1].offset {
				t.Fatalf("%s: field %s at %d before the one before it", descr, fd.name, fd.offset)
			}
			if fd.parent >= 0 {
				pf := &r.fields[fd.parent]
				if fd.parent >= i || pf.descr != "" || !strings.HasPrefix(fd.name, pf.name+".") || fd.offset < pf.offset || fd.offset+fd.size > pf.offset+pf.size {
					t.Fatalf("%s: field %s outside its struct %s", descr, fd.name, pf.name)
				}
			}
			if r.field(fd.name) != &r.fields[i] {
				t.Fatalf("%s: field %s is not found by its name", descr, fd.name)
			}
			if (fd.keyType() != vkcompact.Unset) != (fd.shape == nil && slices.Contains(slices.Collect(maps.Values(npyTypes)), fd.descr)) {
				t.Fatalf("%s: field %s is of key type %v", descr, fd.name, fd.keyType())
			}
		}
		back := &pyParser{s: r.literal}
		bv, err := back.value(0)
		if err != nil {
			t.Fatalf("%s: written back as %s, which does not parse: %v", descr, r.literal, err)
		}
		r2, err := parseNpyRecord(bv.(pyList))
		if err != nil || r2.literal != r.literal || r2.itemSize != r.itemSize || !slices.Equal(fieldStrings(r2), fieldStrings(r)) {
			t.Fatalf("%s: written back as %s, which reads as %v, %v", descr, r.literal, r2, err)
		}
		if r.itemSize > 1<<16 {
			return
		}
		file := append(npyHeaderFor(r.literal, 3), make([]byte, 3*r.itemSize)...)
		h, err := readNpyBytes(file)
		if err != nil || h.record == nil || h.record.literal != r.literal {
			t.Fatalf("%s: a header of it reads as %+v, %v", descr, h, err)
		}
		for _, fd := range r.fields {
			in := &inputFile{name: "-in r.npy", npy: h}
			ef := elemFlags{op: "compact", set: map[string]bool{"key": true}, key: fd.name, structs: true, types: all}
			l, err := ef.resolve(in)
			if err != nil {
				continue
			}
			if r.object != nil || fd.keyType() == vkcompact.Unset || l.elem.Key != fd.keyType() || l.elem.Check() != nil ||
				uint64(l.elem.KeyOffset) != fd.offset+uint64(l.records.Shift()) || l.size != r.itemSize || uint64(l.elem.Stride) < r.itemSize+uint64(l.records.Shift()) ||
				uint64(l.elem.Stride) >= r.itemSize+uint64(l.records.Shift())+4 || l.n != 3 {
				t.Fatalf("%s: key %s laid out as %+v", descr, fd.name, l)
			}
		}
	})
}
