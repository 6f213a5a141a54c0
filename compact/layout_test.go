package compact

import (
	"fmt"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
)

// TestScratchLayout plans selections on every fake device, for many
// sizes, elements, processor counts (64k - 1 among them: their counts,
// procs + 2 words, end one word into a 256-byte block), in place and
// not, compactions and splits, the rejected elements in order and
// reversed, on both paths, and with the three phases' segments cut small
// (several copy-back pieces). For each plan the scratch regions Record
// binds (threePhaseLayout, singlePass.status) must lie within ScratchSize at offsets a binding
// may take, not overlap one another, and hold what the kernels write and
// read there:
//   - the three phases' counts: procs + 2 words. select_count writes
//     counts[chunk] for every chunk (at most procs of them); select_scan
//     scans them and writes the kept total at counts[chunks] and
//     counts[procs] and the element count at counts[procs + 1], which
//     select_move (the reversed split) and select_copyback read;
//   - the copy-back's indirect arguments: 16 bytes per piece, one piece
//     per segment in place (select_scan writes them, vkCmdDispatchIndirect
//     reads them), and one bound when there is none;
//   - in place, the copy of the output: n elements;
//   - the single pass's status: tiles + 2 words (the tile counter at 0,
//     tile t's status at 1 + t, the finished count at 1 + tiles:
//     shaders/compact/select_onepass.glsl, tile_reset.glsl), and nothing else.
func TestScratchLayout(t *testing.T) {
	elems := []vkcompact.Elem{vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Float64),
		vkcompact.Struct(12, 4, vkcompact.Uint32), vkcompact.Struct(48, 40, vkcompact.Float64)}
	procs := []uint32{0, 1, 2, 61, 62, 63, 64, 65, 127, 191, 255, 1023, 4095, 16383, 65535}
	sizes := []uint64{0, 1, 255, 4097, 1<<20 + 3, 1<<27 + 5, MaxElements}
	modes := []struct{ split, reversed, inPlace bool }{
		{false, false, false}, {false, false, true}, {true, false, false}, {true, false, true}, {true, true, false}, {true, true, true},
	}
	var plans, three, edge, single, pieced int
	for _, dev := range fakedev.All {
		for _, elem := range elems {
			for _, pr := range procs {
				for _, n := range sizes {
					for _, m := range modes {
						for _, path := range []vkcompact.Path{vkcompact.PathAuto, vkcompact.PathThreePhase} {
							// The three phases also with segments of
							// 64 KiB: several copy-back pieces in place.
							for _, seg := range []uint64{0, 64 << 10} {
								if seg != 0 && path != vkcompact.PathThreePhase {
									continue
								}
								sel := Selection{Elem: elem, Keep: KeepNonZero(), Split: m.split, ReverseRejected: m.reversed, InPlace: m.inPlace,
									Options: Options{Path: path, Processors: pr}}
								p, err := tunePlan(dev, n, sel, limits{segBytes: seg})
								if err != nil {
									continue // refused (too many processors for the device, ...): nothing to lay out
								}
								plans++
								tu := p.Tuning()
								switch {
								case tu.Path == vkcompact.PathSinglePass:
									single++
								case tu.Processors%64 == 63 && m.split && m.inPlace:
									edge++
								}
								if tu.Path == vkcompact.PathThreePhase {
									three++
									if t, ok := p.alg.(*threePhase); ok && t.pieces > 1 {
										pieced++
									}
								}
								if err := checkLayout(p); err != "" {
									t.Fatalf("%s: %v n=%d split=%v reversed=%v inplace=%v processors=%d segments of %d bytes, tuning %+v, scratch %d: %s",
										dev.Name, elem, n, m.split, m.reversed, m.inPlace, pr, seg, tu, p.ScratchSize(), err)
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d plans: %d of the three phases (%d in-place splits at 64k - 1 processors, %d of several copy-back pieces), %d single passes", plans, three, edge, pieced, single)
	if edge == 0 || single == 0 || pieced == 0 {
		t.Fatalf("the cases plan %d in-place splits at 64k - 1 processors, %d single passes, %d of several copy-back pieces: want some of each", edge, single, pieced)
	}
}

// checkLayout checks p's scratch regions, or says what is wrong.
func checkLayout(p *Plan) string {
	tu := p.Tuning()
	n := uint64(p.req.n)
	type named struct {
		name string
		r    region
		need uint64 // the bytes the kernels use
	}
	var rs []named
	switch a := p.alg.(type) {
	case *singlePass:
		if tu.Path != vkcompact.PathSinglePass {
			return fmt.Sprintf("the single pass reports path %v", tu.Path)
		}
		rs = []named{{"status", a.status, (uint64(tu.Tiles) + 2) * 4}}
	case *threePhase:
		if tu.Path != vkcompact.PathThreePhase {
			return fmt.Sprintf("the three phases report path %v", tu.Path)
		}
		if tu.Chunks > tu.Processors {
			return "more chunks than processors: their counts pass counts[procs]"
		}
		pieces := uint64(0)
		if p.req.sel.InPlace {
			pieces = (n + uint64(tu.SegmentElems) - 1) / uint64(tu.SegmentElems)
		}
		l := a.layout
		rs = []named{{"counts", l.counts, (uint64(tu.Processors) + 2) * 4},
			{"copy-back arguments", l.args, max(pieces, 1) * 16}}
		if p.req.sel.InPlace {
			rs = append(rs, named{"in-place copy", l.tmp, n * p.req.size})
		} else if l.tmp.size != 0 {
			return "in-place copy: out of place the three phases use none, but it has some"
		}
	}
	scratch := p.ScratchSize()
	for i, a := range rs {
		switch {
		case a.r.size < a.need:
			return fmt.Sprintf("%s: %d bytes at %d, the kernels use %d", a.name, a.r.size, a.r.off, a.need)
		case a.r.off+a.r.size > scratch:
			return fmt.Sprintf("%s: bytes %d to %d, past the scratch's %d", a.name, a.r.off, a.r.off+a.r.size, scratch)
		case a.r.size != 0 && a.r.off%256 != 0:
			return fmt.Sprintf("%s: at offset %d, not a multiple of 256 (minStorageBufferOffsetAlignment)", a.name, a.r.off)
		}
		for _, b := range rs[:i] {
			if a.r.size != 0 && b.r.size != 0 && a.r.off < b.r.off+b.r.size && b.r.off < a.r.off+a.r.size {
				return fmt.Sprintf("%s (bytes %d to %d) overlaps %s (bytes %d to %d)", a.name, a.r.off, a.r.off+a.r.size, b.name, b.r.off, b.r.off+b.r.size)
			}
		}
	}
	return ""
}
