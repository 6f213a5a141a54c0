package radix_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// segCase is one segmented sort: keys (their bits) and segment offsets.
type segCase struct {
	sort    radix.SegmentedSort
	keys    []uint64
	offsets []uint32
	timed   bool // record with RecordTimed (recordTimed), not Record
}

func (c segCase) String() string {
	return fmt.Sprintf("n=%d segments=%d %v values=%v desc=%v bits=[%d,%d) max=%d general=%v", len(c.keys), len(c.offsets)-1,
		c.sort.Elem.Key, c.sort.Values, c.sort.Descending, c.sort.BeginBit, c.sort.EndBit, c.sort.MaxSegment, c.sort.General)
}

// refSegmented returns the permutation the segmented sort gives: each
// segment sorted stably on its own (refSort), every key outside the
// segments in its place. Where a segment is longer than capacity (a
// broken MaxSegment promise on the block path), it stays as it was.
func refSegmented(c segCase, capacity int) []int {
	s := radix.Sort{Elem: vkcompact.Plain(c.sort.Elem.Key), Descending: c.sort.Descending, BeginBit: c.sort.BeginBit, EndBit: c.sort.EndBit}
	perm := make([]int, len(c.keys))
	for i := range perm {
		perm[i] = i
	}
	for seg := 0; seg+1 < len(c.offsets); seg++ {
		lo, hi := int(c.offsets[seg]), int(c.offsets[seg+1])
		if capacity > 0 && hi-lo > capacity {
			continue
		}
		for j, i := range refSort(s, c.keys[lo:hi]) {
			perm[lo+j] = lo + i
		}
	}
	return perm
}

// runSegmented sorts c through SegmentedPlan.Record with the outputs and
// scratch poisoned (and a guard past each output), the values being the
// keys' indices, and checks the outputs, the guards and the inputs.
// It returns the plan's tuning and the scratch, poisoned before the run.
func runSegmented(t *testing.T, ctx *vk.Context, c segCase) (radix.SegmentedTuning, vk.Range) {
	t.Helper()
	n := uint64(len(c.keys))
	p, err := radix.NewSegmentedPlan(ctx, n, uint32(len(c.offsets)-1), c.sort)
	if err != nil {
		t.Fatalf("%v: plan: %v", c, err)
	}
	kb := uint64(c.sort.Elem.Key.OrUint32().Size())
	raw := make([]byte, 0, n*kb)
	vals := make([]uint32, n)
	for i, k := range c.keys {
		if kb == 8 {
			raw = binary.LittleEndian.AppendUint64(raw, k)
		} else {
			raw = binary.LittleEndian.AppendUint32(raw, uint32(k))
		}
		vals[i] = uint32(i)
	}
	const guard = 64
	var b radix.SegmentedBuffers
	keysIn := vktest.NewPoisoned(t, ctx, n*kb+guard)
	b.Keys = keysIn.Range(0, n*kb)
	outKeys := vktest.NewPoisoned(t, ctx, n*kb+guard)
	b.KeysOut = outKeys.Range(0, n*kb)
	offs := vktest.NewPoisoned(t, ctx, 4*uint64(len(c.offsets)))
	b.Offsets = offs.Range(0, 4*uint64(len(c.offsets)))
	upload(t, b.Keys, raw)
	upload(t, b.Offsets, c.offsets)
	var outVals *vk.Buffer
	if c.sort.Values {
		b.Values = vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n)
		upload(t, b.Values, vals)
		outVals = vktest.NewPoisoned(t, ctx, 4*n+guard)
		b.ValuesOut = outVals.Range(0, 4*n)
	}
	if sz := p.ScratchSize(); sz > 0 {
		b.Scratch = vktest.NewPoisoned(t, ctx, sz).Range(0, sz)
	}
	if c.timed {
		recordTimed(t, ctx, p, func(r *pipeline.Recorder, tm *vk.Timer) { p.RecordTimed(r, b, tm) })
	} else if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	tu := p.Tuning()
	capacity := 0
	if tu.Block {
		capacity = int(tu.Capacity)
	}
	perm := refSegmented(c, capacity)
	wantKeys := make([]byte, 0, n*kb+guard)
	wantVals := make([]byte, 0, 4*n+guard)
	for _, i := range perm {
		wantKeys = append(wantKeys, raw[uint64(i)*kb:uint64(i+1)*kb]...)
		wantVals = binary.LittleEndian.AppendUint32(wantVals, uint32(i))
	}
	compare := func(name string, buf *vk.Buffer, want []byte, size uint64) {
		t.Helper()
		want = append(want, vktest.PoisonBytes(guard)...)
		got := make([]byte, buf.Size())
		if err := vk.Download(buf.All(), got); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(got, want) {
			return
		}
		for i := uint64(0); i < uint64(len(want)); i += size {
			if !bytes.Equal(got[i:i+size], want[i:i+size]) {
				t.Fatalf("%v (%+v): %s differ from the reference first at %d of %d: got % x, want % x", c, tu, name, i/size, n, got[i:i+size], want[i:i+size])
			}
		}
	}
	compare("keys", outKeys, wantKeys, kb)
	if c.sort.Values {
		compare("values", outVals, wantVals, 4)
	}
	got := make([]byte, n*kb)
	if err := vk.Download(b.Keys, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, raw) {
		t.Fatalf("%v: the input keys changed", c)
	}
	return tu, b.Scratch
}

