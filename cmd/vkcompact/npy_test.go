package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
)

// npyVersion returns a .npy file of format version major.0 with the header
// dict and data, padded as NumPy pads it.
func npyVersion(major byte, dict string, data []byte) []byte {
	pre := 10
	if major > 1 {
		pre = 12
	}
	hlen := len(dict) + 1
	hlen += (64 - (pre+hlen)%64) % 64
	b := append([]byte(npyMagic), major, 0)
	if major > 1 {
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen))
	} else {
		b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	}
	b = append(b, dict...)
	b = append(b, bytes.Repeat([]byte(" "), hlen-len(dict)-1)...)
	b = append(b, '\n')
	return append(b, data...)
}

// npyFile returns a version 1.0 .npy file of the header dict and data.
func npyFile(dict string, data []byte) []byte { return npyVersion(1, dict, data) }

func readNpyBytes(b []byte) (*npyHeader, error) {
	return readNpyHeader(bytes.NewReader(b), int64(len(b)))
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
		if h.descr != tc.descr || h.itemSize != tc.size || h.fortran || !slices.Equal(h.shape, []uint64{tc.n}) ||
			h.count != tc.n || h.dataOff != 128 {
			t.Errorf("%s: got %+v", tc.descr, *h)
		}
	}
	if got := string(npyHeaderBytes("<f4", 3)); got != v1[:128] {
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
			head := npyHeaderBytes(descr, n)
			if len(head)%64 != 0 || head[len(head)-1] != '\n' {
				t.Errorf("%s (%d,): header of %d bytes, want a multiple of 64 ending in a newline", descr, n, len(head))
			}
			// A reader sees the file's size, not its data: claim it.
			h, err := readNpyHeader(bytes.NewReader(head), int64(len(head))+int64(n*size))
			if err != nil {
				t.Fatalf("%s (%d,): %v", descr, n, err)
			}
			if h.descr != descr || h.itemSize != size || h.count != n || !slices.Equal(h.shape, []uint64{n}) ||
				h.fortran || h.dataOff != int64(len(head)) {
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
		if !slices.Equal(h.shape, tc.shape) {
			t.Errorf("%q: shape %v, want %v", tc.file[10:], h.shape, tc.shape)
		}
	}
}

// TestNpyCorrupt: every malformed file is an error that says what is
// wrong.
func TestNpyCorrupt(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
	data := make([]byte, 8)
	withLen := func(major byte, hlen uint32) []byte {
		b := append([]byte(npyMagic), major, 0)
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
		{append([]byte(npyMagic+"\x01\x01"), npyFile(good, data)[8:]...), "version 1.1"},
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
// holds a pickle), and each input refuses the dtypes it does not take by
// naming the dtype found and the one it wants, never as corrupt; a
// big-endian twin of a wanted dtype is told to be saved little-endian.
func TestNpyDtypes(t *testing.T) {
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
		if h.descr != tc.descr || h.itemSize != tc.size || h.pickled != tc.pickled || h.count != 96 {
			t.Errorf("%s: read %+v, want %d-byte items (pickled %v)", tc.descr, *h, tc.size, tc.pickled)
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
	// A structured dtype is read as records.
	h, err := readNpyBytes(npyFile("{'descr': [('a', '<f4'), ('b', '<u4')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)))
	if err != nil || h.record == nil || h.itemSize != 8 || h.descr != "[('a', '<f4'), ('b', '<u4')]" {
		t.Errorf("structured dtype: got %+v, %v", h, err)
	}
}

// TestNpyElements: which dtypes and shapes hold which elements.
func TestNpyElements(t *testing.T) {
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
		h, _, err := parseNpyDict(tc.dict)
		if err == nil {
			h.itemSize, h.pickled, err = descrSize(h.descr)
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.dict, err)
		}
		n, err := npyElements(h, tc.e)
		if tc.want == "" && (err != nil || n != tc.n) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s as %+v: got %d, %v; want %d, %q", tc.dict, tc.e, n, err, tc.n, tc.want)
		}
	}
}

// TestNpyFlags: bool and uint8 flags are bytes, uint32 flags words.
func TestNpyFlags(t *testing.T) {
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
		h, _, err := parseNpyDict(tc.dict)
		if err != nil {
			t.Fatalf("%s: %v", tc.dict, err)
		}
		w, err := npyFlags(h)
		if tc.want == "" && (err != nil || w != tc.width) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %d, %v; want %d, %q", tc.dict, w, err, tc.width, tc.want)
		}
	}
}

// FuzzReadNpy: the reader never panics, and what it accepts is
// consistent: the data the header describes is exactly what follows it,
// and the elements found in it fit in it.
func FuzzReadNpy(f *testing.F) {
	f.Fuzz(func(t *testing.T, file []byte) {
		h, err := readNpyBytes(file)
		if err != nil {
			return
		}
		if h.dataOff > int64(len(file)) || !h.pickled && h.count*h.itemSize != uint64(int64(len(file))-h.dataOff) {
			t.Fatalf("accepted %+v for a file of %d bytes", *h, len(file))
		}
		_ = h.shapeString()
		if w, err := npyValues(h); err == nil && uint64(w) != h.itemSize {
			t.Fatalf("%d-byte values in %+v", w, *h)
		}
		if h.pickled {
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
			if n, err := npyElements(h, e); err == nil && n*uint64(e.Size()) != h.count*h.itemSize {
				t.Fatalf("%d elements of %d bytes in %d bytes of data (%+v)", n, e.Size(), h.count*h.itemSize, *h)
			}
		}
		if r := h.record; r != nil && (r.itemSize != h.itemSize || h.pickled != (r.object != nil) || h.descr != r.literal) {
			t.Fatalf("a record of %d bytes (objects %v) read as %+v", r.itemSize, r.object != nil, *h)
		}
		if w, err := npyFlags(h); err == nil && uint64(w) != h.itemSize {
			t.Fatalf("%d-byte flags in %+v", w, *h)
		}
	})
}
