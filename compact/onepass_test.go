package compact_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
	"github.com/vkcompact/vkcompact/vk/vktest"
)

// pathConfigs are the ways a selection can run: the three phases, the
// single pass with the device's default spins, and the single pass with
// its fallback taken at the first unpublished predecessor.
var pathConfigs = []struct {
	name  string
	path  compact.Path
	spins int32
}{
	{"three-phase", compact.PathThreePhase, 0},
	{"single-pass", compact.PathSinglePass, 0},
	{"single-pass-fallback", compact.PathSinglePass, -1},
}

// TestSelectPaths runs both paths, and the single pass's fallback, on
// sizes around its tiles, every key type, structs, flags, reversed splits
// and GPU counts, each against the Go reference.
func TestSelectPaths(t *testing.T) {
	ctx := vktest.Open(t)
	rng := newRand(t)
	sizes := []int{1, 2, 255, 256, 257, 4095, 4096, 4097, 12289, 100003, 1<<20 + 7}
	for _, pc := range pathConfigs {
		for i, n := range sizes {
			typ := allTypes[(i+len(pc.name))%len(allTypes)]
			sel := nonzero(typ)
			sel.Path, sel.Spins = pc.path, pc.spins
			switch i % 4 {
			case 1:
				sel.Elem = compact.Struct(12, 4, compact.Uint32) // the element path (3 words)
			case 2:
				sel.Keep = compact.KeepFlagged(1)
			case 3:
				sel.Elem = compact.Struct(16, 8, typ) // one uvec4 per element
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
			name := fmt.Sprintf("%s/n=%d", pc.name, n)
			t.Run(name, func(t *testing.T) {
				p, err := compact.NewPlan(ctx, uint64(n), sel)
				if err != nil {
					t.Fatal(err)
				}
				if got := p.Tuning().Path; got != pc.path {
					t.Fatalf("plan took the %v path, want %v", got, pc.path)
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
			sel.Path, sel.LoadsPerLane = compact.PathSinglePass, loads
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
		sel := nonzero(compact.Uint32)
		sel.Split, sel.ReverseRejected, sel.InPlace = true, true, true
		runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.3)})
	}
}

// TestSelectAutoPath checks which path PathAuto takes: on GPUs the single
// pass where it applies, on CPU devices the three phases.
func TestSelectAutoPath(t *testing.T) {
	ctx := vktest.Open(t)
	for _, c := range []struct {
		sel  compact.Selection
		n    uint64
		want compact.Path
	}{
		{nonzero(compact.Uint32), 1000, compact.PathSinglePass},
		{compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), Split: true, ReverseRejected: true}, 1000, compact.PathSinglePass},
		{compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), Split: true}, 1000, compact.PathThreePhase},
		{compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), InPlace: true}, 1000, compact.PathThreePhase},
		{nonzero(compact.Uint32), 0, compact.PathThreePhase},
		{nonzero(compact.Uint32), 1 << 27, compact.PathSinglePass},
		{nonzero(compact.Uint32), compact.MaxSinglePassElements + 1, compact.PathThreePhase},
		{compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), Split: true, ReverseRejected: true}, 1 << 27, compact.PathSinglePass},
		{nonzero(compact.Uint32), uint64(ctx.Info().MaxStorageBufferRange)/4 + 1, compact.PathThreePhase},
	} {
		p, err := compact.NewPlan(ctx, c.n, c.sel)
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Info().Type == "cpu" {
			c.want = compact.PathThreePhase // the faster there
		}
		if got := p.Tuning().Path; got != c.want {
			t.Errorf("n=%d split=%v reversed=%v inplace=%v: %v, want %v", c.n, c.sel.Split, c.sel.ReverseRejected, c.sel.InPlace, got, c.want)
		}
	}
}

// TestSinglePassNotApplicable forces the single pass where it does not
// apply: each gets ErrInvalid naming the reason.
func TestSinglePassNotApplicable(t *testing.T) {
	ctx := vktest.Open(t)
	single := func(s compact.Selection) compact.Selection {
		s.Path = compact.PathSinglePass
		return s
	}
	u32 := nonzero(compact.Uint32)
	for _, c := range []struct {
		sel  compact.Selection
		n    uint64
		want string
	}{
		{single(compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), InPlace: true}), 1000, "in place"},
		{single(compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), Split: true}), 1000, "ReverseRejected"},
		{single(u32), compact.MaxSinglePassElements + 1, "at most 1073741823"},
		{single(u32), uint64(ctx.Info().MaxStorageBufferRange)/4 + 1, "maxStorageBufferRange"},
		{single(u32), 0, "no elements"},
		{single(compact.Selection{Elem: compact.Struct(256, 0, compact.Uint32), Keep: compact.KeepNonZero(), Options: compact.Options{LoadsPerLane: 4}}), 1000, "shared memory"},
		{compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), ReverseRejected: true}, 1000, "split only"},
		{compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepNonZero(), Options: compact.Options{Path: 7}}, 1000, "unknown path"},
	} {
		if c.n > uint64(ctx.Info().MaxStorageBufferRange)/4 && c.want == "maxStorageBufferRange" && c.n > compact.MaxSinglePassElements {
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
	ctx := vktest.Open(t)
	rng := newRand(t)
	runs, n := envInt(t, "VKCOMPACT_REPEAT", 25), envInt(t, "VKCOMPACT_REPEAT_N", 100003)
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
	src, dst := newBuf(t, ctx, nb), newBuf(t, ctx, nb)
	res := newBuf(t, ctx, compact.ResultSize)
	if err := vk.Upload(src.Range(0, nb), in); err != nil {
		t.Fatal(err)
	}
	poisoned := poisonedWords(n)
	got := make([]uint32, n)
	for _, spins := range []int32{0, -1} {
		for _, split := range []bool{false, true} {
			sel := compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepMask(1), Split: split, ReverseRejected: split}
			sel.Path, sel.Spins = compact.PathSinglePass, spins
			sel.Options = smallTiles(ctx, sel.Options) // on CPU devices: many small tiles
			if wg := envInt(t, "VKCOMPACT_REPEAT_WG", 0); wg != 0 {
				sel.WorkgroupSize = uint32(wg)
			}
			p, err := compact.NewPlan(ctx, uint64(n), sel)
			if err != nil {
				t.Fatal(err)
			}
			scratch := newBuf(t, ctx, p.ScratchSize())
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

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		t.Fatalf("%s=%q: want a count", name, s)
	}
	return v
}
