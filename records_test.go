package vkcompact_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// TestRecordsElem: records whose size and key offset are multiples of 4
// are their own slots; others go in a slot of a multiple of 4 bytes,
// shifted so that the key is aligned; Check refuses what a plan cannot
// take, naming it.
func TestRecordsElem(t *testing.T) {
	f32, u64 := vkcompact.Float32, vkcompact.Uint64
	for _, c := range []struct {
		recs  vkcompact.Records
		elem  vkcompact.Elem
		shift uint32
	}{
		{vkcompact.Records{Size: 16, KeyOffset: 12, Key: f32}, vkcompact.Struct(16, 12, f32), 0},
		{vkcompact.Records{Size: 7, KeyOffset: 1, Key: f32}, vkcompact.Struct(12, 4, f32), 3},
		{vkcompact.Records{Size: 16, KeyOffset: 8, Key: u64}, vkcompact.Struct(16, 8, u64), 0},
		{vkcompact.Records{Size: 5, KeyOffset: 0, Key: vkcompact.Int32}, vkcompact.Struct(8, 0, vkcompact.Int32), 0},
		{vkcompact.Records{Size: 10, KeyOffset: 2, Key: vkcompact.Int64}, vkcompact.Struct(12, 4, vkcompact.Int64), 2},
		{vkcompact.Records{Size: 13, KeyOffset: 4, Key: vkcompact.Float64}, vkcompact.Struct(16, 4, vkcompact.Float64), 0},
		{vkcompact.Records{Size: 255, KeyOffset: 3, Key: vkcompact.Uint32}, vkcompact.Struct(256, 4, vkcompact.Uint32), 1},
		{vkcompact.Records{Size: 256, KeyOffset: 0, Key: f32}, vkcompact.Struct(256, 0, f32), 0},
	} {
		if got := c.recs.Elem(); got != c.elem || c.recs.Shift() != c.shift {
			t.Errorf("%+v: Elem %v, Shift %d; want %v, %d", c.recs, got, c.recs.Shift(), c.elem, c.shift)
		}
		if err := c.recs.Check(); err != nil || c.elem.Check() != nil {
			t.Errorf("%+v: Check: %v", c.recs, err)
		}
	}
	for _, c := range []struct {
		recs vkcompact.Records
		want string
	}{
		{vkcompact.Records{Size: 260, KeyOffset: 256, Key: f32}, "records of 260 bytes: at most 256 (MaxStride)"},
		{vkcompact.Records{Size: 256, KeyOffset: 1, Key: f32}, "records of 256 bytes with the key at byte 1 take 260 bytes on the GPU, aligned to 4: at most 256"},
		{vkcompact.Records{Size: 1 << 31, KeyOffset: 1<<31 - 5, Key: f32}, "records of 2147483648 bytes with the key at byte 2147483643 take 2147483652 bytes on the GPU"},
		{vkcompact.Records{Size: 7, KeyOffset: 4, Key: f32}, "a f32 key at byte 4 does not fit in a 7-byte record"},
		{vkcompact.Records{Size: 8, KeyOffset: 1<<32 - 1, Key: u64}, "does not fit"},
		{vkcompact.Records{Size: 0, KeyOffset: 0, Key: f32}, "does not fit in a 0-byte record"},
		{vkcompact.Records{Size: 8, Key: vkcompact.Unset}, "key type unset"},
		{vkcompact.Records{Size: 8, Key: vkcompact.Type(99)}, "want u32, i32, f32, u64, i64 or f64"},
	} {
		err := c.recs.Check()
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Check: %v; want vk.ErrInvalid naming %q", c.recs, err, c.want)
		}
		if err := c.recs.Spread(make([]byte, 1024), 1); !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%+v: Spread: %v", c.recs, err)
		}
		if _, err := c.recs.Gather(make([]byte, 1024), 1); !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%+v: Gather: %v", c.recs, err)
		}
	}
}

