package npy

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy/npytest"
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
func fieldStrings(r *Record) []string {
	var got []string
	for _, f := range r.Fields {
		d := f.Descr
		if d == "" {
			d = "struct"
		}
		if f.Shape != nil {
			d += ":" + FormatShape(f.Shape)
		}
		got = append(got, fmt.Sprintf("%s:%s@%d", f.Name, d, f.Offset))
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
	r, err := parseRecord(list)
	if err != nil {
		t.Fatalf("%s: %v", descr, err)
	}
	object := "-"
	if r.Object != nil {
		object = *r.Object
	}
	if got := fieldStrings(r); !slices.Equal(got, want.fields) || r.ItemSize != want.size || r.Literal != want.descr || object != want.object {
		t.Errorf("%s: fields %q, itemsize %d, literal %s, object %s; want %q, %d, %s, %s", descr, got, r.ItemSize, r.Literal, object,
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
	latin := npytest.File("{'descr': [('\xe9', '<f4')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 8))
	for _, c := range []struct {
		file, name string
		size       uint64
	}{{v1, "x", 16}, {v3, "μ", 4}, {string(latin), "é", 4}} {
		h, err := readNpyBytes([]byte(c.file))
		if err != nil {
			t.Fatalf("%q: %v", c.file[:20], err)
		}
		if h.Record == nil || h.Record.Field(c.name) == nil || h.ItemSize != c.size || h.Count != 2 || h.DataOffset != int64(len(c.file))-int64(2*c.size) {
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
		head := HeaderFor(c.literal, 5)
		if head[6] != c.major || len(head)%64 != 0 || head[len(head)-1] != '\n' {
			t.Errorf("%.20s: version %d, %d bytes; want version %d, a multiple of 64 bytes ending in a newline", c.literal, head[6], len(head), c.major)
		}
		h, err := ReadHeader(bytes.NewReader(head), int64(len(head))+20)
		if err != nil || h.Record == nil || h.Record.Literal != c.literal || h.Count != 5 {
			t.Errorf("%.20s: read back %+v, %v", c.literal, h, err)
		}
	}
}

// FuzzNpyRecord: the structured dtype parser never panics, and what it
// accepts is consistent: the fields lie within the record, in order, a
// nested field within its struct, each found by its name, of a key type
// exactly where it is one value of a key type's dtype; the descr it
// writes back parses to the same record, and so does a header written
// with it.
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
		r, err := parseRecord(list)
		if err != nil {
			return
		}
		for i, fd := range r.Fields {
			if fd.Offset+fd.Size > r.ItemSize || fd.Size > maxRecord {
				t.Fatalf("%s: field %s at %d of %d bytes past a record of %d", descr, fd.Name, fd.Offset, fd.Size, r.ItemSize)
			}
			if i > 0 && fd.Offset < r.Fields[i-1].Offset {
				t.Fatalf("%s: field %s at %d before the one before it", descr, fd.Name, fd.Offset)
			}
			if fd.Parent >= 0 {
				pf := &r.Fields[fd.Parent]
				if fd.Parent >= i || pf.Descr != "" || !strings.HasPrefix(fd.Name, pf.Name+".") || fd.Offset < pf.Offset || fd.Offset+fd.Size > pf.Offset+pf.Size {
					t.Fatalf("%s: field %s outside its struct %s", descr, fd.Name, pf.Name)
				}
			}
			if r.Field(fd.Name) != &r.Fields[i] {
				t.Fatalf("%s: field %s is not found by its name", descr, fd.Name)
			}
			if (fd.KeyType() != vkcompact.Unset) != (fd.Shape == nil && slices.Contains(slices.Collect(maps.Values(dtypes)), fd.Descr)) {
				t.Fatalf("%s: field %s is of key type %v", descr, fd.Name, fd.KeyType())
			}
		}
		back := &pyParser{s: r.Literal}
		bv, err := back.value(0)
		if err != nil {
			t.Fatalf("%s: written back as %s, which does not parse: %v", descr, r.Literal, err)
		}
		r2, err := parseRecord(bv.(pyList))
		if err != nil || r2.Literal != r.Literal || r2.ItemSize != r.ItemSize || !slices.Equal(fieldStrings(r2), fieldStrings(r)) {
			t.Fatalf("%s: written back as %s, which reads as %v, %v", descr, r.Literal, r2, err)
		}
		if r.ItemSize > 1<<16 {
			return
		}
		file := append(HeaderFor(r.Literal, 3), make([]byte, 3*r.ItemSize)...)
		h, err := readNpyBytes(file)
		if err != nil || h.Record == nil || h.Record.Literal != r.Literal {
			t.Fatalf("%s: a header of it reads as %+v, %v", descr, h, err)
		}
	})
}
