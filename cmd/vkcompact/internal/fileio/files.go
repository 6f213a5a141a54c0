// Package fileio is the inputs and outputs of vkcompact's file commands:
// input files opened and checked (raw, or .npy arrays of a plain or a
// structured dtype, read by package npy), the layout of their elements on
// the GPU as the flags and the file give it (ElemFlags, Layout: plain
// keys, structs, record arrays repacked by vkcompact.Records), and output
// files written to temporary files and renamed once all are complete.
// Its errors about the invocation or an input are usage errors (package
// usage); the device's are the library's.
package fileio

import (
	"encoding/binary"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
)

// Files is the files of a command's invocation: the inputs it opened,
// which Close closes, and the outputs it writes (CreateOutput each, and
// CommitAll them).
type Files struct {
	inputs  []*Input
	Outputs []OutputName // in the order of the command's outputs
}

// OutputName is an output file: the flag that names it and its path.
type OutputName struct {
	Flag string // "-out", "-values-out"
	Path string // the file's path, as given
}

// OutputData is an output's contents: the bytes, and what its .npy header
// says when its name ends in .npy.
type OutputData struct {
	Bytes []byte // the data, raw
	Dtype string // the items' dtype, as a Python literal: '<f4', or a record's list of fields
	N     uint64 // items
}

// Open opens the input file the flag flagName names at path, checked
// (openInput), and keeps it to close.
func (fs *Files) Open(flagName, path string) (*Input, error) {
	in, err := openInput(flagName, path)
	if err != nil {
		return nil, err
	}
	fs.inputs = append(fs.inputs, in)
	return in, nil
}

// PerElement describes an input that holds one item per element of the
// -in file: -flags, -values.
type PerElement struct {
	flag      string // "-flags"
	items, of string // what it holds and for what: "flags", "elements"
	rawWidth  uint32 // bytes per item in a raw file
	// npyWidth checks a .npy array of the items and returns their width.
	npyWidth func(*npy.Header) (uint32, error)
}

// FlagsInput and ValuesInput are compact's and split's -flags, and
// sort's -values.
var (
	FlagsInput  = PerElement{"-flags", "flags", "elements", 1, npyFlags}
	ValuesInput = PerElement{"-values", "values", "keys", 4, npyValues}
)

// OpenPerElement opens the input p describes, at path, checks that it
// holds n items, and returns it, kept to close, and the width of its
// items in bytes.
func (fs *Files) OpenPerElement(p PerElement, path string, n uint64) (*Input, uint32, error) {
	f, err := fs.Open(p.flag, path)
	if err != nil {
		return nil, 0, err
	}
	width := p.rawWidth
	if f.Npy != nil {
		if width, err = p.npyWidth(f.Npy); err != nil {
			return nil, 0, usage.Errorf("%s: %v", f.Name, err)
		}
	} else if f.Bytes%uint64(width) != 0 {
		return nil, 0, usage.Errorf("%s: %d bytes is not a whole number of %d-byte %s", f.Name, f.Bytes, width, p.items)
	}
	if got := f.Bytes / uint64(width); got != n {
		return nil, 0, usage.Errorf("%s holds %d %s for %d %s", f.Name, got, p.items, n, p.of)
	}
	return f, width, nil
}

// Close closes the input files; a second call does nothing.
func (fs *Files) Close() {
	for _, in := range fs.inputs {
		in.f.Close()
	}
	fs.inputs = nil
}

// ReadOffsets opens the file the flag flagName names at path, reads it
// as offsets (raw uint32, or a 1-D .npy of uint32 or of int32, none
// negative: segsort's -offsets) and keeps it to close.
func (fs *Files) ReadOffsets(flagName, path string) ([]uint32, error) {
	f, err := fs.Open(flagName, path)
	if err != nil {
		return nil, err
	}
	signed := false
	if f.Npy != nil {
		if err := npyDtype(f.Npy, ": offsets must be uint32 ('<u4') or int32 ('<i4')", "<u4", "<i4"); err != nil {
			return nil, usage.Errorf("%s: %v", f.Name, err)
		}
		if len(f.Npy.Shape) != 1 {
			return nil, usage.Errorf("%s: shape %s: want a 1-D array", f.Name, f.Npy.ShapeString())
		}
		signed = f.Npy.Descr == "<i4"
	}
	switch {
	case f.Bytes%4 != 0:
		return nil, usage.Errorf("%s: %d bytes is not a whole number of 4-byte offsets", f.Name, f.Bytes)
	case f.Bytes == 0:
		return nil, usage.Errorf("%s: no offsets: segments need segments+1 offsets (one, for no segments)", f.Name)
	case f.Bytes/4-1 > 1<<32-2:
		return nil, usage.Errorf("%s: %d offsets: at most 2^32-1", f.Name, f.Bytes/4)
	}
	data, err := f.Read(f.Bytes)
	if err != nil {
		return nil, err
	}
	offs := make([]uint32, f.Bytes/4)
	for i := range offs {
		offs[i] = binary.LittleEndian.Uint32(data[4*i:])
		if signed && int32(offs[i]) < 0 {
			return nil, usage.Errorf("%s: offset %d is negative (%d)", f.Name, i, int32(offs[i]))
		}
	}
	return offs, nil
}
