package main

import (
	"bytes"
	"encoding/binary"
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
		size, err := descrSize(descr)
		if err != nil {
			t.Fatalf("%s: %v", descr, err)
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
		{npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", data), "structured dtypes are not supported"},
		{npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}", data), "big-endian dtype '>f4'"},
		{npyFile("{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<M8[ns]' is not supported"},
		{npyFile("{'descr': 'f4', 'fortran_order': False, 'shape': (2,)}", data), "dtype 'f4' is not supported"},
		{npyFile("{'descr': '<f0', 'fortran_order': False, 'shape': (2,)}", data), "dtype '<f0' is not supported"},
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
		h, err := parseNpyDict(tc.dict)
		if err == nil {
			h.itemSize, err = descrSize(h.descr)
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
		h, err := parseNpyDict(tc.dict)
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
		if h.dataOff > int64(len(file)) || h.count*h.itemSize != uint64(int64(len(file))-h.dataOff) {
			t.Fatalf("accepted %+v for a file of %d bytes", *h, len(file))
		}
		_ = h.shapeString()
		for _, e := range []vkcompact.Elem{vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Float64),
			vkcompact.Struct(8, 4, vkcompact.Int32), vkcompact.Struct(32, 28, vkcompact.Float32)} {
			if n, err := npyElements(h, e); err == nil && n*uint64(e.Size()) != h.count*h.itemSize {
				t.Fatalf("%d elements of %d bytes in %d bytes of data (%+v)", n, e.Size(), h.count*h.itemSize, *h)
			}
		}
		if w, err := npyFlags(h); err == nil && uint64(w) != h.itemSize {
			t.Fatalf("%d-byte flags in %+v", w, *h)
		}
	})
}
