// Package npy reads and writes the headers of NumPy's .npy files, the
// format of vkcompact's inputs and outputs: a magic string, a format
// version, a header that is a Python dict literal ({'descr': '<f4',
// 'fortran_order': False, 'shape': (3,), }) and the array's bytes. A
// header's dtype is a plain one ('<f4', '|V32', '<U3') or a structured
// one, records of named fields (Record), whose key field vkcompact's
// commands sort and select by. The reader takes versions 1.0, 2.0 and
// 3.0; the writer writes 1.0 where the header fits it, as NumPy does (2.0
// for a header past 65535 bytes, 3.0 for one that Latin-1 cannot encode,
// which a record's field names can make). Versions 1.0 and 2.0 encode the
// header in Latin-1, 3.0 in UTF-8; the reader decodes either into Go's
// UTF-8. Whether an array suits an input (its dtype, its shape) is for the
// command's inputs to say.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Magic starts every .npy file.
const Magic = "\x93NUMPY"

// maxHeader bounds the header length the reader accepts (NumPy's own
// reader stops at 10,000 bytes by default), so that a corrupt length does
// not make it allocate gigabytes.
const maxHeader = 1 << 20

// Header is a parsed .npy header.
type Header struct {
	Descr      string   // the dtype, e.g. "<f4", "|b1", "|V32", "<U3"; a record's as a Python literal (Record.Literal)
	Record     *Record  // a structured dtype's fields, or nil
	ItemSize   uint64   // bytes per item, from Descr (0 for plain objects, pickled)
	Pickled    bool     // the dtype holds Python objects ('|O'): the data is a pickle, not items
	Fortran    bool     // fortran_order
	Shape      []uint64 // the dimensions
	Count      uint64   // items: the product of Shape
	DataOffset int64    // the data's offset in the file
}

// ShapeString writes the shape as Python does: (), (3,), (3, 4).
func (h *Header) ShapeString() string { return FormatShape(h.Shape) }

// ReadHeader reads the header of a .npy file of size bytes from r,
// positioned at the file's start, and leaves r at the data. It checks the
// header's syntax, that its dtype is one NumPy writes, and that exactly
// the data the shape calls for follows (pickled data excepted). Whether
// the dtype suits an input is for the input to say, so that a
// well-formed array of another dtype is told which one is wanted rather
// than called corrupt. Its errors say what is wrong with the file.
func ReadHeader(r io.Reader, size int64) (*Header, error) {
	var pre [12]byte
	if size < 10 {
		return nil, errors.New("corrupt .npy file: too short for a header")
	}
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, fmt.Errorf("reading the .npy header: %w", err)
	}
	if string(pre[:6]) != Magic {
		return nil, errors.New("not a .npy file: no \\x93NUMPY magic string")
	}
	major, minor := pre[6], pre[7]
	var hlen, off int64
	switch {
	case minor != 0 || major < 1 || major > 3:
		return nil, fmt.Errorf(".npy format version %d.%d: only 1.0, 2.0 and 3.0 are supported", major, minor)
	case major == 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, fmt.Errorf("reading the .npy header: %w", err)
		}
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	default:
		if size < 12 {
			return nil, errors.New("corrupt .npy file: truncated header length")
		}
		if _, err := io.ReadFull(r, pre[8:12]); err != nil {
			return nil, fmt.Errorf("reading the .npy header: %w", err)
		}
		hlen, off = int64(binary.LittleEndian.Uint32(pre[8:12])), 12
	}
	if hlen > maxHeader {
		return nil, fmt.Errorf("corrupt .npy file: a header of %d bytes (at most %d accepted)", hlen, maxHeader)
	}
	if off+hlen > size {
		return nil, fmt.Errorf("corrupt .npy file: a header of %d bytes in a file of %d", hlen, size)
	}
	text := make([]byte, hlen)
	if _, err := io.ReadFull(r, text); err != nil {
		return nil, fmt.Errorf("reading the .npy header: %w", err)
	}
	var header string
	if major < 3 {
		header = latin1(text)
	} else if header = string(text); !utf8.ValidString(header) {
		return nil, errors.New("corrupt .npy header: not UTF-8, as format 3.0 encodes it")
	}
	h, descr, err := parseDict(header)
	if err != nil {
		return nil, fmt.Errorf("corrupt .npy header: %w", err)
	}
	if fields, ok := descr.(pyList); ok {
		if h.Record, err = parseRecord(fields); err != nil {
			return nil, fmt.Errorf("structured dtype: %w", err)
		}
		h.Descr, h.ItemSize, h.Pickled = h.Record.Literal, h.Record.ItemSize, h.Record.Object != nil
	} else if h.ItemSize, h.Pickled, err = descrSize(h.Descr); err != nil {
		return nil, err
	}
	h.DataOffset = off + hlen
	hi, data := bits.Mul64(h.Count, h.ItemSize)
	if !h.Pickled && (hi != 0 || data != uint64(size-h.DataOffset)) {
		return nil, fmt.Errorf("corrupt .npy file: shape %s of '%s' is %d items of %d bytes; the file has %d bytes after its header",
			h.ShapeString(), h.Descr, h.Count, h.ItemSize, size-h.DataOffset)
	}
	return h, nil
}

// latin1 decodes Latin-1 bytes, as .npy format 1.0 and 2.0 encode the
// header, into a string.
func latin1(b []byte) string {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			r := make([]rune, len(b))
			for i, c := range b {
				r[i] = rune(c)
			}
			return string(r)
		}
	}
	return string(b)
}

