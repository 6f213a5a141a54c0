package fileio

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
)

// indexDtypes are the .npy dtypes ReadIndices takes: uint32, and the
// integers NumPy's index functions return (int64, its intp; int32 and
// uint64), each index checked to fit a uint32.
var indexDtypes = []string{"<u4", "<i4", "<i8", "<u8"}

// ReadIndices opens the file the flag flagName names at path, reads it as
// uint32 indices (raw uint32, or a 1-D .npy of uint32, int32, int64 or
// uint64: gather's and scatter's -indices, np.argsort's int64 as it is)
// and keeps it to close. An index that is negative or past 2^32-1 is an
// error naming its position.
func (fs *Files) ReadIndices(flagName, path string) ([]uint32, error) {
	f, err := fs.Open(flagName, path)
	if err != nil {
		return nil, err
	}
	width := uint64(4)
	descr := "<u4"
	if f.Npy != nil {
		if err := npyDtype(f.Npy, ": indices must be integers: uint32 ('<u4'), int32 ('<i4'), int64 ('<i8') or uint64 ('<u8')", indexDtypes...); err != nil {
			return nil, usage.Errorf("%s: %v", f.Name, err)
		}
		if len(f.Npy.Shape) != 1 {
			return nil, usage.Errorf("%s: shape %s: want a 1-D array", f.Name, f.Npy.ShapeString())
		}
		descr, width = f.Npy.Descr, f.Npy.ItemSize
	}
	switch {
	case f.Bytes%width != 0:
		return nil, usage.Errorf("%s: %d bytes is not a whole number of %d-byte indices", f.Name, f.Bytes, width)
	case f.Bytes/width > MaxIndices:
		return nil, usage.Errorf("%s: %d indices: at most %d", f.Name, f.Bytes/width, uint64(MaxIndices))
	}
	data, err := f.Read(f.Bytes)
	if err != nil {
		return nil, err
	}
	n := f.Bytes / width
	idx := make([]uint32, n)
	for i := range idx {
		var v uint64
		var neg bool
		switch descr {
		case "<u4":
			v = uint64(binary.LittleEndian.Uint32(data[4*i:]))
		case "<i4":
			s := int32(binary.LittleEndian.Uint32(data[4*i:]))
			v, neg = uint64(s), s < 0
		case "<i8":
			s := int64(binary.LittleEndian.Uint64(data[8*i:]))
			v, neg = uint64(s), s < 0
		default:
			v = binary.LittleEndian.Uint64(data[8*i:])
		}
		switch {
		case neg:
			return nil, usage.Errorf("%s: index %d is negative (%d)", f.Name, i, int64(v))
		case v > 1<<32-1:
			return nil, usage.Errorf("%s: index %d is %d: indices are uint32, at most %d", f.Name, i, v, uint64(1<<32-1))
		}
		idx[i] = uint32(v)
	}
	return idx, nil
}

// MaxIndices is the most indices ReadIndices reads: positions are 32-bit
// on the GPU.
const MaxIndices = 1<<32 - 1

// ReadValues opens the file the flag flagName names at path, reads it as
// values of type t (raw little-endian, or a 1-D .npy of t's dtype),
// keeps it to close, and returns the values' bytes and count. what names
// the values and why they are of t, for the message of another dtype:
// "the edges must be f32, the samples' type".
func (fs *Files) ReadValues(flagName, path string, t vkcompact.Type, what string) ([]byte, uint64, error) {
	f, err := fs.Open(flagName, path)
	if err != nil {
		return nil, 0, err
	}
	want := npy.Dtype(t)
	if f.Npy != nil {
		if err := npyDtype(f.Npy, fmt.Sprintf(": %s ('%s')", what, want), want); err != nil {
			return nil, 0, usage.Errorf("%s: %v", f.Name, err)
		}
		if len(f.Npy.Shape) != 1 {
			return nil, 0, usage.Errorf("%s: shape %s: want a 1-D array", f.Name, f.Npy.ShapeString())
		}
	} else if f.Bytes%uint64(t.Size()) != 0 {
		return nil, 0, usage.Errorf("%s: %d bytes is not a whole number of %d-byte %s values", f.Name, f.Bytes, t.Size(), t)
	}
	data, err := f.Read(f.Bytes)
	if err != nil {
		return nil, 0, err
	}
	return data, f.Bytes / uint64(t.Size()), nil
}

// OpenTyped opens the input the flag flagName names at path, whose items
// have a type of their own, one of types (reduce's -keys): a .npy
// array's dtype gives it, and the flag typeFlag (typeText, "" where not
// given) must agree; a raw file needs typeFlag. It checks that the file
// holds n items, keeps it to close, and returns it and the type.
func (fs *Files) OpenTyped(flagName, path, typeFlag, typeText string, n uint64, items string, types []vkcompact.Type) (*Input, vkcompact.Type, error) {
	var t vkcompact.Type
	if typeText != "" {
		var err error
		if t, err = parseTypeOf("", typeText, types...); err != nil {
			return nil, 0, usage.Errorf("%s %s: want %s", typeFlag, typeText, typeList(types))
		}
	}
	f, err := fs.Open(flagName, path)
	if err != nil {
		return nil, 0, err
	}
	if f.Npy != nil {
		h := f.Npy
		got := npy.KeyType(h.Descr)
		switch {
		case got == vkcompact.Unset || !slices.Contains(types, got):
			err := npyDtype(h, fmt.Sprintf(": %s must be %s (%s)", items, typeList(types), dtypeList(types)), dtypeStrings(types)...)
			return nil, 0, usage.Errorf("%s: %v", f.Name, err)
		case h.Fortran:
			return nil, 0, usage.Errorf("%s: fortran_order is True: save a C-order array", f.Name)
		case len(h.Shape) != 1:
			return nil, 0, usage.Errorf("%s: shape %s: want a 1-D array", f.Name, h.ShapeString())
		case t != vkcompact.Unset && t != got:
			return nil, 0, usage.Errorf("%s: dtype '%s' (%s) contradicts %s %s", f.Name, h.Descr, got, typeFlag, t)
		}
		t = got
	} else if t == vkcompact.Unset {
		return nil, 0, usage.Errorf("%s is a raw file: give %s T (%s), or a .npy array", f.Name, typeFlag, typeList(types))
	} else if f.Bytes%uint64(t.Size()) != 0 {
		return nil, 0, usage.Errorf("%s: %d bytes is not a whole number of %d-byte %s %s", f.Name, f.Bytes, t.Size(), t, items)
	}
	if got := f.Bytes / uint64(t.Size()); got != n {
		return nil, 0, usage.Errorf("%s holds %d %s for %d elements", f.Name, got, items, n)
	}
	return f, t, nil
}

// dtypeStrings returns the .npy dtypes of types.
func dtypeStrings(types []vkcompact.Type) []string {
	d := make([]string, len(types))
	for i, t := range types {
		d[i] = npy.Dtype(t)
	}
	return d
}
