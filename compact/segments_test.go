package compact_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// segElem is an element the segment tests run, with the processor count
// it runs at (64k - 1: the counts then end one word into a 256-byte
// block, see TestScratchLayout), the elements of each segment, and the
// splits TestSelectSegments runs in its short form.
type segElem struct {
	elem     vkcompact.Elem
	procs    uint32
	segElems int
	short    []segMode
}

// segMode is a split's write, order and place.
type segMode struct {
	write             compact.Write
	reversed, inPlace bool
}

// segElems are the segment tests' elements: 4-byte and 8-byte keys (the
// vector path) and a 12-byte struct (the element path). Both tests share
// them, and in the short form the staged, reversed, in-place splits, so
// that they share their pipelines (a second apiece on SwiftShader).
var segElems = []segElem{
	{vkcompact.Plain(vkcompact.Uint32), 63, 1024, []segMode{{compact.WriteScattered, false, false}, {compact.WriteStaged, true, true}}},
	{vkcompact.Plain(vkcompact.Float64), 127, 512, []segMode{{compact.WriteScattered, false, false}, {compact.WriteStaged, true, true}}},
	{vkcompact.Struct(12, 8, vkcompact.Float32), 191, 256, []segMode{{compact.WriteScattered, true, true}, {compact.WriteStaged, false, false}}},
}

// TestSelectSegments runs the three phases past one binding at small n:
// with the segments bound at most a few KiB at a time
// (compact.NewPlanSegmentLimit), 3 or 4 segments, as many destination
// pages and, in place, copy-back pieces. Splits with the rejected
// elements in order and reversed, scattered and staged writes, in place
// and not, over 4- and 8-byte keys and a struct, each against the Go
// reference with the output poisoned. The scattered write places a
// rejected element by its index in the whole input, which a single
// segment cannot tell from its index in the segment. The short form runs
// two splits per element (segElem.short).
func TestSelectSegments(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)

	for _, e := range segElems {
		size := int(e.elem.Size())
		for wi, w := range []compact.Write{compact.WriteScattered, compact.WriteStaged} {
			for ri, reversed := range []bool{false, true} {
				for ii, inPlace := range []bool{false, true} {
					if vktest.Short() && !slices.Contains(e.short, segMode{w, reversed, inPlace}) {
						continue // the short form: two splits per element, each write and order scattered among them
					}
					sel := compact.Selection{Elem: e.elem, Keep: compact.KeepNonZero(), Split: true, ReverseRejected: reversed, InPlace: inPlace}
					sel.Path, sel.Write, sel.Processors = vkcompact.PathThreePhase, w, e.procs
					n := 2*e.segElems + 1 + rng.IntN(2*e.segElems)
					// Any limit from segElems whole elements to 255 more
					// cuts segments of segElems (whole chunks of 256).
					c := selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.3+0.4*rng.Float64()),
						segBytes: uint64(e.segElems*size + rng.IntN(256*size))}
					if (wi+ri+ii)%4 == 3 {
						// A GPU count ending in the second segment.
						c.gpuCount, c.count = true, uint32(e.segElems+1+rng.IntN(e.segElems))
					}
					t.Run(fmt.Sprintf("%v/%v/reversed=%v/inplace=%v", e.elem.Key, w, reversed, inPlace), func(t *testing.T) {
						// With no limit the test constructor plans as
						// NewPlan does (the same pipelines: no cost).
						a, err := compact.NewPlan(ctx, uint64(n), sel)
						if err != nil {
							t.Fatal(err)
						}
						b, err := compact.NewPlanSegmentLimit(ctx, uint64(n), sel, 0)
						if err != nil {
							t.Fatal(err)
						}
						if a.Tuning() != b.Tuning() || a.ScratchSize() != b.ScratchSize() {
							t.Fatalf("NewPlan %+v (scratch %d), NewPlanSegmentLimit with no limit %+v (scratch %d)", a.Tuning(), a.ScratchSize(), b.Tuning(), b.ScratchSize())
						}
						p, err := compact.NewPlanSegmentLimit(ctx, uint64(n), sel, c.segBytes)
						if err != nil {
							t.Fatal(err)
						}
						tu := p.Tuning()
						if tu.Path != vkcompact.PathThreePhase || tu.Write != w || tu.SegmentElems != uint32(e.segElems) || tu.Processors != e.procs {
							t.Fatalf("tuning %+v: want the three phases, %v, %d processors, segments of %d elements", tu, w, e.procs, e.segElems)
						}
						runSel(t, ctx, rng, c)
					})
				}
			}
		}
	}
}

// TestSelectInPlaceSplitProcessors runs in-place splits, the rejected
// elements reversed and not, at processor counts of 64k - 1, whose counts
// (procs + 2 words) end one word into a 256-byte block: the copy-back
// arguments that follow them must start past it, or the element count
// there (read by the reversed move and by the copy-back) is overwritten.
// Each against the Go reference with the output poisoned; one segment.
func TestSelectInPlaceSplitProcessors(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for ei, e := range segElems {
		for ri, reversed := range []bool{true, false} {
			if vktest.Short() && (ei == 2 || ri == 1) {
				continue // the short form: 63 and 127 processors, reversed
			}
			sel := compact.Selection{Elem: e.elem, Keep: compact.KeepNonZero(), Split: true, ReverseRejected: reversed, InPlace: true}
			sel.Path, sel.Processors = vkcompact.PathThreePhase, e.procs
			n := 15000 + rng.IntN(10000)
			t.Run(fmt.Sprintf("procs=%d/%v/reversed=%v", e.procs, e.elem.Key, reversed), func(t *testing.T) {
				p, err := compact.NewPlan(ctx, uint64(n), sel)
				if err != nil {
					t.Fatal(err)
				}
				if tu := p.Tuning(); tu.Processors != e.procs || tu.SegmentElems < uint32(n) {
					t.Fatalf("tuning %+v: want %d processors, one segment", tu, e.procs)
				}
				runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.5)})
			})
		}
	}
}
