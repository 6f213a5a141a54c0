package fileio

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// writeNpy writes a 1-D .npy file of n items of descr, data as given,
// to dir/name and returns its path.
func writeNpy(t *testing.T, dir, name, descr, shape string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	b := npyFile("{'descr': '"+descr+"', 'fortran_order': False, 'shape': "+shape+", }", data)
	if !strings.HasSuffix(name, ".npy") {
		b = data
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// le writes words of width bytes, little-endian.
func le(width int, words ...uint64) []byte {
	var b []byte
	for _, w := range words {
		if width == 4 {
			b = binary.LittleEndian.AppendUint32(b, uint32(w))
		} else {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
	}
	return b
}

// TestReadIndices: raw uint32 and .npy of uint32, int32, int64 and
// uint64 read as uint32 indices; a negative index, one past 2^32-1,
// another dtype, a big-endian one, 2-D and a raw file of a partial index
// are refused by name.
func TestReadIndices(t *testing.T) {
	dir := vktest.TempDir(t)
	want := []uint32{0, 7, 1<<32 - 1, 3}
	for _, tc := range []struct {
		name, descr string
		data        []byte
	}{
		{"raw", "", le(4, 0, 7, 1<<32-1, 3)},
		{"u4.npy", "<u4", le(4, 0, 7, 1<<32-1, 3)},
		{"i8.npy", "<i8", le(8, 0, 7, 1<<32-1, 3)},
		{"u8.npy", "<u8", le(8, 0, 7, 1<<32-1, 3)},
	} {
		var fs Files
		got, err := fs.ReadIndices("-indices", writeNpy(t, dir, tc.name, tc.descr, "(4,)", tc.data))
		fs.Close()
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, want)
		}
	}
	var fs Files
	if got, err := fs.ReadIndices("-indices", writeNpy(t, dir, "i4.npy", "<i4", "(2,)", le(4, 5, 2))); err != nil || !slices.Equal(got, []uint32{5, 2}) {
		t.Errorf("i4: %v, %v", got, err)
	}
	fs.Close()
	for _, tc := range []struct {
		name, descr, shape string
		data               []byte
		want               string
	}{
		{"neg.npy", "<i4", "(2,)", le(4, 1, 0xfffffffe), "index 1 is negative (-2)"},
		{"neg8.npy", "<i8", "(1,)", le(8, 1<<63), "index 0 is negative (-9223372036854775808)"},
		{"big.npy", "<u8", "(2,)", le(8, 0, 1<<32), "index 1 is 4294967296: indices are uint32, at most 4294967295"},
		{"big8.npy", "<i8", "(1,)", le(8, 1<<40), "index 0 is 1099511627776: indices are uint32"},
		{"f8.npy", "<f8", "(1,)", le(8, 0), "dtype '<f8': indices must be integers: uint32 ('<u4'), int32 ('<i4'), int64 ('<i8') or uint64 ('<u8')"},
		{"u2.npy", "<u2", "(2,)", []byte{0, 0, 0, 0}, "dtype '<u2': indices must be integers"},
		{"be.npy", ">i8", "(1,)", le(8, 0), "big-endian dtype '>i8' is not supported: want '<i8'"},
		{"2d.npy", "<u4", "(1, 2)", le(4, 0, 0), "shape (1, 2): want a 1-D array"},
		{"odd", "", "", []byte{1, 2, 3, 4, 5}, "5 bytes is not a whole number of 4-byte indices"},
	} {
		var fs Files
		_, err := fs.ReadIndices("-indices", writeNpy(t, dir, tc.name, tc.descr, tc.shape, tc.data))
		fs.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "-indices "+filepath.Join(dir, tc.name)) {
			t.Errorf("%s: %v, want an error naming the file and %q", tc.name, err, tc.want)
		}
	}
}

// TestOpenTyped: a .npy array's dtype gives the type, which a type flag
// must agree with; a raw file takes the flag's; the count must be the
// elements'; other dtypes and types are refused by name.
func TestOpenTyped(t *testing.T) {
	dir := vktest.TempDir(t)
	types := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}
	for _, tc := range []struct {
		name, descr, shape, flag string
		data                     []byte
		n                        uint64
		typ                      vkcompact.Type
		want                     string
	}{
		{"f4.npy", "<f4", "(3,)", "", le(4, 1, 2, 3), 3, vkcompact.Float32, ""},
		{"u8.npy", "<u8", "(2,)", "u64", le(8, 1, 2), 2, vkcompact.Uint64, ""},
		{"raw", "", "", "i32", le(4, 1, 2), 2, vkcompact.Int32, ""},
		{"raw2", "", "", "", le(4, 1, 2), 2, 0, "is a raw file: give -keys-type T (u32, i32, f32 or u64), or a .npy array"},
		{"bad.npy", "<u4", "(2,)", "u16", le(4, 1, 2), 2, 0, "-keys-type u16: want u32, i32, f32 or u64"},
		{"i64type.npy", "<u4", "(2,)", "i64", le(4, 1, 2), 2, 0, "-keys-type i64: want u32, i32, f32 or u64"},
		{"contra.npy", "<u4", "(2,)", "f32", le(4, 1, 2), 2, 0, "dtype '<u4' (u32) contradicts -keys-type f32"},
		{"f8.npy", "<f8", "(2,)", "", le(8, 1, 2), 2, 0, "dtype '<f8': keys must be u32, i32, f32 or u64 ('<u4', '<i4', '<f4' or '<u8')"},
		{"be.npy", ">u4", "(2,)", "", le(4, 1, 2), 2, 0, "big-endian dtype '>u4' is not supported"},
		{"2d.npy", "<u4", "(1, 2)", "", le(4, 1, 2), 2, 0, "shape (1, 2): want a 1-D array"},
		{"short.npy", "<u4", "(2,)", "", le(4, 1, 2), 3, 0, "holds 2 keys for 3 elements"},
		{"odd", "", "", "u64", le(4, 1, 2, 3), 1, 0, "12 bytes is not a whole number of 8-byte u64 keys"},
	} {
		var fs Files
		in, typ, err := fs.OpenTyped("-keys", writeNpy(t, dir, tc.name, tc.descr, tc.shape, tc.data), "-keys-type", tc.flag, tc.n, "keys", types)
		fs.Close()
		switch {
		case tc.want == "" && (err != nil || typ != tc.typ || in == nil):
			t.Errorf("%s: %v, %v; want %v", tc.name, typ, err, tc.typ)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
