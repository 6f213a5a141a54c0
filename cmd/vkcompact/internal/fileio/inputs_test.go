package fileio

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy/npytest"
)

// npyFile returns a version 1.0 .npy file of the header dict, as given,
// and the data.
func npyFile(dict string, data []byte) []byte { return npytest.File(dict, data) }

// readNpyBytes reads the header of the .npy file b.
func readNpyBytes(b []byte) (*npy.Header, error) {
	return npy.ReadHeader(bytes.NewReader(b), int64(len(b)))
}

// dictHeader returns the header a .npy file of the header dict would
// have: its descr, fortran_order and shape, which are all that the inputs
// look at.
func dictHeader(dict string) (*npy.Header, error) {
	m := regexp.MustCompile(`^\{'descr': '([^']*)', 'fortran_order': (True|False), 'shape': \(([0-9, ]*)\)\}$`).FindStringSubmatch(dict)
	if m == nil {
		return nil, fmt.Errorf("not a header dict the test reads: %s", dict)
	}
	h := &npy.Header{Descr: m[1], Fortran: m[2] == "True", Count: 1}
	for _, d := range strings.Split(m[3], ",") {
		if d = strings.TrimSpace(d); d != "" {
			n, err := strconv.ParseUint(d, 10, 64)
			if err != nil {
				return nil, err
			}
			h.Shape = append(h.Shape, n)
			h.Count *= n
		}
	}
	return h, nil
}

