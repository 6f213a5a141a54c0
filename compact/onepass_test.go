package compact_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSelectPaths runs both paths, and the single pass's fallback, on
// sizes around its tiles, every key type, structs, flags, reversed splits
// and GPU counts, each against the Go reference.
func TestSelectPaths(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{1, 2, 255, 256, 257, 4095, 4096, 4097, 12289, 100003, 1<<20 + 7}
	for _, pc := range vktest.PathConfigs {
		for i, n := range sizes {
			typ := allTypes[(i+len(pc.Name))%len(allTypes)]
			sel := nonzero(typ)
			sel.Path, sel.Spins = pc.Path, pc.Spins
			switch i % 4 {
			case 1:
				sel.Elem = vkcompact.Struct(12, 4, vkcompact.Uint32) // the element path (3 words)
			case 2:
				sel.Keep = compact.KeepFlagged(1)
			case 3:
				sel.Elem = vkcompact.Struct(16, 8, typ) // one uvec4 per element
			}
			if i%2 == 1 {
				sel.Split, sel.ReverseRejected = true, true
			}
			if i%5 == 4 {
				sel.WorkgroupSize, sel.LoadsPerLane = ctx.Info().MaxSubgroupSize, 1 // small tiles: many of them
			}
			ratio := []float64{0.5, 0.1, 0.9, 0, 1}[i%5]
			c := selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, ratio)}
			if i%3 == 2 {
				c.gpuCount, c.count = true, uint32(rng.IntN(n+2))
			}
			name := fmt.Sprintf("%s/n=%d", pc.Name, n)
			t.Run(name, func(t *testing.T) {
				p, err := compact.NewPlan(ctx, uint64(n), sel)
				if err != nil {
					t.Fatal(err)
				}
				if got := p.Tuning().Path; got != pc.Path {
					t.Fatalf("plan took the %v path, want %v", got, pc.Path)
				}
				runSel(t, ctx, rng, c)
			})
		}
	}
	// The single pass with 2 and 3 loads per lane (the default is 4; fewer
	// where shared memory is short): each subgroup's run then spans 2 or 3
	// segments.
	for _, loads := range []uint32{2, 3} {
		for i, n := range []int{4097, 100003} {
			typ := allTypes[(i+int(loads))%len(allTypes)]
			sel := nonzero(typ)
			sel.Path, sel.LoadsPerLane = vkcompact.PathSinglePass, loads
			if i == 1 {
				sel.Split, sel.ReverseRejected = true, true
			}
			t.Run(fmt.Sprintf("single-pass-%d-loads/n=%d", loads, n), func(t *testing.T) {
				runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.3)})
			})
		}
	}
	// In place takes the three phases, with the rejected elements reversed too.
	for _, n := range []int{1, 4097, 100003} {
		sel := nonzero(vkcompact.Uint32)
		sel.Split, sel.ReverseRejected, sel.InPlace = true, true, true
		runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.3)})
	}
}

// TestSelectAutoPath checks which path PathAuto takes: on GPUs the single
// pass where it applies, on CPU devices too up to 256 KiB of input and
// the three phases past it.
func TestSelectAutoPath(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, c := range []struct {
		sel  compact.Selection
		n    uint64
		want vkcompact.Path
	}{
		{nonzero(vkcompact.Uint32), 1000, vkcompact.PathSinglePass},
		{compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), Split: true, ReverseRejected: true}, 1000, vkcompact.PathSinglePass},
		{compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), Split: true}, 1000, vkcompact.PathThreePhase},
		{compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), InPlace: true}, 1000, vkcompact.PathThreePhase},
		{nonzero(vkcompact.Uint32), 0, vkcompact.PathThreePhase},
		{nonzero(vkcompact.Uint32), 1 << 27, vkcompact.PathSinglePass},
		{nonzero(vkcompact.Uint32), vkcompact.MaxSinglePassElements + 1, vkcompact.PathThreePhase},
		{compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), Split: true, ReverseRejected: true}, 1 << 27, vkcompact.PathSinglePass},
		{nonzero(vkcompact.Uint32), uint64(ctx.Info().MaxStorageBufferRange)/4 + 1, vkcompact.PathSinglePass}, // in windows
		{nonzero(vkcompact.Uint64), uint64(ctx.Info().MaxStorageBufferRange)/2 + 1, vkcompact.PathThreePhase}, // past four output windows
	} {
		p, err := compact.NewPlan(ctx, c.n, c.sel)
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Info().Type == "cpu" && c.n*uint64(c.sel.Elem.Size()) > 256<<10 {
			c.want = vkcompact.PathThreePhase // the faster there past 256 KiB
		}
		if got := p.Tuning().Path; got != c.want {
			t.Errorf("n=%d split=%v reversed=%v inplace=%v: %v, want %v", c.n, c.sel.Split, c.sel.ReverseRejected, c.sel.InPlace, got, c.want)
		}
	}
}

