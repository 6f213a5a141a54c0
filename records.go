package vkcompact

import "github.com/vkcompact/vkcompact/internal/errs"

// Records describes packed records, as NumPy's structured arrays and C's
// packed structs hold them: Size bytes each, one after another, with a
// key of type Key at byte KeyOffset, where neither Size nor KeyOffset
// need be a multiple of 4. The plans take elements whose size and key
// offset are multiples of 4: Elem gives such elements, slots that each
// hold one record at byte Shift (where its key is aligned) and zeros
// around it. Spread moves the records into their slots before they go to
// the GPU, and Gather packs them again once they are back:
//
//	recs := vkcompact.Records{Size: 7, KeyOffset: 1, Key: vkcompact.Float32}
//	e := recs.Elem() // Struct(12, 4, f32): each record at byte 3 of its 12
//	buf := make([]byte, n*uint64(e.Stride))
//	copy(buf, packed) // n records of 7 bytes
//	err := recs.Spread(buf, n)
//	// ... upload buf, run a plan of e, download the m results into buf ...
//	out, err := recs.Gather(buf, m) // m records of 7 bytes
//
// Records whose Size and KeyOffset are multiples of 4 are their own
// slots: Elem is Struct(Size, KeyOffset, Key), and Spread and Gather move
// nothing.
type Records struct {
	Size      uint32 // bytes per record
	KeyOffset uint32 // the key's byte offset in the record
	Key       Type   // the key's type, one of the key types (not Unset)
}

// Shift returns the byte of its slot at which a record starts: the 0 to 3
// bytes that align its key to 4.
func (r Records) Shift() uint32 { return (4 - r.KeyOffset%4) % 4 }

// Elem returns the elements the records are on the GPU: slots of the
// record's Size and Shift rounded up to a multiple of 4 bytes, with the
// key at KeyOffset+Shift. Check says whether a plan takes them.
func (r Records) Elem() Elem {
	stride, off := r.slot()
	return Struct(uint32(min(stride, 1<<32-4)), uint32(min(off, 1<<32-4)), r.Key)
}

// slot returns the slot's size and the key's offset in it, without
// overflow.
func (r Records) slot() (stride, keyOffset uint64) {
	shift := uint64(r.Shift())
	return (uint64(r.Size) + shift + 3) &^ 3, uint64(r.KeyOffset) + shift
}

// Check reports what is wrong with r, if anything: a key type that is
// not one of the key types, a key that does not fit in the record, or
// slots larger than MaxStride. The errors match vk.ErrInvalid.
func (r Records) Check() error {
	if r.Key.Size() == 0 {
		return errs.Invalidf("vkcompact: records: key type %v: want u32, i32, f32, u64, i64 or f64", r.Key)
	}
	if uint64(r.KeyOffset)+uint64(r.Key.Size()) > uint64(r.Size) {
		return errs.Invalidf("vkcompact: records: a %s key at byte %d does not fit in a %d-byte record", r.Key, r.KeyOffset, r.Size)
	}
	switch stride, _ := r.slot(); {
	case stride > MaxStride && stride == uint64(r.Size):
		return errs.Invalidf("vkcompact: records of %d bytes: at most %d (MaxStride)", r.Size, MaxStride)
	case stride > MaxStride:
		return errs.Invalidf("vkcompact: records of %d bytes with the key at byte %d take %d bytes on the GPU, aligned to 4: at most %d (MaxStride)",
			r.Size, r.KeyOffset, stride, MaxStride)
	}
	return nil
}

// checkBuffer checks r and that b holds n slots.
func (r Records) checkBuffer(call string, b []byte, n uint64) error {
	if err := r.Check(); err != nil {
		return err
	}
	if stride := uint64(r.Elem().Stride); n > uint64(len(b))/stride {
		return errs.Invalidf("vkcompact: Records.%s: %d records take %d slots of %d bytes; the buffer has %d bytes", call, n, n, stride, len(b))
	}
	return nil
}

// Spread moves n records of Size bytes, packed at the start of b, each to
// byte Shift of its slot of Elem().Stride bytes, and zeros the rest of
// every slot. It works in place, from the last record back, so b must
// hold the n slots. It returns an error matching vk.ErrInvalid, and
// leaves b as it was, where r is not valid (Check) or b is too short.
func (r Records) Spread(b []byte, n uint64) error {
	if err := r.checkBuffer("Spread", b, n); err != nil {
		return err
	}
	size, stride, shift := uint64(r.Size), uint64(r.Elem().Stride), uint64(r.Shift())
	if stride == size {
		return nil // the records are their slots
	}
	for k := n; k > 0; k-- {
		i := k - 1
		slot := b[i*stride : (i+1)*stride]
		copy(slot[shift:shift+size], b[i*size:(i+1)*size])
		clear(slot[:shift])
		clear(slot[shift+size:])
	}
	return nil
}

// Gather undoes Spread: it packs the records at byte Shift of the first
// n slots of b at the start of b, in place, from the first record on, and
// returns them: b[:n*Size]. It returns an error matching vk.ErrInvalid,
// and leaves b as it was, where r is not valid (Check) or b holds fewer
// than n slots.
func (r Records) Gather(b []byte, n uint64) ([]byte, error) {
	if err := r.checkBuffer("Gather", b, n); err != nil {
		return nil, err
	}
	size, stride, shift := uint64(r.Size), uint64(r.Elem().Stride), uint64(r.Shift())
	if stride != size {
		for i := range n {
			copy(b[i*size:(i+1)*size], b[i*stride+shift:i*stride+shift+size])
		}
	}
	return b[:n*size], nil
}
