package radix_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSegmentedBadInput: nil handles, missing, short and overlapping
// ranges, and requests the sort does not take, each an error wrapping
// vk.ErrInvalid that names what was wrong, with the outputs untouched.
func TestSegmentedBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	const n, segments = 100, 4
	var nilPlan *radix.SegmentedPlan
	if _, err := radix.NewSegmentedPlan(nil, n, segments, radix.SegmentedSort{}); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("nil context: %v", err)
	}
	if err := nilPlan.Run(radix.SegmentedBuffers{}); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "nil SegmentedPlan") {
		t.Errorf("nil plan, Run: %v", err)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { nilPlan.Record(r, radix.SegmentedBuffers{}) }); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "nil SegmentedPlan") {
		t.Errorf("nil plan, Record: %v", err)
	}
	if nilPlan.ScratchSize() != 0 || nilPlan.N() != 0 || nilPlan.Segments() != 0 || nilPlan.Tuning() != (radix.SegmentedTuning{}) {
		t.Errorf("a nil plan's accessors are not zero")
	}
	for _, c := range []struct {
		s    radix.SegmentedSort
		n    uint64
		want string
	}{
		{radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Int64)}, n, "keys of type i64: the key type must be u32, i32, f32 or u64"},
		{radix.SegmentedSort{EndBit: 33}, n, "bit range [0, 33) of a 32-bit key"},
		{radix.SegmentedSort{BeginBit: 40}, n, "bit range [40, 32) (EndBit 0: the key's width) of a 32-bit key"},
		{radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Uint64), BeginBit: 65}, n, "bit range [65, 64) (EndBit 0: the key's width) of a 64-bit key"},
		{radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Uint64), BeginBit: 10, EndBit: 5}, n, "bit range"},
		{radix.SegmentedSort{}, 1 << 33, "keys"},
	} {
		if _, err := radix.NewSegmentedPlan(ctx, c.n, segments, c.s); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v, %d keys: got %v, want ErrInvalid naming %q", c.s, c.n, err, c.want)
		}
	}

	for _, general := range []bool{false, true} {
		block, err := radix.NewSegmentedPlan(ctx, n, segments, radix.SegmentedSort{Values: true, MaxSegment: 50, General: general})
		if err != nil {
			t.Fatal(err)
		}
		keysOnly, err := radix.NewSegmentedPlan(ctx, n, segments, radix.SegmentedSort{MaxSegment: 50, General: general})
		if err != nil {
			t.Fatal(err)
		}
		in := vktest.NewPoisoned(t, ctx, 4096)
		out := vktest.NewPoisoned(t, ctx, 4096)
		scratch := vktest.NewPoisoned(t, ctx, max(block.ScratchSize(), 16))
		good := radix.SegmentedBuffers{Keys: in.Range(0, 4*n), Values: in.Range(512, 4*n), Offsets: in.Range(1024, 4*(segments+1)),
			KeysOut: out.Range(0, 4*n), ValuesOut: out.Range(512, 4*n)}
		if block.ScratchSize() > 0 {
			good.Scratch = scratch.Range(0, block.ScratchSize())
		}
		type edit func(*radix.SegmentedBuffers)
		cases := []struct {
			name string
			plan *radix.SegmentedPlan
			edit edit
			want string
		}{
			{"no keys", block, func(b *radix.SegmentedBuffers) { b.Keys = vk.Range{} }, "no keys buffer"},
			{"no offsets", block, func(b *radix.SegmentedBuffers) { b.Offsets = vk.Range{} }, "no offsets buffer"},
			{"short offsets", block, func(b *radix.SegmentedBuffers) { b.Offsets = in.Range(1024, 16) }, "offsets range of 16 bytes: 20 needed"},
			{"no keys output", block, func(b *radix.SegmentedBuffers) { b.KeysOut = vk.Range{} }, "no keys output buffer"},
			{"short keys output", block, func(b *radix.SegmentedBuffers) { b.KeysOut = out.Range(0, 396) }, "keys output range of 396 bytes: 400 needed"},
			{"no values", block, func(b *radix.SegmentedBuffers) { b.Values = vk.Range{} }, "no values buffer"},
			{"output over input", block, func(b *radix.SegmentedBuffers) { b.KeysOut = in.Range(0, 4*n) }, "overlap"},
			{"outputs overlap", block, func(b *radix.SegmentedBuffers) { b.ValuesOut = out.Range(256, 4*n) }, "overlap"},
			{"values for keys alone", keysOnly, func(b *radix.SegmentedBuffers) {}, "values given for a segmented sort of keys only"},
		}
		if general {
			cases = append(cases, struct {
				name string
				plan *radix.SegmentedPlan
				edit edit
				want string
			}{"no scratch", block, func(b *radix.SegmentedBuffers) { b.Scratch = vk.Range{} }, "no scratch buffer"})
		}
		for _, c := range cases {
			b := good
			c.edit(&b)
			err := pipeline.Run(ctx, func(r *pipeline.Recorder) { c.plan.Record(r, b) })
			if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("general=%v, %s: got %v, want ErrInvalid naming %q", general, c.name, err, c.want)
			}
		}
		got := make([]uint32, 1024)
		if err := vk.Download(out.All(), got); err != nil {
			t.Fatal(err)
		}
		for i, w := range got {
			if w != vktest.Poison {
				t.Fatalf("general=%v: output word %d written by a refused sort", general, i)
			}
		}
	}
}