// parseDict parses a header's dict: exactly the keys descr,
// fortran_order and shape. It returns the descr as parsed, which for a
// structured dtype (h.Descr empty) is the list of fields.
func parseDict(text string) (*Header, any, error) {
	p := &pyParser{s: text}
	v, err := p.value(0)
	if err != nil {
		return nil, nil, err
	}
	if p.skipSpace(); p.i < len(p.s) {
		return nil, nil, fmt.Errorf("unexpected %q after the dict", p.s[p.i:min(p.i+10, len(p.s))])
	}
	dict, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("the header is not a dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := dict[k]; !ok || len(dict) != 3 {
			return nil, nil, errors.New("the header's keys are not exactly descr, fortran_order and shape")
		}
	}
	h := &Header{}
	switch d := dict["descr"].(type) {
	case string:
		h.Descr = d
	case pyList:
	default:
		return nil, nil, errors.New("descr is not a string or a list of fields")
	}
	if h.Fortran, ok = dict["fortran_order"].(bool); !ok {
		return nil, nil, errors.New("fortran_order is not True or False")
	}
	shape, ok := dict["shape"].(pyTuple)
	if !ok {
		return nil, nil, errors.New("shape is not a tuple")
	}
	for _, d := range shape {
		n, ok := d.(uint64)
		if !ok {
			return nil, nil, errors.New("shape holds something other than integers")
		}
		h.Shape = append(h.Shape, n)
	}
	h.Count = 1
	for _, n := range h.Shape {
		hi, lo := bits.Mul64(h.Count, n)
		if hi != 0 {
			return nil, nil, fmt.Errorf("shape %s: too many items", h.ShapeString())
		}
		h.Count = lo
	}
	return h, dict["descr"], nil
}

// kinds gives, for each dtype kind of fixed sizes, the sizes in bytes
// NumPy has: bool, integers, floats, complex numbers, datetimes ('M') and
// timedeltas ('m'). descrSize takes the other kinds: 'S' (bytes) and 'V'
// (void) of any size, 'U' (UCS-4 strings) and 'O' (Python objects).
var kinds = map[byte][]uint64{
	'b': {1},
	'i': {1, 2, 4, 8}, 'u': {1, 2, 4, 8},
	'f': {2, 4, 8, 12, 16}, 'c': {8, 16, 24, 32},
	'M': {8}, 'm': {8},
}

// timeUnits are the units of NumPy's datetime64 and timedelta64.
var timeUnits = []string{"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as"}

// descrSize checks a dtype string as NumPy writes one (dtype.str): a byte
// order ('<', '>' or '|'; '=', native, is read too), a kind, and a size:
// '<f4', '|b1', '|S4', '|V12', '<U3' (3 characters, 12 bytes), '<c8',
// '<M8[ns]', '|O'. It returns the item size in bytes, or pickled for
// Python objects, whose data is a pickle. Every such dtype is accepted
// here, whatever its byte order: the inputs say which they take. A string
// NumPy would not write (no byte order, an unknown kind, a size the kind
// does not have) is an error.
func descrSize(d string) (size uint64, pickled bool, err error) {
	bad := fmt.Errorf("dtype '%s' is not supported: not a dtype as NumPy writes one (byte order, kind, size: '<f4', '|u1', '|V32')", d)
	if len(d) < 2 || !strings.ContainsRune("<>|=", rune(d[0])) {
		return 0, false, bad
	}
	kind, digits := d[1], d[2:]
	if kind == 'M' || kind == 'm' {
		if i := strings.IndexByte(digits, '['); i >= 0 {
			if !timeUnit(digits[i:]) {
				return 0, false, bad
			}
			digits = digits[:i]
		}
	}
	if kind == 'O' && (digits == "" || digits == "4" || digits == "8") {
		return 0, true, nil // '|O', or '|O8' as older NumPy wrote it
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	if err != nil {
		return 0, false, bad
	}
	switch kind {
	case 'S', 'V':
		return n, false, nil
	case 'U':
		return 4 * n, false, nil
	}
	if sizes, ok := kinds[kind]; !ok || !slices.Contains(sizes, n) {
		return 0, false, bad
	}
	return n, false, nil
}

// timeUnit reports whether s is a datetime unit in brackets, with an
// optional count: "[ns]", "[10ms]".
func timeUnit(s string) bool {
	if len(s) < 3 || s[len(s)-1] != ']' {
		return false
	}
	unit := strings.TrimLeft(s[1:len(s)-1], "0123456789")
	return slices.Contains(timeUnits, unit)
}

// HeaderFor returns the header of a C-order 1-D array of n items of the
// dtype that the Python literal dtype gives ('<f4', or a record's list of
// fields), padded with spaces so that the data starts at a multiple of 64
// bytes, as NumPy writes it: version 1.0 where the header fits one (at
// most 65535 bytes, in Latin-1), else 2.0, else 3.0 (UTF-8).
func HeaderFor(dtype string, n uint64) []byte {
	dict := fmt.Sprintf("{'descr': %s, 'fortran_order': False, 'shape': (%d,), }", dtype, n)
	text, ok := []byte(nil), true
	for _, r := range dict {
		if r > 0xff {
			ok = false
			break
		}
		text = append(text, byte(r))
	}
	major, pre := byte(1), 10
	switch {
	case !ok:
		text, major, pre = []byte(dict), 3, 12
	case len(text)+1+63 > 0xffff:
		major, pre = 2, 12
	}
	hlen := len(text) + 1 // and the final newline
	hlen += (64 - (pre+hlen)%64) % 64
	b := make([]byte, 0, pre+hlen)
	b = append(b, Magic...)
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen))
	}
	b = append(b, text...)
	b = append(b, bytes.Repeat([]byte{' '}, hlen-len(text)-1)...)
	return append(b, '\n')
}
