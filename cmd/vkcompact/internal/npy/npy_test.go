package npy

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy/npytest"
)

// npyFile returns a version 1.0 .npy file of the header dict and data.
func npyFile(dict string, data []byte) []byte { return npytest.File(dict, data) }

// npyVersion returns a .npy file of format version major.0 with the
// header dict and data.
func npyVersion(major byte, dict string, data []byte) []byte {
	return npytest.FileVersion(major, dict, data)
}

// headerOf returns the header of a C-order 1-D array of n items of the
// dtype string descr ('<f4').
func headerOf(descr string, n uint64) []byte { return HeaderFor(Quote(descr), n) }

func readNpyBytes(b []byte) (*Header, error) {
	return ReadHeader(bytes.NewReader(b), int64(len(b)))
}

// TestNpyNumPyFiles reads files as NumPy 1.24 writes them (np.save of
// np.arange(3, dtype='<f4'), and format.write_array of np.arange(2,
// dtype='<u8') at version 3.0), and writes the first one's header byte
// for byte.
func TestNpyNumPyFiles(t *testing.T) {
	v1 := "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" +
		strings.Repeat(" ", 60) + "\n\x00\x00\x00\x00\x00\x00\x80?\x00\x00\x00@"
	v3 := "\x93NUMPY\x03\x00t\x00\x00\x00{'descr': '<u8', 'fortran_order': False, 'shape': (2,), }" +
		strings.Repeat(" ", 58) + "\n\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
	for _, tc := range []struct {
		file  string
		descr string
		size  uint64
		n     uint64
	}{{v1, "<f4", 4, 3}, {v3, "<u8", 8, 2}} {
		h, err := readNpyBytes([]byte(tc.file))
		if err != nil {
			t.Fatalf("%q: %v", tc.file[:20], err)
		}
		if h.Descr != tc.descr || h.ItemSize != tc.size || h.Fortran || !slices.Equal(h.Shape, []uint64{tc.n}) ||
			h.Count != tc.n || h.DataOffset != 128 {
			t.Errorf("%s: got %+v", tc.descr, *h)
		}
	}
	if got := string(headerOf("<f4", 3)); got != v1[:128] {
		t.Errorf("header\n%q\nwant NumPy's\n%q", got, v1[:128])
	}
}

// TestNpyRoundTrip writes headers for every dtype the tool writes and
// reads them back.
func TestNpyRoundTrip(t *testing.T) {
	for _, descr := range []string{"<u4", "<i4", "<f4", "<u8", "<i8", "<f8", "|V4", "|V32", "|V256"} {
		size, pickled, err := descrSize(descr)
		if err != nil || pickled {
			t.Fatalf("%s: %v (pickled %v)", descr, err, pickled)
		}
		for _, n := range []uint64{0, 1, 3, 1000, 1 << 33} {
			head := headerOf(descr, n)
			if len(head)%64 != 0 || head[len(head)-1] != '\n' {
				t.Errorf("%s (%d,): header of %d bytes, want a multiple of 64 ending in a newline", descr, n, len(head))
			}
			// A reader sees the file's size, not its data: claim it.
			h, err := ReadHeader(bytes.NewReader(head), int64(len(head))+int64(n*size))
			if err != nil {
				t.Fatalf("%s (%d,): %v", descr, n, err)
			}
			if h.Descr != descr || h.ItemSize != size || h.Count != n || !slices.Equal(h.Shape, []uint64{n}) ||
				h.Fortran || h.DataOffset != int64(len(head)) {
				t.Errorf("%s (%d,): read back %+v", descr, n, *h)
			}
		}
	}
}

