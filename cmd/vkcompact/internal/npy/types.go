package npy

import "github.com/vkcompact/vkcompact"

// dtypes is the .npy dtype of each key type.
var dtypes = map[vkcompact.Type]string{
	vkcompact.Uint32: "<u4", vkcompact.Int32: "<i4", vkcompact.Float32: "<f4",
	vkcompact.Uint64: "<u8", vkcompact.Int64: "<i8", vkcompact.Float64: "<f8",
}

// Dtype returns the .npy dtype string of the key type t ('<f4' for
// Float32), or "" for Unset.
func Dtype(t vkcompact.Type) string { return dtypes[t] }

// KeyType returns the key type of a dtype string ('<f4' is Float32), or
// Unset where the dtype is not a key type's, little-endian.
func KeyType(descr string) vkcompact.Type {
	for t, d := range dtypes {
		if d == descr {
			return t
		}
	}
	return vkcompact.Unset
}
