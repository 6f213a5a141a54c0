package fileio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/vk"
)

// Input is an input file, opened and checked, positioned at its data.
type Input struct {
	f     *os.File
	Name  string      // the flag and the path, for messages: "-in data.npy"
	Npy   *npy.Header // nil for a raw file
	Bytes uint64      // bytes of data
}

// openInput opens the file a flag names and reads its .npy header, if it
// has one (one is recognised by its magic string, whatever the name; a
// file named .npy must have one).
func openInput(flagName, path string) (*Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usage.Errorf("%s: %v", flagName, err)
	}
	in := &Input{f: f, Name: flagName + " " + path}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = usage.Errorf("%s: %v", in.Name, err)
	case !fi.Mode().IsRegular():
		err = usage.Errorf("%s: not a regular file", in.Name)
	default:
		in.Bytes = uint64(fi.Size())
		var magic [len(npy.Magic)]byte
		if _, rerr := f.ReadAt(magic[:], 0); rerr == nil && string(magic[:]) == npy.Magic {
			if in.Npy, err = npy.ReadHeader(f, fi.Size()); err != nil {
				err = usage.Errorf("%s: %v", in.Name, err)
			} else {
				in.Bytes = uint64(fi.Size() - in.Npy.DataOffset)
			}
		} else if strings.HasSuffix(path, ".npy") {
			// Read as raw, a damaged .npy file's header would become data.
			err = usage.Errorf("%s: not a .npy file: no \\x93NUMPY magic string (a raw file must not be named .npy)", in.Name)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// elements returns how many elements of e the input holds.
func (in *Input) elements(e vkcompact.Elem) (uint64, error) {
	n := in.Bytes / uint64(e.Size())
	if in.Npy != nil {
		var err error
		if n, err = npyElements(in.Npy, e); err != nil {
			return 0, usage.Errorf("%s: %v", in.Name, err)
		}
	} else if in.Bytes%uint64(e.Size()) != 0 {
		return 0, usage.Errorf("%s: %d bytes is not a whole number of %d-byte elements", in.Name, in.Bytes, e.Size())
	}
	if n > compact.MaxElements {
		return 0, usage.Errorf("%s: %d elements: at most %d", in.Name, n, uint64(compact.MaxElements))
	}
	return n, nil
}

// Read reads the data into a buffer of size bytes, at least the data's,
// zero past the data.
func (in *Input) Read(size uint64) ([]byte, error) {
	buf := make([]byte, max(size, in.Bytes))
	if _, err := io.ReadFull(in.f, buf[:in.Bytes]); err != nil {
		return nil, usage.Errorf("%s: reading it: %v (did it change meanwhile?)", in.Name, err)
	}
	return buf, nil
}

// Upload reads the data into a buffer of size bytes (Read) and copies it
// to r on the device. It returns the buffer, for the outputs to reuse.
func (in *Input) Upload(r vk.Range, size uint64) ([]byte, error) {
	data, err := in.Read(size)
	if err != nil {
		return nil, err
	}
	return data, vk.Upload(r, data)
}

// npyElements returns how many elements of e a .npy array holds. Plain
// elements take a 1-D array of the key's dtype. Structs of S bytes take a
// 1-D array of void items '|VS', or bytes ('|u1'): S*n of them in 1-D, or n
// rows of S in 2-D.
func npyElements(h *npy.Header, e vkcompact.Elem) (uint64, error) {
	if e.Stride == 0 {
		want := npy.Dtype(e.Key)
		if err := npyDtype(h, fmt.Sprintf(" does not match -type %s (want '%s')", e.Key, want), want); err != nil {
			return 0, err
		}
		if len(h.Shape) != 1 {
			return 0, fmt.Errorf("shape %s: want a 1-D array", h.ShapeString())
		}
		return h.Count, nil
	}
	stride := uint64(e.Stride)
	void := fmt.Sprintf("|V%d", stride)
	if err := npyDtype(h, fmt.Sprintf(" does not match -stride %d (want '%s', or bytes '|u1')", stride, void), void, "|u1"); err != nil {
		return 0, err
	}
	switch {
	case h.Descr == void && len(h.Shape) == 1:
		return h.Count, nil
	case h.Descr == "|u1" && len(h.Shape) == 1 && h.Count%stride == 0,
		h.Descr == "|u1" && len(h.Shape) == 2 && h.Shape[1] == stride:
		return h.Count / stride, nil
	}
	return 0, fmt.Errorf("shape %s of '%s' is not %d-byte structs: want (n,) of '%s', or (n, %d) or (%d*n,) of '|u1'",
		h.ShapeString(), h.Descr, stride, void, stride, stride)
}

// npyFlags returns the bytes per flag of a .npy flags array: a 1-D array
// of bool or uint8 (1) or uint32 (4).
func npyFlags(h *npy.Header) (uint32, error) {
	if err := npyDtype(h, ": flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')", "|b1", "|u1", "<u4"); err != nil {
		return 0, err
	}
	if len(h.Shape) != 1 {
		return 0, fmt.Errorf("shape %s: want a 1-D array", h.ShapeString())
	}
	if h.Descr == "<u4" {
		return 4, nil
	}
	return 1, nil
}

// npyValues returns the bytes per value of a .npy array of sort's values:
// a 1-D array of uint32.
func npyValues(h *npy.Header) (uint32, error) {
	if err := npyDtype(h, ": values must be uint32 ('<u4')", "<u4"); err != nil {
		return 0, err
	}
	if len(h.Shape) != 1 {
		return 0, fmt.Errorf("shape %s: want a 1-D array", h.ShapeString())
	}
	return 4, nil
}

// npyDtype checks that a .npy array is in C order and of one of the
// dtypes want. Another dtype is the error "dtype 'X'" followed by wrong,
// which names the dtypes wanted; a big-endian one whose little-endian
// form is wanted says so.
func npyDtype(h *npy.Header, wrong string, want ...string) error {
	if h.Fortran {
		return errors.New("fortran_order is True: save a C-order array")
	}
	if slices.Contains(want, h.Descr) {
		return nil
	}
	if le := "<" + h.Descr[min(1, len(h.Descr)):]; strings.HasPrefix(h.Descr, ">") && slices.Contains(want, le) {
		return fmt.Errorf("big-endian dtype '%s' is not supported: want '%s' (save the array little-endian: a.astype('%s'))", h.Descr, le, le)
	}
	return fmt.Errorf("dtype '%s'%s", h.Descr, wrong)
}