// TestNpyHeaderForms reads headers NumPy would read: versions 2.0 and 3.0,
// other key orders, double quotes, no trailing comma, Python 2 long
// integers, 2-D and 0-D shapes.
func TestNpyHeaderForms(t *testing.T) {
	for _, tc := range []struct {
		file  []byte
		shape []uint64
	}{
		{npyVersion(2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", make([]byte, 8)), []uint64{2}},
		{npyVersion(3, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", make([]byte, 8)), []uint64{2}},
		{npyFile(`{"shape": (2,), "descr": "<i4", "fortran_order": False}`, make([]byte, 8)), []uint64{2}},
		{npyFile("{ 'fortran_order' : False ,\t'descr':'<i4','shape':( 2L , ) }", make([]byte, 8)), []uint64{2}},
		{npyFile("{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", make([]byte, 6)), []uint64{2, 3}},
		{npyFile("{'descr': '<f8', 'fortran_order': True, 'shape': (), }", make([]byte, 8)), nil},
		{npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 5), }", nil), []uint64{0, 5}},
	} {
		h, err := readNpyBytes(tc.file)
		if err != nil {
			t.Errorf("%q: %v", tc.file[10:], err)
			continue
		}
		if !slices.Equal(h.Shape, tc.shape) {
			t.Errorf("%q: shape %v, want %v", tc.file[10:], h.Shape, tc.shape)
		}
	}
}

// TestNpyCorrupt: every malformed file is an error that says what is
// wrong.
func TestNpyCorrupt(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
	data := make([]byte, 8)
	withLen := func(major byte, hlen uint32) []byte {
		b := append([]byte(Magic), major, 0)
		b = binary.LittleEndian.AppendUint32(b, hlen)
		return append(b, make([]byte, 100)...)
	}
	for _, tc := range []struct {
		file []byte
		want string
	}{
		{[]byte("\x93NUMPY\x01"), "too short for a header"},
		{[]byte("\x93NUMPZ\x01\x00\x00\x00"), "not a .npy file"},
		{npyVersion(1, good, data)[:20], "a header of 118 bytes in a file of 20"},
		{withLen(2, 1<<30), "at most"},
		{withLen(3, 200), "a header of 200 bytes in a file of 112"},
		{withLen(4, 0), "version 4.0"},
		{append([]byte(Magic+"\x01\x01"), npyFile(good, data)[8:]...), "version 1.1"},
		{npyFile(good, data[:7]), "is 2 items of 4 bytes; the file has 7 bytes"},
		{npyFile(good, append(data, 0)), "the file has 9 bytes"},
		{npyFile("{'descr': '<f4', 'fortran_order': False}", data), "not exactly descr, fortran_order and shape"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data), "not exactly"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shapes': (2,)}", data), "not exactly"},
		{npyFile("{'descr': '<f4', 'descr': '<f4', 'shape': (2,)}", data), "appears twice"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", data), "shape is not a tuple"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", data), "unexpected \"-2,)}"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': ('2',)}", data), "other than integers"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2)}", data), "too many items"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551616,)}", data), "too large"},
		{npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", data), "fortran_order is not True or False"},
		{npyFile("{'descr': 4, 'fortran_order': False, 'shape': (2,)}", data), "descr is not a string"},
		{npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2)}", data), "corrupt .npy header: shape is not a tuple"},
		{npyFile("{'descr': [('a', 4)], 'fortran_order': False, 'shape': (2,)}", data), "structured dtype: field 'a': dtype 4: want a dtype string, a list of fields or (dtype, shape)"},
		{npyFile("{'descr': [('a',)], 'fortran_order': False, 'shape': (2,)}", data), "structured dtype: field 0, ('a',): want (name, dtype) or (name, dtype, shape)"},
		{npyFile("{'descr': [(3, '<f4')], 'fortran_order': False, 'shape': (2,)}", data), "field 0: name 3: want a string or (title, name)"},
		{npyFile("{'descr': [('a', '<f4'), ('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", data), "field name 'a' appears twice"},
		{npyFile("{'descr': [(('a', 'b'), '<f4'), ('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", data), "field name 'a' appears twice (as a name or a title)"},
		{npyFile("{'descr': [('a', '<q4')], 'fortran_order': False, 'shape': (2,)}", data), "field 'a': dtype '<q4' is not supported"},
		{npyFile("{'descr': [('a', '<f4', ('x',))], 'fortran_order': False, 'shape': (1,)}", data), "field 'a': sub-array shape ('x',): want a tuple of integers"},
		{npyFile("{'descr': [('a', '<f4', (4294967296, 4294967296))], 'fortran_order': False, 'shape': (1,)}", data), "sub-array of shape (4294967296, 4294967296): too large"},
		{npyFile("{'descr': [('a', '|V4294967295', (256,)), ('b', '|V4294967295')], 'fortran_order': False, 'shape': (1,)}", data), "a record of more than 2^40 bytes"},
		{npyFile("{'descr': [('a', '<f4'), ('b', '<u2')], 'fortran_order': False, 'shape': (2,)}", data), "is 2 items of 6 bytes; the file has 8 bytes"},
		{npyFile("{'descr': [('a\tb', '<f4')], 'fortran_order': False, 'shape': (2,)}", data), "has control characters"},
		{npyFile("{'descr': 'f4', 'fortran_order': False, 'shape': (2,)}", data), "dtype 'f4' is not supported"},
		{npyFile("{'descr': '<f0', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<f0' is not supported"},
		{npyFile("{'descr': '<u3', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<u3' is not supported"},
		{npyFile("{'descr': '|b2', 'fortran_order': False, 'shape': (2,)}", data), "dtype '|b2' is not supported"},
		{npyFile("{'descr': '<M4', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<M4' is not supported"},
		{npyFile("{'descr': '<M8[xs]', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<M8[xs]' is not supported"},
		{npyFile("{'descr': '<m8[]', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<m8[]' is not supported"},
		{npyFile("{'descr': '<U', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<U' is not supported"},
		{npyFile("{'descr': '|O2', 'fortran_order': False, 'shape': (2,)}", data), "dtype '|O2' is not supported"},
		{npyFile("{'descr': '|S+4', 'fortran_order': False, 'shape': (2,)}", data), "dtype '|S+4' is not supported"},
		{npyFile("{'descr': '<', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<' is not supported"},
		{npyFile("{'descr': '', 'fortran_order': False, 'shape': (2,)}", data), "dtype '' is not supported"},
		{npyFile("{'descr': '<U1', 'fortran_order': False, 'shape': (2,)}", data[:2]), "shape (2,) of '<U1' is 2 items of 4 bytes; the file has 2 bytes"},
		{npyFile("{'descr': '<U3', 'fortran_order': False, 'shape': (2,)}", data), "shape (2,) of '<U3' is 2 items of 12 bytes; the file has 8 bytes"},
		{npyFile("{'descr': '>u4', 'fortran_order': False, 'shape': (2,)}", data[:4]), "shape (2,) of '>u4' is 2 items of 4 bytes; the file has 4 bytes"},
		{npyFile("{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", data), "no ':' after key"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", data), "expected ',' or '}'"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", data), "after the dict"},
		{npyFile("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,)}", data), "escapes are not supported"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", data), "unexpected end"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 3: 4}", data), "a dict key is not a string"},
		{npyFile("['descr']", data), "not a dict"},
		{npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "+strings.Repeat("(", 40)+"2,)}", data), "nested too deeply"},
		{npyFile("{'descr': '<f4', 'fortran_order': Flase, 'shape': (2,)}", data), "unexpected \"Flase"},
		{npyFile("{'descr': \"<f4', 'fortran_order': False, 'shape': (2,)}", data), "unterminated string"},
	} {
		_, err := readNpyBytes(tc.file)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error mentioning %q", tc.file[min(10, len(tc.file)):], err, tc.want)
		}
	}
}

// TestNpyDtypes: a well-formed file of any dtype NumPy writes is read,
// with the item size NumPy gives it ('U' counts 4-byte characters, '|O'
// holds a pickle), never called corrupt: which dtypes an input takes is
// the input's to say.
func TestNpyDtypes(t *testing.T) {
	for _, tc := range []struct {
		descr   string
		size    uint64 // bytes per item; 0 with pickled
		pickled bool
	}{
		{"<U1", 4, false}, {"<U3", 12, false}, {">U2", 8, false}, {"|U0", 0, false},
		{"|S4", 4, false}, {"|S1", 1, false}, {"|V12", 12, false}, {"|V4", 4, false},
		{"<c8", 8, false}, {"<c16", 16, false}, {"<f2", 2, false}, {"<f16", 16, false},
		{"<i2", 2, false}, {"|i1", 1, false}, {"<M8[ns]", 8, false}, {"<m8[10ms]", 8, false}, {"<M8", 8, false},
		{"|O", 0, true}, {"|O8", 0, true},
		{">u4", 4, false}, {">f4", 4, false}, {"=u4", 4, false}, {"<u4", 4, false}, {"|u1", 1, false}, {"|b1", 1, false},
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
		if h.Descr != tc.descr || h.ItemSize != tc.size || h.Pickled != tc.pickled || h.Count != 96 || h.Record != nil {
			t.Errorf("%s: read %+v, want %d-byte items (pickled %v)", tc.descr, *h, tc.size, tc.pickled)
		}
	}
	// A structured dtype is read as records.
	h, err := readNpyBytes(npyFile("{'descr': [('a', '<f4'), ('b', '<u4')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)))
	if err != nil || h.Record == nil || h.ItemSize != 8 || h.Descr != "[('a', '<f4'), ('b', '<u4')]" {
		t.Errorf("structured dtype: got %+v, %v", h, err)
	}
}

// TestKeyTypes: each key type has its little-endian dtype, and only
// those dtypes are key types.
func TestKeyTypes(t *testing.T) {
	for typ, d := range map[vkcompact.Type]string{vkcompact.Uint32: "<u4", vkcompact.Int32: "<i4", vkcompact.Float32: "<f4",
		vkcompact.Uint64: "<u8", vkcompact.Int64: "<i8", vkcompact.Float64: "<f8"} {
		if Dtype(typ) != d || KeyType(d) != typ {
			t.Errorf("%v: Dtype %q, KeyType(%q) %v", typ, Dtype(typ), d, KeyType(d))
		}
	}
	for _, d := range []string{">u4", "|u1", "<u2", "<f2", "|V4", "", "u4"} {
		if KeyType(d) != vkcompact.Unset {
			t.Errorf("KeyType(%q) = %v, want unset", d, KeyType(d))
		}
	}
	if Dtype(vkcompact.Unset) != "" {
		t.Errorf("Dtype(Unset) = %q", Dtype(vkcompact.Unset))
	}
}

// FuzzReadNpy: the reader never panics, and what it accepts is
// consistent: the data the header describes is exactly what follows it,
// and a record's size and literal are the header's.
func FuzzReadNpy(f *testing.F) {
	f.Fuzz(func(t *testing.T, file []byte) {
		h, err := readNpyBytes(file)
		if err != nil {
			return
		}
		if h.DataOffset > int64(len(file)) || !h.Pickled && h.Count*h.ItemSize != uint64(int64(len(file))-h.DataOffset) {
			t.Fatalf("accepted %+v for a file of %d bytes", *h, len(file))
		}
		_ = h.ShapeString()
		if r := h.Record; r != nil && (r.ItemSize != h.ItemSize || h.Pickled != (r.Object != nil) || h.Descr != r.Literal) {
			t.Fatalf("a record of %d bytes (objects %v) read as %+v", r.ItemSize, r.Object != nil, *h)
		}
	})
}
