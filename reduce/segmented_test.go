package reduce_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// segCase is one segmented reduction to run and check.
type segCase struct {
	s       reduce.Segmented
	bits    []uint64
	offsets []uint32
}

func (c segCase) String() string {
	return fmt.Sprintf("%v n=%d segments=%d %+v", c.s, len(c.bits), len(c.offsets)-1, c.s.Options)
}

// Segment shapes for segOffsets.
const (
	segRandom  = iota // lengths 0 to 3 tiles, a few empty
	segFixed          // segments of 1024, the last shorter (the anchor's)
	segOne            // one segment over everything
	segEmpties        // many empty segments at a few places, elements outside the segments
	segShapes
)

// segOffsets returns the offsets of segments over n elements in shape,
// for tiles of tile elements.
func segOffsets(rng *rand.Rand, n int, shape int, tile int) []uint32 {
	var off []uint32
	switch shape {
	case segFixed:
		for i := 0; i < n; i += 1024 {
			off = append(off, uint32(i))
		}
		off = append(off, uint32(n))
	case segOne:
		off = []uint32{0, uint32(n)}
	case segEmpties:
		at := 0
		if n > 0 {
			at = rng.IntN(n/4 + 1) // elements before the first segment
		}
		off = append(off, uint32(at))
		for at < n {
			for range rng.IntN(3) * rng.IntN(40) {
				off = append(off, uint32(at)) // empty segments
			}
			at = min(n, at+1+rng.IntN(2*tile))
			if at < n && rng.IntN(8) == 0 {
				break // elements after the last segment
			}
			off = append(off, uint32(at))
		}
	default:
		off = []uint32{0}
		at := 0
		for at < n {
			l := rng.IntN(3 * tile)
			switch rng.IntN(4) {
			case 0:
				l = 0
			case 1:
				l = rng.IntN(4)
			}
			at = min(n, at+l)
			off = append(off, uint32(at))
		}
	}
	return off
}

// refSegments is the reference output: a value per segment, the empty
// value for an empty one.
func refSegments(typ vkcompact.Type, op reduce.Op, bits []uint64, off []uint32) []uint64 {
	out := make([]uint64, len(off)-1)
	for s := range out {
		a, b := min(int(off[s]), len(bits)), min(int(off[s+1]), len(bits))
		if b < a {
			b = a
		}
		out[s], _ = refReduce(typ, op, bits[a:b])
	}
	return out
}

// segDepth bounds the float32 additions along any element's way into a
// segment's sum: its invocation's elements twice (the two walks), the
// run scan's tree, and the tiles the segment spans in turn.
func segDepth(tn reduce.SegmentedTuning, length int) float64 {
	elems := float64(tn.Tile / tn.WorkgroupSize)
	return 2*elems + math.Log2(float64(tn.WorkgroupSize)) + 4 + float64(length/int(tn.Tile)+2)
}

func runSegmented(t testing.TB, ctx *vk.Context, c segCase) []uint64 {
	t.Helper()
	got, err := trySegmented(t, ctx, c)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	return got
}

func trySegmented(t testing.TB, ctx *vk.Context, c segCase) ([]uint64, error) {
	typ := c.s.Elem.Key.OrUint32()
	n, segs := uint64(len(c.bits)), uint64(len(c.offsets)-1)
	p, err := reduce.NewSegmentedPlan(ctx, n, uint32(segs), c.s)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	size := uint64(typ.Size())
	src := vktest.NewPoisoned(t, ctx, n*size)
	b := reduce.SegmentedBuffers{Src: src.Range(0, n*size)}
	if n > 0 {
		if err := vk.Upload(b.Src, words(typ, c.bits)); err != nil {
			return nil, err
		}
	}
	b.Offsets = vktest.NewPoisoned(t, ctx, 4*(segs+1)).Range(0, 4*(segs+1))
	if err := vk.Upload(b.Offsets, c.offsets); err != nil {
		return nil, err
	}
	dst := vktest.NewPoisoned(t, ctx, segs*size+64)
	b.Dst = dst.Range(0, segs*size)
	if s := p.ScratchSize(); s > 0 {
		b.Scratch = vktest.NewPoisoned(t, ctx, s).Range(0, s)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return nil, err
	}
	raw := make([]byte, dst.Size())
	if err := vk.Download(dst.All(), raw); err != nil {
		return nil, err
	}
	if w := binary.LittleEndian.Uint32(raw[segs*size:]); w != vktest.Poison {
		return nil, fmt.Errorf("the word past the output is %#x: written", w)
	}
	want := refSegments(typ, c.s.Op, c.bits, c.offsets)
	got := make([]uint64, segs)
	for s := range got {
		if typ == vkcompact.Uint64 {
			got[s] = binary.LittleEndian.Uint64(raw[8*s:])
		} else {
			got[s] = uint64(binary.LittleEndian.Uint32(raw[4*s:]))
		}
		if err := checkSegment(typ, c.s.Op, c.bits, c.offsets, s, got[s], want[s], p.Tuning()); err != nil {
			return nil, err
		}
	}
	return got, nil
}

// checkSegment compares segment s's value with the reference.
func checkSegment(typ vkcompact.Type, op reduce.Op, bits []uint64, off []uint32, s int, got, want uint64, tn reduce.SegmentedTuning) error {
	if op == reduce.Sum && typ == vkcompact.Float32 && off[s+1] > off[s] {
		seg := bits[off[s]:off[s+1]]
		sum, abs, exact := floatSum(seg)
		if !floatOK(got, sum, abs, exact, want, segDepth(tn, len(seg))) {
			return fmt.Errorf("segment %d [%d, %d): float sum %#x (%g), want %g (magnitudes %g, exact %v: %#x)", s, off[s], off[s+1], got, f32(got), sum, abs, exact, want)
		}
		return nil
	}
	if got != want {
		return fmt.Errorf("segment %d [%d, %d): %#x, want %#x", s, off[s], off[s+1], got, want)
	}
	return nil
}

// TestSegmented runs sum, min and max of every type within segments of
// every shape, at sizes from none to many tiles, default and smallest
// tiles, on fresh random data with the special float values.
func TestSegmented(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	sizes := []int{0, 1, 2, 5, 100, 1023, 1024, 4097, 65537, 1<<20 + 4321}
	if vktest.Short() {
		sizes = []int{0, 1, 5, 4097, 65537}
	}
	i := 0
	for _, typ := range types {
		for _, op := range []reduce.Op{reduce.Sum, reduce.Min, reduce.Max} {
			for _, n := range sizes {
				for shape := range segShapes {
					s := reduce.Segmented{Elem: vkcompact.Plain(typ), Op: op}
					if i%2 == 1 {
						s.WorkgroupSize, s.LoadsPerLane = info.MaxSubgroupSize, 1
					}
					i++
					p, err := reduce.NewSegmentedPlan(ctx, uint64(n), 1, s)
					if err != nil {
						t.Fatal(err)
					}
					c := segCase{s: s, bits: randBits(rng, typ, n, i%3 == 0, true), offsets: segOffsets(rng, n, shape, int(p.Tuning().Tile))}
					runSegmented(t, ctx, c)
				}
			}
		}
	}
}