// TestInputDtypes: each input refuses the dtypes it does not take, of any
// array NumPy writes, by naming the dtype found and the one it wants,
// never as corrupt; a big-endian twin of a wanted dtype is told to be
// saved little-endian.
func TestInputDtypes(t *testing.T) {
	u32, st := vkcompact.Plain(vkcompact.Uint32), vkcompact.Struct(32, 28, vkcompact.Float32)
	notU32 := func(d string) string { return "dtype '" + d + "' does not match -type u32 (want '<u4')" }
	notStruct := func(d string) string {
		return "dtype '" + d + "' does not match -stride 32 (want '|V32', or bytes '|u1')"
	}
	notFlags := func(d string) string {
		return "dtype '" + d + "': flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')"
	}
	notValues := func(d string) string { return "dtype '" + d + "': values must be uint32 ('<u4')" }
	bigU4 := "big-endian dtype '>u4' is not supported: want '<u4' (save the array little-endian: a.astype('<u4'))"
	for _, tc := range []struct {
		descr   string
		size    uint64 // bytes per item; 0 with pickled
		pickled bool
		// The errors of -in with -type u32, -in with -stride 32, -flags
		// and -values; "" where the input takes the array.
		plain, structs, flags, values string
	}{
		{"<U1", 4, false, notU32("<U1"), notStruct("<U1"), notFlags("<U1"), notValues("<U1")},
		{"<U3", 12, false, notU32("<U3"), notStruct("<U3"), notFlags("<U3"), notValues("<U3")},
		{">U2", 8, false, notU32(">U2"), notStruct(">U2"), notFlags(">U2"), notValues(">U2")},
		{"|U0", 0, false, notU32("|U0"), notStruct("|U0"), notFlags("|U0"), notValues("|U0")},
		{"|S4", 4, false, notU32("|S4"), notStruct("|S4"), notFlags("|S4"), notValues("|S4")},
		{"|S1", 1, false, notU32("|S1"), notStruct("|S1"), notFlags("|S1"), notValues("|S1")},
		{"|V12", 12, false, notU32("|V12"), notStruct("|V12"), notFlags("|V12"), notValues("|V12")},
		{"|V4", 4, false, notU32("|V4"), notStruct("|V4"), notFlags("|V4"), notValues("|V4")},
		{"<c8", 8, false, notU32("<c8"), notStruct("<c8"), notFlags("<c8"), notValues("<c8")},
		{"<c16", 16, false, notU32("<c16"), notStruct("<c16"), notFlags("<c16"), notValues("<c16")},
		{"<f2", 2, false, notU32("<f2"), notStruct("<f2"), notFlags("<f2"), notValues("<f2")},
		{"<f16", 16, false, notU32("<f16"), notStruct("<f16"), notFlags("<f16"), notValues("<f16")},
		{"<i2", 2, false, notU32("<i2"), notStruct("<i2"), notFlags("<i2"), notValues("<i2")},
		{"|i1", 1, false, notU32("|i1"), notStruct("|i1"), notFlags("|i1"), notValues("|i1")},
		{"<M8[ns]", 8, false, notU32("<M8[ns]"), notStruct("<M8[ns]"), notFlags("<M8[ns]"), notValues("<M8[ns]")},
		{"<m8[10ms]", 8, false, notU32("<m8[10ms]"), notStruct("<m8[10ms]"), notFlags("<m8[10ms]"), notValues("<m8[10ms]")},
		{"<M8", 8, false, notU32("<M8"), notStruct("<M8"), notFlags("<M8"), notValues("<M8")},
		{"|O", 0, true, notU32("|O"), notStruct("|O"), notFlags("|O"), notValues("|O")},
		{"|O8", 0, true, notU32("|O8"), notStruct("|O8"), notFlags("|O8"), notValues("|O8")},
		{">u4", 4, false, bigU4, notStruct(">u4"), bigU4, bigU4},
		{">f4", 4, false, notU32(">f4"), notStruct(">f4"), notFlags(">f4"), notValues(">f4")},
		{"=u4", 4, false, notU32("=u4"), notStruct("=u4"), notFlags("=u4"), notValues("=u4")},
		{"<u4", 4, false, "", notStruct("<u4"), "", ""},
		{"|u1", 1, false, notU32("|u1"), "", "", notValues("|u1")}, // 96 bytes: 3 structs
		{"|b1", 1, false, notU32("|b1"), notStruct("|b1"), "", notValues("|b1")},
	} {
		data := make([]byte, 96*tc.size)
		if tc.pickled {
			data = []byte("\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00.") // any bytes: a pickle
		}
		h, err := readNpyBytes(npyFile("{'descr': '"+tc.descr+"', 'fortran_order': False, 'shape': (96,), }", data))
		if err != nil {
			t.Errorf("%s: %v", tc.descr, err)
			continue
		}
		_, plainErr := npyElements(h, u32)
		_, structErr := npyElements(h, st)
		_, flagsErr := npyFlags(h)
		_, valuesErr := npyValues(h)
		for _, c := range []struct {
			input string
			err   error
			want  string
		}{{"-type u32", plainErr, tc.plain}, {"-stride 32", structErr, tc.structs}, {"-flags", flagsErr, tc.flags}, {"-values", valuesErr, tc.values}} {
			if got := fmt.Sprint(c.err); c.want == "" && c.err != nil || c.want != "" && got != c.want {
				t.Errorf("%s as %s: got %v, want %q", tc.descr, c.input, c.err, c.want)
			}
		}
	}
}