// TestRecordsSpreadGather: records spread to their slots and gathered
// back are the records, each slot holding its record at the shift and
// zeros around it; a buffer too short for the slots is refused and left
// as it was.
func TestRecordsSpreadGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	types := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}
	for range 300 {
		key := types[rng.IntN(len(types))]
		size := key.Size() + rng.Uint32N(40)
		r := vkcompact.Records{Size: size, KeyOffset: rng.Uint32N(size - key.Size() + 1), Key: key}
		stride, shift := uint64(r.Elem().Stride), uint64(r.Shift())
		n := rng.Uint64N(20)
		recs := make([]byte, n*uint64(size))
		for i := range recs {
			recs[i] = byte(1 + rng.IntN(255))
		}
		b := bytes.Repeat([]byte{0xee}, int(n*stride)) // stale bytes past the records
		copy(b, recs)
		if n > 0 {
			short := slices.Clone(b[:n*stride-1])
			if err := r.Spread(short, n); !errors.Is(err, vk.ErrInvalid) || !bytes.Equal(short, b[:n*stride-1]) {
				t.Fatalf("%+v: Spread of %d into %d bytes: %v", r, n, len(short), err)
			}
		}
		if err := r.Spread(b, n); err != nil {
			t.Fatalf("%+v: Spread: %v", r, err)
		}
		for i := range n {
			slot := b[i*stride : (i+1)*stride]
			want := slices.Concat(make([]byte, shift), recs[i*uint64(size):(i+1)*uint64(size)], make([]byte, stride-shift-uint64(size)))
			if !bytes.Equal(slot, want) {
				t.Fatalf("%+v: slot %d is % x, want % x", r, i, slot, want)
			}
		}
		got, err := r.Gather(b, n)
		if err != nil || !bytes.Equal(got, recs) || (n > 0 && &got[0] != &b[0]) {
			t.Fatalf("%+v: gathered records differ (%v)", r, err)
		}
	}
}

// TestRecordsOnGPU compacts packed 7-byte records (a flag byte, a float32
// key at byte 1, a uint16 id) by their key on the GPU, as Records lays
// them out, and checks the records gathered back against the kept
// records in order.
func TestRecordsOnGPU(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	recs := vkcompact.Records{Size: 7, KeyOffset: 1, Key: vkcompact.Float32}
	e := recs.Elem()
	const n = 5000
	packed := make([]byte, 0, n*recs.Size)
	var want []byte
	for i := range n {
		key := float32(rng.IntN(200)-100) / 8
		rec := append([]byte{byte(rng.IntN(256))}, binary.LittleEndian.AppendUint32(nil, math.Float32bits(key))...)
		rec = binary.LittleEndian.AppendUint16(rec, uint16(i))
		packed = append(packed, rec...)
		if key > 0 {
			want = append(want, rec...)
		}
	}
	// The slots as a Go slice of three float32 each: the key is the
	// second.
	slots := make([][3]float32, n)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&slots[0])), n*uint64(e.Stride))
	copy(buf, packed)
	if err := recs.Spread(buf, n); err != nil {
		t.Fatal(err)
	}
	kept, res, err := compact.SelectSlice(ctx, slots, compact.Selection{Elem: e, Keep: compact.KeepIf(compact.Greater, compact.Float(0))})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(res.Kept)*uint64(recs.Size) != uint64(len(want)) || len(kept) != int(res.Kept) {
		t.Fatalf("kept %d (%d returned), want %d", res.Kept, len(kept), len(want)/int(recs.Size))
	}
	var got []byte
	if len(kept) > 0 {
		out := unsafe.Slice((*byte)(unsafe.Pointer(&kept[0])), uint64(len(kept))*uint64(e.Stride))
		if got, err = recs.Gather(out, uint64(len(kept))); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the %d records gathered back differ from the %d kept", len(got)/int(recs.Size), len(want)/int(recs.Size))
	}
}
