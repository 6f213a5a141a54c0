package radix_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSortWindows sorts past one binding, with the binding limit lowered
// to 256 KiB (a test hook) so that small inputs take windows: the count
// and the scatter run one dispatch per window of whole chunks of the keys
// (and values), and the scatter binds each output as up to four windows.
// Keys alone and pairs, 32- and 64-bit keys, held tails, fused counts, a
// copy back in place, a bit range, all-equal keys (every run crossing
// windows), GPU counts that end inside a window or leave whole windows
// empty, and the most keys four output windows hold; one more key is
// refused by name. Each is checked against the Go reference, outputs
// poisoned first.
func TestSortWindows(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	const limit = 256 << 10
	u32 := func(o radix.Options) radix.Sort {
		return radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o}
	}
	pairs := func(s radix.Sort) radix.Sort { s.Values = true; return s }
	cases := []struct {
		name    string
		n       int
		s       radix.Sort
		pattern string
		count   int // > 0: a GPU count
	}{
		{"keys", 150001, u32(radix.Options{Processors: 23}), "random", 0},
		{"pairs", 150001, pairs(u32(radix.Options{Processors: 23})), "random", 0},
		{"pairs, held tails", 150001, pairs(u32(radix.Options{Processors: 40, DigitBits: 6, Tails: radix.TailsHold})), "random", 0},
		{"u64 keys", 70001, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), Options: radix.Options{Processors: 17}}, "random", 0},
		{"u64 pairs, descending", 50001, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), Values: true, Descending: true, Options: radix.Options{Processors: 9, DigitBits: 8}}, "random", 0},
		{"f32 in place, a copy back", 150001, radix.Sort{Elem: vkcompact.Plain(vkcompact.Float32), Descending: true, InPlace: true, Options: radix.Options{Processors: 31, DigitBits: 5}}, "random", 0},
		{"i32 pairs, fused counts", 200001, radix.Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, Options: radix.Options{Processors: 50, DigitBits: 5, Counts: radix.CountsFused}}, "random", 0},
		{"bits [4, 20)", 150001, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, BeginBit: 4, EndBit: 20, Options: radix.Options{Processors: 20}}, "random", 0},
		{"equal keys", 150001, pairs(u32(radix.Options{Processors: 23, DigitBits: 6, Counts: radix.CountsFused})), "equal", 0},
		{"GPU count inside window 2", 150001, pairs(u32(radix.Options{Processors: 23})), "random", 100000},
		{"GPU count in window 1", 150001, u32(radix.Options{Processors: 23}), "few", 3},
	}
	for i, c := range cases {
		within := uint64(limit)
		if i == 2 || i == 4 {
			// Windows of a limit no power of two: output windows of
			// slots that are not, input windows of fewer chunks.
			within = limit - 4000
		}
		keys := keyData(rng, c.s.Elem.Key, c.n, c.pattern)
		p, err := radix.NewPlanWithin(ctx, uint64(c.n), c.s, within)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tu := p.Tuning()
		if tu.WindowProcessors == 0 || tu.WindowProcessors >= tu.Processors || tu.OutWindows < 2 || uint64(tu.WindowProcessors)*uint64(tu.Chunk)*uint64(c.s.Elem.Key.Size()) > limit {
			t.Fatalf("%s: tuning %+v: want several windows of at most %d bytes", c.name, tu, limit)
		}
		runSort(t, ctx, sortCase{sort: c.s, keys: keys, gpuCount: c.count > 0, count: uint32(c.count), limit: within})
	}
	// The most keys four windows hold, at an offset; one more is refused.
	info := ctx.Info()
	slots := uint64(limit)
	if a := info.MinStorageBufferOffsetAlignment; a > 4 {
		slots -= slots % a
	}
	most := int(4 * slots / 4)
	s := pairs(u32(radix.Options{Processors: 40}))
	if p, err := radix.NewPlanWithin(ctx, uint64(most), s, limit); err != nil || p.Tuning().OutWindows != 4 {
		t.Fatalf("%d keys: %v; want four output windows", most, err)
	}
	runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, vkcompact.Uint32, most, "random"), off: 2 * uint64(max(info.MinStorageBufferOffsetAlignment, 4)), limit: limit})
	if _, err := radix.NewPlanWithin(ctx, uint64(most+1), s, limit); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "at most 4 windows") {
		t.Errorf("%d keys: got %v, want ErrInvalid naming the four output windows", most+1, err)
	}
}