// TestSinglePassNotApplicable forces the single pass where it does not
// apply: each gets ErrInvalid naming the reason.
func TestSinglePassNotApplicable(t *testing.T) {
	ctx := vktest.Shared(t)
	single := func(s compact.Selection) compact.Selection {
		s.Path = vkcompact.PathSinglePass
		return s
	}
	u32 := nonzero(vkcompact.Uint32)
	for _, c := range []struct {
		sel  compact.Selection
		n    uint64
		want string
	}{
		{single(compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), InPlace: true}), 1000, "in place"},
		{single(compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), Split: true}), 1000, "ReverseRejected"},
		{single(u32), vkcompact.MaxSinglePassElements + 1, "at most 3220176895"},
		{single(nonzero(vkcompact.Uint64)), uint64(ctx.Info().MaxStorageBufferRange)/2 + 1, "maxStorageBufferRange"},
		{single(compact.Selection{Elem: vkcompact.Struct(256, 0, vkcompact.Uint32), Keep: compact.KeepNonZero(), Options: compact.Options{LoadsPerLane: 4}}), 1000, "shared memory"},
		{compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), ReverseRejected: true}, 1000, "split only"},
		{compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), Options: compact.Options{Path: 7}}, 1000, "unknown path"},
	} {
		if c.want == "maxStorageBufferRange" && c.n > vkcompact.MaxSinglePassElements {
			continue // the element limit speaks first on this device
		}
		_, err := compact.NewPlan(ctx, c.n, c.sel)
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("n=%d %+v: got %v, want ErrInvalid naming %q", c.n, c.sel.Options, err, c.want)
		}
	}
}

