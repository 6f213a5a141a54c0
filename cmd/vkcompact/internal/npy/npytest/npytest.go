// Package npytest builds .npy files for tests, well-formed or not: a
// header dict written as given, padded as NumPy pads it, and the data.
package npytest

import (
	"bytes"
	"encoding/binary"
)

// FileVersion returns a .npy file of format version major.0 (1, 2 or 3;
// any other byte is written as it is) with the header dict, written as
// given, padded with spaces so that the data starts at a multiple of 64
// bytes, and the data.
func FileVersion(major byte, dict string, data []byte) []byte {
	pre := 10
	if major > 1 {
		pre = 12
	}
	hlen := len(dict) + 1
	hlen += (64 - (pre+hlen)%64) % 64
	b := append([]byte("\x93NUMPY"), major, 0)
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

// File returns a version 1.0 .npy file of the header dict and data
// (FileVersion).
func File(dict string, data []byte) []byte { return FileVersion(1, dict, data) }
