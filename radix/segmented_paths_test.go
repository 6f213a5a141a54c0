package radix_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSegmentedBrokenPromise: on the block path a segment longer than the
// capacity is copied through unsorted, and the others are sorted.
func TestSegmentedBrokenPromise(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	s := radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Float32), Values: true, MaxSegment: 64}
	capacity := segCapacity(t, ctx, s, 64)
	lengths := []int{10, capacity + 5, 0, 64}
	runSegmented(t, ctx, segCase{sort: s, keys: segKeys(rng, s.Elem.Key, sum(lengths)), offsets: offsetsOf(0, lengths...)})
}

// TestSegmentedBadOffsets: offsets that decrease or lie past n are
// clamped on the GPU: no validation message, nothing written past the
// outputs, and on the general path the output is a permutation of the
// input.
func TestSegmentedBadOffsets(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := 500
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = rng.Uint32()
	}
	offsets := []uint32{0, 300, 100, 1 << 31, 450, 7, math.MaxUint32, 499}
	for _, general := range []bool{false, true} {
		s := radix.SegmentedSort{MaxSegment: 400, General: general}
		p, err := radix.NewSegmentedPlan(ctx, uint64(n), uint32(len(offsets)-1), s)
		if err != nil {
			t.Fatal(err)
		}
		kin := vktest.NewPoisoned(t, ctx, 4*uint64(n))
		out := vktest.NewPoisoned(t, ctx, 4*uint64(n)+256)
		offs := vktest.NewPoisoned(t, ctx, 4*uint64(len(offsets)))
		upload(t, kin.All(), keys)
		upload(t, offs.All(), offsets)
		b := radix.SegmentedBuffers{Keys: kin.All(), KeysOut: out.Range(0, 4*uint64(n)), Offsets: offs.All()}
		if sz := p.ScratchSize(); sz > 0 {
			b.Scratch = vktest.NewPoisoned(t, ctx, sz).Range(0, sz)
		}
		if err := p.Run(b); err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, n+64)
		if err := vk.Download(out.All(), got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[n:], vktest.PoisonWords(64)) {
			t.Errorf("general=%v: words past the output were written", general)
		}
		if general {
			a, w := slices.Clone(got[:n]), slices.Clone(keys)
			slices.Sort(a)
			slices.Sort(w)
			if !slices.Equal(a, w) {
				t.Errorf("general path: the output is not a permutation of the input")
			}
		}
	}
}

// TestSegmentedGroups: segments short enough that several share a
// workgroup, keys and pairs of 32- and 64-bit keys, and broken promises
// inside a group: a longer segment whose group still fits (sorted), and
// one past the capacity (its group sorts segment by segment, and it is
// copied through).
func TestSegmentedGroups(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for i, s := range []radix.SegmentedSort{
		{Elem: vkcompact.Plain(vkcompact.Uint32), MaxSegment: 20},
		{Elem: vkcompact.Plain(vkcompact.Float32), Values: true, Descending: true, MaxSegment: 7},
		{Elem: vkcompact.Plain(vkcompact.Uint64), Values: true, MaxSegment: 60},
	} {
		p, err := radix.NewSegmentedPlan(ctx, 1, 1, s)
		if err != nil {
			t.Fatal(err)
		}
		tu := p.Tuning()
		if !tu.Block || tu.SegmentsPerWorkgroup < 4 {
			t.Fatalf("%+v: %+v, want several segments per workgroup", s, tu)
		}
		lengths := randomLengths(rng, 1500, int(s.MaxSegment))
		if i > 0 {
			lengths[rng.IntN(len(lengths))] = 3 * int(s.MaxSegment)
			lengths[rng.IntN(len(lengths))] = int(tu.Capacity) + 1 + rng.IntN(100)
		}
		runSegmented(t, ctx, segCase{sort: s, keys: segKeys(rng, s.Elem.Key, 5+sum(lengths)), offsets: offsetsOf(5, lengths...)})
	}
}

// TestSegmentedAuto: with no promise (MaxSegment 0) the GPU picks the
// path: segments that all fit the block path, and one that does not
// (then every segment takes the general path), with keys outside the
// segments.
func TestSegmentedAuto(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, s := range []radix.SegmentedSort{
		{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true},
		{Elem: vkcompact.Plain(vkcompact.Uint64), Descending: true},
	} {
		p, err := radix.NewSegmentedPlan(ctx, 10, 2, s)
		if err != nil {
			t.Fatal(err)
		}
		tu := p.Tuning()
		if !tu.Auto {
			t.Fatalf("%+v: %+v, want the automatic path", s, tu)
		}
		short := randomLengths(rng, 60, int(tu.Capacity))
		short = append(short, int(tu.Capacity))
		long := append(randomLengths(rng, 20, 100), int(tu.Capacity)+1, 5)
		for i, lengths := range [][]int{short, long} {
			_, scratch := runSegmented(t, ctx, segCase{sort: s, keys: segKeys(rng, s.Elem.Key, 3+sum(lengths)+4), offsets: offsetsOf(3, lengths...)})
			// The general path's first dispatch writes the start of the
			// scratch (the keys' copy) only where the GPU chose it.
			first := make([]uint32, 1)
			if err := vk.Download(scratch.Sub(0, 4), first); err != nil {
				t.Fatal(err)
			}
			if general := first[0] != vktest.Poison; general != (i == 1) {
				t.Errorf("%+v, longest segment %d: general path %v", s, slices.Max(lengths), general)
			}
		}
	}
}

// TestSegmentedOptions: the general path's sort of the keys takes the
// segmented sort's Options (checked against Go on both of its
// algorithms), and an option it refuses is refused by the segmented sort,
// naming it.
func TestSegmentedOptions(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	lengths := []int{300, 1, 2000, 0, 77}
	for _, o := range []radix.Options{{Path: vkcompact.PathThreePhase, DigitBits: 3}, {Path: vkcompact.PathSinglePass, DigitBits: 6}} {
		s := radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Float32), Values: true, General: true, Options: o}
		runSegmented(t, ctx, segCase{sort: s, keys: segKeys(rng, vkcompact.Float32, sum(lengths)), offsets: offsetsOf(0, lengths...)})
	}
	_, err := radix.NewSegmentedPlan(ctx, 100, 2, radix.SegmentedSort{General: true, Options: radix.Options{DigitBits: 9}})
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "segmented sort") || !strings.Contains(err.Error(), "9 digit bits") {
		t.Errorf("9 digit bits: got %v, want ErrInvalid naming the segmented sort and the digit bits", err)
	}
}