// TestInputElements: which dtypes and shapes hold which elements.
func TestInputElements(t *testing.T) {
	st := vkcompact.Struct(32, 28, vkcompact.Float32)
	for _, tc := range []struct {
		dict string
		e    vkcompact.Elem
		n    uint64
		want string // error, or "" for n elements
	}{
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", vkcompact.Plain(vkcompact.Float32), 6, ""},
		{"{'descr': '<i8', 'fortran_order': False, 'shape': (3,)}", vkcompact.Plain(vkcompact.Int64), 3, ""},
		{"{'descr': '<u4', 'fortran_order': False, 'shape': (6,)}", vkcompact.Plain(vkcompact.Int32), 0, "does not match -type i32 (want '<i4')"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", vkcompact.Plain(vkcompact.Float32), 0, "want a 1-D array"},
		{"{'descr': '<f4', 'fortran_order': True, 'shape': (6,)}", vkcompact.Plain(vkcompact.Float32), 0, "fortran_order is True"},
		{"{'descr': '|V32', 'fortran_order': False, 'shape': (3,)}", st, 3, ""},
		{"{'descr': '|u1', 'fortran_order': False, 'shape': (3, 32)}", st, 3, ""},
		{"{'descr': '|u1', 'fortran_order': False, 'shape': (96,)}", st, 3, ""},
		{"{'descr': '|u1', 'fortran_order': False, 'shape': (95,)}", st, 0, "is not 32-byte structs"},
		{"{'descr': '|u1', 'fortran_order': False, 'shape': (32, 3)}", st, 0, "is not 32-byte structs"},
		{"{'descr': '|V32', 'fortran_order': False, 'shape': (1, 3)}", st, 0, "is not 32-byte structs"},
		{"{'descr': '|V16', 'fortran_order': False, 'shape': (6,)}", st, 0, "does not match -stride 32 (want '|V32', or bytes '|u1')"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (24,)}", st, 0, "does not match -stride 32"},
	} {
		h, err := dictHeader(tc.dict)
		if err != nil {
			t.Fatalf("%s: %v", tc.dict, err)
		}
		n, err := npyElements(h, tc.e)
		if tc.want == "" && (err != nil || n != tc.n) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s as %+v: got %d, %v; want %d, %q", tc.dict, tc.e, n, err, tc.n, tc.want)
		}
	}
}

// TestInputFlags: bool and uint8 flags are bytes, uint32 flags words.
func TestInputFlags(t *testing.T) {
	for _, tc := range []struct {
		dict  string
		width uint32
		want  string
	}{
		{"{'descr': '|b1', 'fortran_order': False, 'shape': (5,)}", 1, ""},
		{"{'descr': '|u1', 'fortran_order': False, 'shape': (5,)}", 1, ""},
		{"{'descr': '<u4', 'fortran_order': False, 'shape': (5,)}", 4, ""},
		{"{'descr': '<i4', 'fortran_order': False, 'shape': (5,)}", 0, "flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')"},
		{"{'descr': '|b1', 'fortran_order': False, 'shape': (5, 1)}", 0, "want a 1-D array"},
		{"{'descr': '|b1', 'fortran_order': True, 'shape': (5,)}", 0, "fortran_order is True"},
	} {
		h, err := dictHeader(tc.dict)
		if err != nil {
			t.Fatalf("%s: %v", tc.dict, err)
		}
		w, err := npyFlags(h)
		if tc.want == "" && (err != nil || w != tc.width) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %d, %v; want %d, %q", tc.dict, w, err, tc.width, tc.want)
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
		in := &Input{Name: "-in r.npy"}
		var err error
		in.Npy, err = readNpyBytes(npyFile("{'descr': "+c.descr+", 'fortran_order': False, 'shape': (3,), }", make([]byte, 3*c.size)))
		if err != nil {
			t.Fatalf("%s: %v", c.descr, err)
		}
		f := ElemFlags{Op: "compact", Set: map[string]bool{"key": true}, Key: c.key, Structs: true,
			Types: []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}}
		l, err := f.Resolve(in)
		if err != nil || l.Elem != c.elem || uint64(l.records.Shift()) != c.shift || l.Size != c.size || l.KeyOffset != c.key0 || l.N != 3 || l.Dtype != c.descr {
			t.Errorf("%s by %s: %+v, %v; want %v shift %d", c.descr, c.key, l, err, c.elem, c.shift)
		}
	}
}