// TestSinglePassRepeated runs the single pass many times on one input with
// many tiles in flight, with and without spinning before the fallback,
// poisoning the output before every run: a look-back that is wrong once in
// many runs fails it. VKCOMPACT_REPEAT sets the runs per configuration
// (default 25) and VKCOMPACT_REPEAT_N the size (default 100003); on the
// H100, scripts/bench-h100.sh -stress runs 1000 at 2^24.
func TestSinglePassRepeated(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	runs, n := vktest.EnvInt(t, "VKCOMPACT_REPEAT", 25), vktest.EnvInt(t, "VKCOMPACT_REPEAT_N", 100003)
	in := make([]uint32, n)
	var kept, rejected []uint32
	for i := range in {
		if rng.IntN(2) == 0 {
			in[i] = rng.Uint32() | 1
			kept = append(kept, in[i])
		} else {
			in[i] = 0
			rejected = append(rejected, uint32(i)) // for the split: the index instead of 0
		}
	}
	// For the split, rejected elements carry their index with bit 0 clear:
	// even values are rejected (KeepMask(1)), so their reversed order shows.
	for i := range in {
		if in[i] == 0 {
			in[i] = uint32(i) << 1
		}
	}
	wantSplit := append([]uint32{}, kept...)
	for i := len(rejected) - 1; i >= 0; i-- {
		wantSplit = append(wantSplit, rejected[i]<<1)
	}
	nb := uint64(4 * n)
	src, dst := vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, nb)
	res := vktest.NewPoisoned(t, ctx, compact.ResultSize)
	if err := vk.Upload(src.Range(0, nb), in); err != nil {
		t.Fatal(err)
	}
	poisoned := vktest.PoisonWords(n)
	got := make([]uint32, n)
	for _, spins := range []int32{0, -1} {
		for _, split := range []bool{false, true} {
			sel := compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepMask(1), Split: split, ReverseRejected: split}
			sel.Path, sel.Spins = vkcompact.PathSinglePass, spins
			sel.Options = smallTiles(ctx, sel.Options) // on CPU devices: many small tiles
			if wg := vktest.EnvInt(t, "VKCOMPACT_REPEAT_WG", 0); wg != 0 {
				sel.WorkgroupSize = uint32(wg)
			}
			p, err := compact.NewPlan(ctx, uint64(n), sel)
			if err != nil {
				t.Fatal(err)
			}
			scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
			b := compact.Buffers{Src: src.Range(0, nb), Dst: dst.Range(0, nb), Result: res.Range(0, compact.ResultSize), Scratch: scratch.Range(0, p.ScratchSize())}
			want := kept
			if split {
				want = wantSplit
			}
			for r := 0; r < runs; r++ {
				if err := vk.Upload(b.Dst, poisoned); err != nil {
					t.Fatal(err)
				}
				if err := pipeline.Run(ctx, func(rec *pipeline.Recorder) { p.Record(rec, b) }); err != nil {
					t.Fatal(err)
				}
				r0, err := compact.ReadResult(b.Result)
				if err != nil {
					t.Fatal(err)
				}
				if err := vk.Download(b.Dst, got); err != nil {
					t.Fatal(err)
				}
				if int(r0.Kept) != len(kept) || !slices.Equal(got[:len(want)], want) || (!split && !slices.Equal(got[len(want):], poisoned[len(want):])) {
					i := 0
					for i < len(want) && got[i] == want[i] {
						i++
					}
					t.Fatalf("run %d of %d (%d tiles of %d, spins %d, split %v): kept %d, want %d; first difference at element %d",
						r+1, runs, p.Tuning().Tiles, p.Tuning().Tile, p.Tuning().Spins, split, r0.Kept, len(kept), i)
				}
			}
			t.Logf("%d runs of %d elements, %d tiles of %d, spins %d, split %v: all right", runs, n, p.Tuning().Tiles, p.Tuning().Tile, p.Tuning().Spins, split)
		}
	}
}

// TestSelectSinglePassManyTiles runs the single pass of a compaction and
// of a split over more tiles than maxComputeWorkGroupCount[0], so that the
// dispatch is a 2D grid. On lavapipe, whose workgroups of such a grid
// do not run in index order, tiles by index once made a compaction fall
// back over tens of thousands of predecessors, past lavapipe's loop guard,
// and write wrong output; see tiling.TilesByIndex.
func TestSelectSinglePassManyTiles(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	o := smallTiles(ctx, compact.Options{Path: vkcompact.PathSinglePass})
	probe, err := compact.NewPlan(ctx, 1<<20, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepMask(1), Options: o})
	if err != nil {
		t.Fatal(err)
	}
	tiles := uint64(ctx.Info().MaxWorkgroupCount[0]) + 1000
	n := tiles * uint64(probe.Tuning().Tile)
	if n > 1<<26 {
		t.Skipf("%d tiles of %d: too many elements to test here", tiles, probe.Tuning().Tile)
	}
	in := make([]uint32, n)
	for i := range in {
		if rng.IntN(2) == 0 {
			in[i] = rng.Uint32() | 1
		} else {
			in[i] = uint32(i) << 1
		}
	}
	for _, split := range []bool{false, true} {
		sel := compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepMask(1), Split: split, ReverseRejected: split, Options: o}
		got, res, err := compact.SelectSlice(ctx, in, sel)
		if err != nil {
			t.Fatal(err)
		}
		var want, rejected []uint32
		for _, x := range in {
			if x&1 != 0 {
				want = append(want, x)
			} else {
				rejected = append(rejected, x)
			}
		}
		if split {
			slices.Reverse(rejected)
			want = append(want, rejected...)
		}
		if !slices.Equal(got, want) {
			i := 0
			for i < len(want) && i < len(got) && got[i] == want[i] {
				i++
			}
			t.Fatalf("split %v, %d elements: %d out (result %+v), want %d; first difference at %d", split, n, len(got), res, len(want), i)
		}
	}
}