// TestSortSegmentsRefuses: the slice functions refuse a key type the
// sort does not take as such (not as a mismatch with the Go type), and a
// MaxSegment below the longest segment (whose keys the block path would
// copy unsorted), naming the segment; at the longest segment they sort.
func TestSortSegmentsRefuses(t *testing.T) {
	ctx := vktest.Shared(t)
	keys := make([]uint32, 3000)
	for i := range keys {
		keys[i] = uint32(len(keys) - i) // 3000 down to 1
	}
	values := make([]uint32, len(keys))
	offsets := []uint32{0, 5, 5, 2990, 3000} // segments of 5, 0, 2985 and 10 keys
	for _, c := range []struct {
		name string
		s    radix.SegmentedSort
		want string
	}{
		{"int64 keys", radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Int64)}, "SegmentedSort.Elem.Key i64 is not a sort key type: the key type must be u32, i32, f32 or u64"},
		{"float64 keys", radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Float64)}, "SegmentedSort.Elem.Key f64 is not a sort key type"},
		{"MaxSegment 8", radix.SegmentedSort{MaxSegment: 8}, "SegmentedSort.MaxSegment 8, but segment 2 holds 2985 keys (the longest 2985)"},
		{"MaxSegment one short", radix.SegmentedSort{MaxSegment: 2984}, "SegmentedSort.MaxSegment 2984, but segment 2 holds 2985 keys"},
		{"MaxSegment 8, general", radix.SegmentedSort{MaxSegment: 8, General: true}, "SegmentedSort.MaxSegment 8, but segment 2 holds 2985 keys"},
	} {
		if _, err := radix.SortSegmentsSlice(ctx, keys, offsets, c.s); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SortSegmentsSlice, %s: got %v, want ErrInvalid naming %q", c.name, err, c.want)
		}
		if _, _, err := radix.SortSegmentPairsSlice(ctx, keys, values, offsets, c.s); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SortSegmentPairsSlice, %s: got %v, want ErrInvalid naming %q", c.name, err, c.want)
		}
	}
	for _, most := range []uint32{0, 2985, 4000} {
		got, err := radix.SortSegmentsSlice(ctx, keys, offsets, radix.SegmentedSort{MaxSegment: most})
		if err != nil {
			t.Fatalf("MaxSegment %d: %v", most, err)
		}
		for s := range len(offsets) - 1 {
			seg := got[offsets[s]:offsets[s+1]]
			for i := range seg {
				if want := keys[offsets[s+1]-1-uint32(i)]; seg[i] != want {
					t.Fatalf("MaxSegment %d: segment %d, key %d is %d, want %d", most, s, i, seg[i], want)
				}
			}
		}
	}
}