// FuzzInputs: of the .npy files the reader accepts, what each input
// takes is consistent with the header: the elements, flags and values
// found fit the data exactly, and a pickle is no input.
func FuzzInputs(f *testing.F) {
	f.Fuzz(func(t *testing.T, file []byte) {
		h, err := readNpyBytes(file)
		if err != nil {
			return
		}
		if w, err := npyValues(h); err == nil && uint64(w) != h.ItemSize {
			t.Fatalf("%d-byte values in %+v", w, *h)
		}
		if h.Pickled {
			// A pickle is no input: every input refuses it.
			_, err1 := npyElements(h, vkcompact.Struct(8, 4, vkcompact.Int32))
			_, err2 := npyFlags(h)
			_, err3 := npyValues(h)
			if err1 == nil || err2 == nil || err3 == nil {
				t.Fatalf("pickled %+v taken as an input", *h)
			}
		}
		for _, e := range []vkcompact.Elem{vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Float64),
			vkcompact.Struct(8, 4, vkcompact.Int32), vkcompact.Struct(32, 28, vkcompact.Float32)} {
			if n, err := npyElements(h, e); err == nil && n*uint64(e.Size()) != h.Count*h.ItemSize {
				t.Fatalf("%d elements of %d bytes in %d bytes of data (%+v)", n, e.Size(), h.Count*h.ItemSize, *h)
			}
		}
		if w, err := npyFlags(h); err == nil && uint64(w) != h.ItemSize {
			t.Fatalf("%d-byte flags in %+v", w, *h)
		}
	})
}

// FuzzRecordLayout: a key chosen by any field's name of a structured
// dtype the parser accepts is refused with a message or laid out for the
// GPU to the library's rules, holding the field.
func FuzzRecordLayout(f *testing.F) {
	for _, s := range []string{"[('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('life', '<f4')]", "[('flag', '|u1'), ('x', '<f4'), ('id', '<u2')]",
		"[('flag', '|u1'), ('', '|V3'), ('x', '<f4'), ('id', '<u8')]", "[('pos', [('x', '<f4'), ('y', '<f8')]), ('c', '|u1')]",
		"[('a', '|V3'), ('k', '<u4'), ('b', '|V248')]", "[('a', '|V3'), ('k', '<u4'), ('b', '|V250')]", "[('o', '|O'), ('x', '<f4')]",
		"[('v', '<f4', (3,)), ('k', '<i8')]", "[(('t', 'a'), '<i4'), ('b', '>u4')]", "[('a', [('b', [('c', '<u8')])]), ('d', '<f2')]"} {
		f.Add(s)
	}
	all := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}
	f.Fuzz(func(t *testing.T, descr string) {
		// No items first, for the record's size; then three.
		empty, err := readNpyBytes(npyFile("{'descr': "+descr+", 'fortran_order': False, 'shape': (0,), }", nil))
		if err != nil || empty.Record == nil || empty.ItemSize > 1<<16 {
			return
		}
		h, err := readNpyBytes(npyFile("{'descr': "+descr+", 'fortran_order': False, 'shape': (3,), }", make([]byte, 3*empty.ItemSize)))
		if err != nil {
			t.Fatalf("%s: %v with three records", descr, err)
		}
		r := h.Record
		for _, fd := range r.Fields {
			in := &Input{Name: "-in r.npy", Npy: h}
			ef := ElemFlags{Op: "compact", Set: map[string]bool{"key": true}, Key: fd.Name, Structs: true, Types: all}
			l, err := ef.Resolve(in)
			if err != nil {
				continue
			}
			shift := uint64(l.records.Shift())
			if r.Object != nil || fd.KeyType() == vkcompact.Unset || l.Elem.Key != fd.KeyType() || l.Elem.Check() != nil ||
				uint64(l.Elem.KeyOffset) != fd.Offset+shift || l.Size != r.ItemSize || uint64(l.Elem.Stride) < r.ItemSize+shift ||
				uint64(l.Elem.Stride) >= r.ItemSize+shift+4 || l.N != 3 {
				t.Fatalf("%s: key %s laid out as %+v", descr, fd.Name, l)
			}
		}
	})
}