// smallTiles makes a CPU device's single pass take many small tiles
// (vktest.SmallTiles).
func smallTiles(ctx *vk.Context, o compact.Options) compact.Options {
	if wg, loads := vktest.SmallTiles(ctx.Info()); wg != 0 {
		o.WorkgroupSize, o.LoadsPerLane = wg, loads
	}
	return o
}

// TestSinglePassWindows runs the single pass past one binding, with the
// binding limit lowered to 64 KiB so that small inputs take several input
// windows (one dispatch each, tile numbers carried from one to the next)
// and up to four output windows: every kept ratio (the kept elements of a
// late window land in an early output window), splits (the rejected ones
// in the last windows), 8- and 12-byte elements, uint8 flags, GPU counts
// that end inside a window or leave whole dispatches without elements,
// and the fallback; each against the Go reference with the output
// poisoned. Tiles whose bytes are not a multiple of the offset alignment
// (SwiftShader's 256 bytes with small tiles) take windows of a multiple
// of tiles that is. Past four output windows the single pass is refused,
// naming the reason.
func TestSinglePassWindows(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	const limit = 64 << 10
	wg := max(info.MaxSubgroupSize, 64)
	for i, c := range []struct {
		typ      vkcompact.Type
		elem     vkcompact.Elem
		n        int
		ratio    float64
		split    bool
		flags    bool
		gpuCount int // -1: none
		spins    int32
	}{
		{vkcompact.Uint32, vkcompact.Elem{}, 60001, 0.5, false, false, -1, 0},
		{vkcompact.Uint32, vkcompact.Elem{}, 65536, 1, false, false, -1, 0},
		{vkcompact.Uint32, vkcompact.Elem{}, 50000, 0.1, false, false, -1, -1},
		{vkcompact.Uint32, vkcompact.Elem{}, 50000, 0, false, false, -1, 0},
		{vkcompact.Int32, vkcompact.Elem{}, 60001, 0.5, true, false, -1, 0},
		{vkcompact.Float32, vkcompact.Elem{}, 40000, 0.9, true, false, -1, -1},
		{vkcompact.Uint64, vkcompact.Elem{}, 30001, 0.5, false, false, -1, 0},
		{vkcompact.Uint32, vkcompact.Struct(12, 4, vkcompact.Uint32), 20000, 0.5, true, false, -1, 0},
		{vkcompact.Uint32, vkcompact.Struct(12, 4, vkcompact.Uint32), 20000, 0.5, false, false, -1, 0},
		{vkcompact.Uint32, vkcompact.Struct(16, 4, vkcompact.Uint32), 15000, 0.5, false, false, -1, 0},
		{vkcompact.Uint32, vkcompact.Elem{}, 60001, 0.4, false, true, -1, 0},
		{vkcompact.Uint32, vkcompact.Elem{}, 60001, 0.5, false, false, 20000, 0},
		{vkcompact.Uint32, vkcompact.Elem{}, 60001, 0.7, true, false, 45001, -1},
	} {
		sel := nonzero(c.typ)
		if c.elem.Size() != 0 {
			sel.Elem = c.elem
		}
		sel.Path, sel.Spins, sel.WorkgroupSize, sel.LoadsPerLane = vkcompact.PathSinglePass, c.spins, wg, 4
		sel.Split, sel.ReverseRejected = c.split, c.split
		if c.flags {
			sel.Keep = compact.KeepFlagged(1)
		}
		sc := selCase{n: c.n, sel: sel, keep: keepMask(rng, c.n, patRandom, c.ratio), windowBytes: limit}
		if c.gpuCount >= 0 {
			sc.gpuCount, sc.count = true, uint32(c.gpuCount)
		}
		t.Run(fmt.Sprintf("%d/%v/n=%d", i, sel.Elem.Key, c.n), func(t *testing.T) {
			p, err := compact.NewPlanWindowLimit(ctx, uint64(c.n), sel, limit)
			if err != nil {
				t.Fatal(err)
			}
			tu := p.Tuning()
			bytes := uint64(c.n) * uint64(sel.Elem.Size())
			if tu.WindowTiles == 0 || tu.OutWindowBytes == 0 || uint64(tu.WindowTiles)*uint64(tu.Tile)*uint64(sel.Elem.Size()) > limit || tu.SelfReset {
				t.Fatalf("tuning %+v: want windows of at most %d bytes, no self-reset", tu, limit)
			}
			if tu.Tiles <= tu.WindowTiles || bytes <= tu.OutWindowBytes {
				t.Fatalf("tuning %+v: want several input and output windows for %d bytes", tu, bytes)
			}
			runSel(t, ctx, rng, sc)
		})
	}
	// A split of more than tiling.SelfResetMaxTiles tiles, which takes
	// its tiles from the counter on a GPU too, in windows of 2 MiB.
	split := nonzero(vkcompact.Uint32)
	split.Path, split.Split, split.ReverseRejected, split.WorkgroupSize, split.LoadsPerLane = vkcompact.PathSinglePass, true, true, wg, 4
	if p, err := compact.NewPlanWindowLimit(ctx, 1<<21, split, 2<<20); err != nil || p.Tuning().TilesByIndex || p.Tuning().WindowTiles == 0 {
		t.Fatalf("split of 2^21 in windows of 2 MiB: %+v, %v: want tiles from the counter, in windows", p.Tuning(), err)
	}
	runSel(t, ctx, rng, selCase{n: 1 << 21, sel: split, keep: keepMask(rng, 1<<21, patRandom, 0.3), windowBytes: 2 << 20})

	// Windows of more tiles than the grid's x limit: 2D grids, whose
	// padding workgroups take tile-counter numbers too.
	o := smallTiles(ctx, compact.Options{Path: vkcompact.PathSinglePass})
	probe, err := compact.NewPlan(ctx, 1<<20, nonzero(vkcompact.Uint32))
	if err != nil {
		t.Fatal(err)
	}
	tileBytes := uint64(probe.Tuning().Tile) * 4
	if o.WorkgroupSize != 0 {
		tileBytes = uint64(o.WorkgroupSize*o.LoadsPerLane) * 16
	}
	window := (uint64(info.MaxWorkgroupCount[0]) + 1000) * tileBytes
	if n := (2*window + window/3) / 4; info.MaxWorkgroupCount[0] < 1<<20 && n <= 1<<24 {
		for _, split := range []bool{false, true} {
			sel := nonzero(vkcompact.Uint32)
			sel.Options, sel.Split, sel.ReverseRejected = o, split, split
			runSel(t, ctx, rng, selCase{n: int(n), sel: sel, keep: keepMask(rng, int(n), patRandom, 0.5), windowBytes: window})
		}
	} else {
		t.Logf("windows of %d tiles of %d bytes: too many elements to test here", info.MaxWorkgroupCount[0]+1000, tileBytes)
	}

	// Refused: an output past four windows.
	big := nonzero(vkcompact.Uint32)
	big.Path = vkcompact.PathSinglePass
	n := uint64(4*limit/4 + 1)
	if _, err := compact.NewPlanWindowLimit(ctx, n, big, limit); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "binds at most 4") {
		t.Errorf("n=%d: got %v, want ErrInvalid naming the four output windows", n, err)
	}
}
