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
		{radix.SegmentedSort{Key: vkcompact.Int64}, n, "key type"},
		{radix.SegmentedSort{EndBit: 33}, n, "bit range"},
		{radix.SegmentedSort{Key: vkcompact.Uint64, BeginBit: 10, EndBit: 5}, n, "bit range"},
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