func upload[T any](t *testing.T, r vk.Range, data []T) {
	t.Helper()
	if r.Size == 0 {
		return
	}
	if err := vk.Upload(r, data); err != nil {
		t.Fatal(err)
	}
}

// segKeys returns n random key bits of type k: full-range, or from few
// values (so that equal keys meet and stability shows); float32 keys
// include zeros of both signs, infinities and NaNs.
func segKeys(rng *rand.Rand, k vkcompact.Type, n int) []uint64 {
	keys := make([]uint64, n)
	few := rng.IntN(2) == 0
	special := []uint64{0, 1 << 31, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x3f800000, 0xbf800000}
	for i := range keys {
		switch {
		case k == vkcompact.Float32 && rng.IntN(4) == 0:
			keys[i] = special[rng.IntN(len(special))]
		case few:
			keys[i] = uint64(rng.IntN(7)) << (rng.IntN(4) * 8)
			if rng.IntN(2) == 0 {
				keys[i] = ^keys[i]
			}
		default:
			keys[i] = rng.Uint64()
		}
		if k.Size() == 4 {
			keys[i] &= math.MaxUint32
		}
	}
	return keys
}

// offsetsOf returns the offsets of segments of the given lengths, from
// first.
func offsetsOf(first uint32, lengths ...int) []uint32 {
	offs := []uint32{first}
	for _, l := range lengths {
		offs = append(offs, offs[len(offs)-1]+uint32(l))
	}
	return offs
}

// randomLengths returns count segment lengths of up to most, a third of
// them empty.
func randomLengths(rng *rand.Rand, count, most int) []int {
	l := make([]int, count)
	for i := range l {
		if rng.IntN(3) != 0 {
			l[i] = rng.IntN(most + 1)
		}
	}
	return l
}

func sum(l []int) int {
	s := 0
	for _, x := range l {
		s += x
	}
	return s
}

// segCapacity is the block path's capacity for segments of up to most
// keys of s on ctx.
func segCapacity(t *testing.T, ctx *vk.Context, s radix.SegmentedSort, most uint32) int {
	s.MaxSegment = most
	p, err := radix.NewSegmentedPlan(ctx, 1, 1, s)
	if err != nil {
		t.Fatal(err)
	}
	tu := p.Tuning()
	if !tu.Block {
		t.Fatalf("%+v: no block path for segments of %d keys", s, most)
	}
	return int(tu.Capacity)
}

