package main

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
)

// NumPy .npy files: a magic string, a format version, a header that is a
// Python dict literal ({'descr': '<f4', 'fortran_order': False, 'shape':
// (3,), }) and the array's bytes. The reader takes versions 1.0, 2.0 and
// 3.0; the writer writes 1.0.

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// npyMaxHeader bounds the header length the reader accepts (NumPy's own
// reader stops at 10,000 bytes by default), so that a corrupt length does
// not make it allocate gigabytes.
const npyMaxHeader = 1 << 20

// npyHeader is a parsed .npy header.
type npyHeader struct {
	descr    string   // the dtype, e.g. "<f4", "|b1", "|V32", "<U3"
	itemSize uint64   // bytes per item, from descr (0 when pickled)
	pickled  bool     // the dtype holds Python objects ('|O'): the data is a pickle, not items
	fortran  bool     // fortran_order
	shape    []uint64 // the dimensions
	count    uint64   // items: the product of shape
	dataOff  int64    // the data's offset in the file
}

// shapeString writes the shape as Python does: (), (3,), (3, 4).
func (h *npyHeader) shapeString() string {
	if len(h.shape) == 1 {
		return fmt.Sprintf("(%d,)", h.shape[0])
	}
	s := make([]string, len(h.shape))
	for i, d := range h.shape {
		s[i] = strconv.FormatUint(d, 10)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// readNpyHeader reads the header of a .npy file of size bytes from r,
// positioned at the file's start, and leaves r at the data. It checks the
// header's syntax, that its dtype is one NumPy writes, and that exactly
// the data the shape calls for follows (pickled data excepted). Whether
// the dtype suits an input is for the input to say (npyElements,
// npyFlags, npyValues), so that a well-formed array of another dtype is
// told which one is wanted rather than called corrupt.
func readNpyHeader(r io.Reader, size int64) (*npyHeader, error) {
	var pre [12]byte
	if size < 10 {
		return nil, errors.New("corrupt .npy file: too short for a header")
	}
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, fmt.Errorf("reading the .npy header: %w", err)
	}
	if string(pre[:6]) != npyMagic {
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
	if hlen > npyMaxHeader {
		return nil, fmt.Errorf("corrupt .npy file: a header of %d bytes (at most %d accepted)", hlen, npyMaxHeader)
	}
	if off+hlen > size {
		return nil, fmt.Errorf("corrupt .npy file: a header of %d bytes in a file of %d", hlen, size)
	}
	text := make([]byte, hlen)
	if _, err := io.ReadFull(r, text); err != nil {
		return nil, fmt.Errorf("reading the .npy header: %w", err)
	}
	h, err := parseNpyDict(string(text))
	if errors.Is(err, errStructured) {
		return nil, err // well-formed, but no simple dtype
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt .npy header: %w", err)
	}
	if h.itemSize, h.pickled, err = descrSize(h.descr); err != nil {
		return nil, err
	}
	h.dataOff = off + hlen
	hi, data := bits.Mul64(h.count, h.itemSize)
	if !h.pickled && (hi != 0 || data != uint64(size-h.dataOff)) {
		return nil, fmt.Errorf("corrupt .npy file: shape %s of '%s' is %d items of %d bytes; the file has %d bytes after its header",
			h.shapeString(), h.descr, h.count, h.itemSize, size-h.dataOff)
	}
	return h, nil
}

// errStructured refuses a structured dtype (a descr that is a list of
// fields): the header is well-formed, the tool takes no such array.
var errStructured = errors.New("structured dtypes are not supported: save the structs as raw bytes (a.tofile) or as void items (a.view(f'V{a.itemsize}'))")

// parseNpyDict parses a header's dict: exactly the keys descr,
// fortran_order and shape. A structured descr is errStructured, once the
// rest of the dict has been found well-formed.
func parseNpyDict(text string) (*npyHeader, error) {
	p := &pyParser{s: text}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if p.skipSpace(); p.i < len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the dict", p.s[p.i:min(p.i+10, len(p.s))])
	}
	dict, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the header is not a dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := dict[k]; !ok || len(dict) != 3 {
			return nil, errors.New("the header's keys are not exactly descr, fortran_order and shape")
		}
	}
	h := &npyHeader{}
	structured := false
	switch d := dict["descr"].(type) {
	case string:
		h.descr = d
	case pyList:
		structured = true
	default:
		return nil, errors.New("descr is not a string")
	}
	if h.fortran, ok = dict["fortran_order"].(bool); !ok {
		return nil, errors.New("fortran_order is not True or False")
	}
	shape, ok := dict["shape"].(pyTuple)
	if !ok {
		return nil, errors.New("shape is not a tuple")
	}
	for _, d := range shape {
		n, ok := d.(uint64)
		if !ok {
			return nil, errors.New("shape holds something other than integers")
		}
		h.shape = append(h.shape, n)
	}
	h.count = 1
	for _, n := range h.shape {
		hi, lo := bits.Mul64(h.count, n)
		if hi != 0 {
			return nil, fmt.Errorf("shape %s: too many items", h.shapeString())
		}
		h.count = lo
	}
	if structured {
		return nil, errStructured
	}
	return h, nil
}

// npyKinds gives, for each dtype kind of fixed sizes, the sizes in bytes
// NumPy has: bool, integers, floats, complex numbers, datetimes ('M') and
// timedeltas ('m'). descrSize takes the other kinds: 'S' (bytes) and 'V'
// (void) of any size, 'U' (UCS-4 strings) and 'O' (Python objects).
var npyKinds = map[byte][]uint64{
	'b': {1},
	'i': {1, 2, 4, 8}, 'u': {1, 2, 4, 8},
	'f': {2, 4, 8, 12, 16}, 'c': {8, 16, 24, 32},
	'M': {8}, 'm': {8},
}

// npyTimeUnits are the units of NumPy's datetime64 and timedelta64.
var npyTimeUnits = []string{"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as"}

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
			if !npyTimeUnit(digits[i:]) {
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
	if sizes, ok := npyKinds[kind]; !ok || !slices.Contains(sizes, n) {
		return 0, false, bad
	}
	return n, false, nil
}

// npyTimeUnit reports whether s is a datetime unit in brackets, with an
// optional count: "[ns]", "[10ms]".
func npyTimeUnit(s string) bool {
	if len(s) < 3 || s[len(s)-1] != ']' {
		return false
	}
	unit := strings.TrimLeft(s[1:len(s)-1], "0123456789")
	return slices.Contains(npyTimeUnits, unit)
}

// npyHeaderBytes returns a version 1.0 header for a C-order 1-D array of n
// items of dtype descr, padded with spaces so that the data starts at a
// multiple of 64 bytes, as NumPy writes it.
func npyHeaderBytes(descr string, n uint64) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr, n)
	hlen := len(dict) + 1 // and the final newline
	hlen += (64 - (10+hlen)%64) % 64
	b := make([]byte, 0, 10+hlen)
	b = append(b, npyMagic...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	b = append(b, dict...)
	b = append(b, bytes.Repeat([]byte{' '}, hlen-len(dict)-1)...)
	return append(b, '\n')
}