// TestSortWindowsSinglePass sorts past one binding on the single pass,
// with the binding limit lowered to 256 KiB (a test hook): the histogram
// runs a dispatch per window of whole chunks of the keys, each digit pass
// a dispatch per window of whole tiles (the look-back crossing into the
// windows before), each binding its outputs as up to four windows. Keys
// and pairs, 32- and 64-bit keys, in place, descending, GPU counts that
// end inside a window or leave whole windows empty, each checked against
// the Go reference, outputs poisoned first; past four output windows it
// refuses by name.
func TestSortWindowsSinglePass(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	const limit = 256 << 10
	// 6-bit digits: the CPU drivers' shared memory holds them.
	single := func(s radix.Sort) radix.Sort {
		s.Path, s.DigitBits = vkcompact.PathSinglePass, 6
		return s
	}
	cases := []struct {
		name    string
		n       int
		s       radix.Sort
		pattern string
		count   int // > 0: a GPU count
	}{
		{"keys", 150001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}), "random", 0},
		{"pairs", 150001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true}), "random", 0},
		{"u64 keys", 70001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64)}), "random", 0},
		{"u64 pairs, descending", 50001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), Values: true, Descending: true}), "random", 0},
		{"f32 pairs in place", 150001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Float32), Values: true, InPlace: true}), "random", 0},
		{"equal keys", 150001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true}), "equal", 0},
		{"GPU count inside window 2", 150001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true}), "random", 100000},
		{"GPU count in window 1", 150001, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}), "few", 3},
	}
	for _, c := range cases {
		p, err := radix.NewPlanWithin(ctx, uint64(c.n), c.s, limit)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		tu := p.Tuning()
		if tu.Path != vkcompact.PathSinglePass || tu.WindowTiles == 0 || tu.WindowTiles >= tu.Tiles || tu.OutWindows < 2 ||
			tu.WindowProcessors == 0 || tu.WindowProcessors >= tu.Processors || uint64(tu.WindowTiles)*uint64(tu.Tile)*uint64(c.s.Elem.Key.Size()) > limit {
			t.Fatalf("%s: tuning %+v: want the single pass in several windows of at most %d bytes", c.name, tu, limit)
		}
		runSort(t, ctx, sortCase{sort: c.s, keys: keyData(rng, c.s.Elem.Key, c.n, c.pattern), gpuCount: c.count > 0, count: uint32(c.count), limit: limit})
	}
	slots := uint64(limit)
	if a := ctx.Info().MinStorageBufferOffsetAlignment; a > 4 {
		slots -= slots % a
	}
	most := 4 * slots / 4
	if _, err := radix.NewPlanWithin(ctx, most+1, single(radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}), limit); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "at most 4 windows") {
		t.Errorf("%d keys on the single pass: got %v, want ErrInvalid naming the four output windows", most+1, err)
	}
}

// TestSortAboveMaxRange sorts pairs in place past the device's real
// maxStorageBufferRange (lavapipe: 128 MiB, 2^25 uint32 keys) in two
// windows, by the keys' low 24 bits: three passes, then the copy back
// past one binding; TestSortWindows covers the rest under a lowered
// limit.
func TestSortAboveMaxRange(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	info := ctx.Info()
	if uint64(info.MaxStorageBufferRange) > 1<<28 {
		t.Skipf("maxStorageBufferRange %d: too large to exceed here", info.MaxStorageBufferRange)
	}
	rng := vktest.Rand(t)
	n := int(info.MaxStorageBufferRange)/4 + 123457
	keys := keyData(rng, vkcompact.Uint32, n, "random")
	// Pairs in place by the low 24 bits: three passes of lavapipe's
	// 8-bit digits (not four: the windows are the same, and CI's time is
	// not), the last into scratch, then the copy back, cut at the binding.
	s := radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, InPlace: true, EndBit: 24}
	p, err := radix.NewPlan(ctx, uint64(n), s)
	if err != nil {
		t.Fatal(err)
	}
	if tu := p.Tuning(); tu.OutWindows != 2 || tu.WindowProcessors == 0 || tu.Passes != 3 {
		t.Fatalf("tuning %+v: want two output windows, three passes", tu)
	}
	runSort(t, ctx, sortCase{sort: s, keys: keys})
}