// TestSegmentedSort checks both paths against the reference for every
// key type, keys alone and pairs, ascending and descending, over segment
// lengths 0, 1, random, the block's capacity and one more, one segment of
// everything, many empty segments and keys outside the segments.
func TestSegmentedSort(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	types := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}
	for ti, kt := range types {
		for _, values := range []bool{false, true} {
			s := radix.SegmentedSort{Elem: vkcompact.Plain(kt), Values: values, Descending: (ti+btoi(values))%2 == 1}
			t.Run(fmt.Sprintf("%v/values=%v", kt, values), func(t *testing.T) {
				capacity := int(radix.SegmentCapacity(ctx.Info(), s))
				type shape struct {
					name    string
					offsets []uint32
					n       int
				}
				rl := randomLengths(rng, 40, 300)
				shapes := []shape{
					{"random", offsetsOf(0, rl...), sum(rl)},
					{"ones and zeros", offsetsOf(0, 1, 0, 1, 1, 0, 0, 1), 4},
					{"capacity", offsetsOf(0, capacity, 3, capacity, 0), 2*capacity + 3},
					{"capacity+1", offsetsOf(0, capacity+1, 2, 0, capacity), 2*capacity + 3},
					{"one segment", offsetsOf(0, 3*capacity+17), 3*capacity + 17},
					{"many empty", offsetsOf(0, append(append(make([]int, 200), 37), make([]int, 100)...)...), 37},
					{"outside", offsetsOf(13, 100, 0, 250), 13 + 350 + 29},
					{"no segments", []uint32{5}, 11},
					{"no keys", []uint32{0, 0, 0}, 0},
				}
				// Short: the capacity's edges and the giant segment (the
				// largest kernels and sorts) for two of the eight.
				edges := !vktest.Short() || kt == vkcompact.Uint32 && !values || kt == vkcompact.Uint64 && values
				for _, sh := range shapes {
					if !edges && (sh.name == "capacity" || sh.name == "capacity+1" || sh.name == "one segment") {
						continue
					}
					c := segCase{sort: s, keys: segKeys(rng, kt, sh.n), offsets: sh.offsets}
					var longest int
					for i := 1; i < len(sh.offsets); i++ {
						longest = max(longest, int(sh.offsets[i]-sh.offsets[i-1]))
					}
					// Promises of 64 and 300 for the short shapes (several
					// segments per workgroup, and one), so that few kernels
					// are compiled.
					switch {
					case longest == 0:
					case longest <= 64:
						c.sort.MaxSegment = 64
					case longest <= 300:
						c.sort.MaxSegment = 300
					default:
						c.sort.MaxSegment = uint32(longest)
					}
					tu, _ := runSegmented(t, ctx, c)
					if tu.Block != (longest > 0 && longest <= capacity) {
						t.Errorf("%s: longest %d, capacity %d: block path %v", sh.name, longest, capacity, tu.Block)
					}
					if tu.Block && (!vktest.Short() || sh.name == "random" || sh.name == "outside") {
						c.sort.General = true
						runSegmented(t, ctx, c)
					}
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSegmentedBits sorts by a bit range of the keys on both paths.
func TestSegmentedBits(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	rl := randomLengths(rng, 30, 200)
	for _, s := range []radix.SegmentedSort{
		{Elem: vkcompact.Plain(vkcompact.Uint32), BeginBit: 3, EndBit: 13, Values: true},
		{Elem: vkcompact.Plain(vkcompact.Uint64), BeginBit: 20, EndBit: 45, Descending: true},
		{Elem: vkcompact.Plain(vkcompact.Int32), BeginBit: 7, EndBit: 7},
	} {
		for _, general := range []bool{false, true} {
			s.General, s.MaxSegment = general, 200
			runSegmented(t, ctx, segCase{sort: s, keys: segKeys(rng, s.Elem.Key, sum(rl)), offsets: offsetsOf(0, rl...)})
		}
	}
}

// TestSegmentedBlockShapes runs the block path at several promised
// lengths, so that its workgroup and keys per invocation vary (the
// capacity's boundary among them), with segments up to the promise.
func TestSegmentedBlockShapes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	most := []uint32{2, 5, 33, 100, 257, 1024, 2048, 4096}
	if vktest.Short() {
		most = []uint32{5, 100, 1024, 4096}
	}
	for _, m := range most {
		s := radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: m%2 == 0, MaxSegment: m}
		p, err := radix.NewSegmentedPlan(ctx, 1, 1, s)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Tuning().Block {
			t.Logf("segments of %d: general path (%+v)", m, p.Tuning())
		}
		rl := randomLengths(rng, 8, int(m))
		rl = append(rl, int(m))
		runSegmented(t, ctx, segCase{sort: s, keys: segKeys(rng, s.Elem.Key, sum(rl)), offsets: offsetsOf(0, rl...)})
	}
}

// TestSortSegments checks the slice functions, which check the offsets on
// the CPU and take the block path where the longest segment fits.
func TestSortSegments(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	rl := randomLengths(rng, 20, 100)
	offsets := offsetsOf(0, rl...)
	keys := make([]int32, sum(rl))
	vals := make([]uint32, len(keys))
	for i := range keys {
		keys[i] = int32(rng.IntN(50)) - 25
		vals[i] = uint32(i)
	}
	got, err := radix.SortSegmentsSlice(ctx, keys, offsets, radix.SegmentedSort{})
	if err != nil {
		t.Fatal(err)
	}
	gk, gv, err := radix.SortSegmentPairsSlice(ctx, keys, vals, offsets, radix.SegmentedSort{Descending: true})
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s+1 < len(offsets); s++ {
		lo, hi := offsets[s], offsets[s+1]
		want := slices.Clone(keys[lo:hi])
		slices.Sort(want)
		if !slices.Equal(got[lo:hi], want) {
			t.Fatalf("segment %d: got %v, want %v", s, got[lo:hi], want)
		}
		idx := slices.Clone(vals[lo:hi])
		slices.SortStableFunc(idx, func(a, b uint32) int { return int(keys[b]) - int(keys[a]) })
		if !slices.Equal(gv[lo:hi], idx) {
			t.Fatalf("pairs, segment %d: got values %v, want %v", s, gv[lo:hi], idx)
		}
		for j, i := range idx {
			if gk[int(lo)+j] != keys[i] {
				t.Fatalf("pairs, segment %d: keys do not follow their values", s)
			}
		}
	}
	for _, bad := range []struct {
		offsets []uint32
		want    string
	}{
		{nil, "no offsets"},
		{[]uint32{0, 5, 3}, "must not decrease"},
		{[]uint32{0, uint32(len(keys) + 1)}, "past the"},
	} {
		_, err := radix.SortSegmentsSlice(ctx, keys, bad.offsets, radix.SegmentedSort{})
		if !errors.Is(err, vk.ErrInvalid) || !bytes.Contains([]byte(err.Error()), []byte(bad.want)) {
			t.Errorf("offsets %v: got %v, want ErrInvalid naming %q", bad.offsets, err, bad.want)
		}
	}
	if _, err := radix.SortSegmentsSlice(ctx, keys, offsets, radix.SegmentedSort{Elem: vkcompact.Plain(vkcompact.Float32)}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("int32 keys as float32: got %v, want ErrInvalid", err)
	}
}
