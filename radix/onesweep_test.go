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

// onesweepOptions returns o forced onto the single pass, with a digit
// width whose digits each get an invocation of the default workgroup (on
// lavapipe at subgroup size 4 the 8-bit default does not fit shared
// memory beside 256 invocations).
func onesweepOptions(o radix.Options) radix.Options {
	o.Path = vkcompact.PathSinglePass
	if o.DigitBits == 0 {
		o.DigitBits = 6
	}
	return o
}

// TestSortPaths sorts every key type, keys and pairs, both directions, in
// and out of place, at sizes around tile edges, on both paths, with the
// fallback at once (Spins -1) and after re-reads.
func TestSortPaths(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	// Every every-th case runs (a stride with no factor in common with
	// the 8 modes, so that each mode comes in turn), and the single pass
	// takes the spins of the cases run in turn.
	turn, every, ran := 0, 3, 0
	if vktest.Short() {
		every = 5
	}
	for _, path := range []vkcompact.Path{vkcompact.PathThreePhase, vkcompact.PathSinglePass} {
		for _, n := range []int{1, 2, 31, 255, 256, 257, 2047, 2048, 2049, 6143, 6145, 40961, 300001} {
			for _, typ := range keyTypes {
				for mode := range 8 {
					turn++
					if turn%every != 0 || n > 100000 && turn%(3*every) != 0 {
						continue
					}
					ran++
					o := radix.Options{Path: path}
					if path == vkcompact.PathSinglePass {
						o = onesweepOptions(radix.Options{Spins: []int32{-1, 0, 64}[ran%3]})
					}
					s := radix.Sort{Elem: vkcompact.Plain(typ), Values: mode&1 != 0, Descending: mode&2 != 0, InPlace: mode&4 != 0, Options: o}
					runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, typ, n, patterns[turn%len(patterns)])})
				}
			}
		}
	}
}

// widestOnesweep returns o with the widest digits, up to want bits, whose
// single pass fits ctx's device (shared memory grows with the digits and
// the subgroups per workgroup: lavapipe and SwiftShader, with 32 KiB and
// subgroups of 4 or 8, fit 7-bit digits in workgroups of 128 but not 8-bit
// ones in 256, which need a digit per invocation), and the workgroup size
// at least its digits where o gives none. It fails t where not even 2-bit
// digits fit, and where a device with subgroups of 32 or more does not fit
// want.
func widestOnesweep(t *testing.T, ctx *vk.Context, o radix.Options, want uint32) radix.Options {
	t.Helper()
	info := ctx.Info()
	for bits := want; bits >= 2; bits-- {
		try := onesweepOptions(o)
		try.DigitBits = bits
		if o.WorkgroupSize != 0 {
			try.WorkgroupSize = max(o.WorkgroupSize>>(want-bits), 1<<bits, info.MaxSubgroupSize)
		}
		_, err := radix.NewPlan(ctx, 1000, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: try})
		if err == nil {
			if bits < want {
				t.Logf("%d-bit digits do not fit this device's single pass (subgroups of %d, %d bytes of shared memory): %d bits, workgroup %d",
					want, info.MinSubgroupSize, info.MaxSharedMemory, bits, try.WorkgroupSize)
				if info.MinSubgroupSize >= 32 {
					t.Errorf("%d-bit digits must fit a device with subgroups of %d", want, info.MinSubgroupSize)
				}
			}
			return try
		}
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "shared memory") {
			t.Fatalf("%d-bit digits, %+v: %v", bits, try, err)
		}
	}
	t.Fatalf("no digits of 2 to %d bits fit this device's single pass", want)
	return o
}

// TestOnesweepShapes runs the single pass over digit widths (1 to 8, the
// widest the device fits), keys per lane, workgroup sizes, bit ranges (an
// odd number of passes in place copies back) and buffer offsets. Every
// case runs.
func TestOnesweepShapes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	align := info.MinStorageBufferOffsetAlignment
	cases := []struct {
		o          radix.Options
		typ        vkcompact.Type
		begin, end uint32
	}{
		{onesweepOptions(radix.Options{DigitBits: 1, KeysPerLane: 1}), vkcompact.Uint32, 3, 11},
		{onesweepOptions(radix.Options{DigitBits: 3, KeysPerLane: 2}), vkcompact.Int32, 0, 0},
		{onesweepOptions(radix.Options{DigitBits: 4, KeysPerLane: 8}), vkcompact.Uint64, 0, 0},
		{onesweepOptions(radix.Options{DigitBits: 5, KeysPerLane: 3}), vkcompact.Float32, 0, 32},
		{widestOnesweep(t, ctx, radix.Options{KeysPerLane: 4, WorkgroupSize: 128}, 7), vkcompact.Uint32, 0, 0},
		{widestOnesweep(t, ctx, radix.Options{KeysPerLane: 1, WorkgroupSize: 256}, 8), vkcompact.Uint32, 8, 32},
		{onesweepOptions(radix.Options{DigitBits: 2, WorkgroupSize: info.MaxSubgroupSize}), vkcompact.Uint64, 17, 40},
		// Large tiles: a workgroup of 384 (not a power of two) of 64-bit
		// keys, 8 a lane (two stage words a key: 24 KiB, which lavapipe's
		// 32 KiB of shared memory hold beside what widestOnesweep fitted
		// for 32-bit keys), then 30 keys per lane with values.
		{widestOnesweep(t, ctx, radix.Options{KeysPerLane: 8, WorkgroupSize: 384}, 8), vkcompact.Uint64, 0, 0},
		{widestOnesweep(t, ctx, radix.Options{KeysPerLane: 30, WorkgroupSize: 256}, 8), vkcompact.Uint32, 0, 0},
	}
	for i, c := range cases {
		o := c.o
		o.Spins = int32(i%3) - 1
		for _, inPlace := range []bool{false, true} {
			s := radix.Sort{Elem: vkcompact.Plain(c.typ), Values: i%2 == 0, Descending: i%3 == 0, BeginBit: c.begin, EndBit: c.end, InPlace: inPlace, Options: o}
			sc := sortCase{sort: s, keys: keyData(rng, c.typ, 50000+rng.IntN(5000), patterns[i%len(patterns)]), off: align * uint64(1+i%3)}
			if err := tryRunSort(ctx, sc, t); err != nil {
				t.Fatalf("%v: %v", sc, err)
			}
		}
	}
}

// TestOnesweepGPUCount covers the single pass with a GPU-side key count:
// tiles past the count leave at once, and the histogram counts only keys
// below it.
func TestOnesweepGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	i := 0
	for _, n := range []int{1, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n - 1), uint32(n), uint32(n + 5), 0xffffffff} {
			typ := keyTypes[(i/3)%len(keyTypes)]
			s := radix.Sort{Elem: vkcompact.Plain(typ), Values: i%2 == 0, InPlace: i%3 != 0, Descending: i%5 == 0, Options: onesweepOptions(radix.Options{})}
			if i%4 == 1 {
				s.BeginBit, s.EndBit, s.DigitBits = 4, 16, 4 // 3 passes: in place, a copy back
			}
			runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, typ, n, "random"), gpuCount: true, count: count})
			i++
		}
	}
}

// TestOnesweepRepeated runs single-pass sorts many times on fresh keys,
// keys and pairs, with the spins in turn, each on a fresh poisoned
// scratch: a status region a pass leaves dirty for the next pass, or a
// tile counter not zeroed, shows as a wrong order. (One plan again and
// again on one scratch, as self-reset allows, is TestOnesweepScratchReuse.)
func TestOnesweepRepeated(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	runs := 20
	if vktest.Short() {
		runs = 6
	}
	for r := range runs {
		s := radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: r%2 == 0, Options: onesweepOptions(radix.Options{Spins: int32(r%3) - 1})}
		runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, vkcompact.Uint32, 70001, "random")})
	}
}

// TestOnesweepNotApplicable checks that a forced single pass is refused,
// naming why, where it does not apply, and that PathAuto then takes the
// three phases. The shapes are sized from the device, so that each case
// fails for its own reason, not for shared memory, on every device.
func TestOnesweepNotApplicable(t *testing.T) {
	ctx := vktest.Shared(t)
	info := ctx.Info()
	// A workgroup smaller than its digits: twice as many digits as
	// invocations, which the shared memory of every device holds.
	wg := max(info.MaxSubgroupSize, 16)
	few := uint32(1)
	for 1<<few <= wg {
		few++
	}
	// A tile status past the binding: a digit per invocation, one key per
	// lane, so that two status words per key of n = maxStorageBufferRange/4
	// keys take twice the binding; the widest digits that fit.
	// PathAuto's three phases must fit them too (the single pass's shared
	// memory, one union, can fit digits that the scatter's does not).
	wide := widestOnesweep(t, ctx, radix.Options{KeysPerLane: 1, WorkgroupSize: 256}, 8)
	for ; wide.DigitBits > 2; wide.DigitBits-- {
		three := radix.Options{Path: vkcompact.PathThreePhase, DigitBits: wide.DigitBits, KeysPerLane: 1, WorkgroupSize: max(1<<wide.DigitBits, info.MaxSubgroupSize)}
		if _, err := radix.NewPlan(ctx, 1000, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: three}); err == nil {
			break
		}
	}
	wide.WorkgroupSize = 1 << wide.DigitBits
	if wide.WorkgroupSize%info.MaxSubgroupSize != 0 {
		t.Fatalf("%+v: a workgroup of %d digits is not a multiple of the subgroup size %d", wide, wide.WorkgroupSize, info.MaxSubgroupSize)
	}
	cases := []struct {
		n    uint64
		o    radix.Options
		want string
	}{
		{1000, radix.Options{WorkgroupSize: wg, DigitBits: few}, "each digit needs its own invocation"},
		{uint64(info.MaxStorageBufferRange) / 4, radix.Options{DigitBits: wide.DigitBits, KeysPerLane: 1, WorkgroupSize: wide.WorkgroupSize}, "maxStorageBufferRange"},
	}
	for _, c := range cases {
		o := c.o
		o.Path = vkcompact.PathSinglePass
		_, err := radix.NewPlan(ctx, c.n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o})
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("n=%d %+v: got %v, want ErrInvalid naming %q", c.n, o, err, c.want)
			continue
		}
		o.Path = vkcompact.PathAuto
		p, err := radix.NewPlan(ctx, c.n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o})
		if err != nil {
			t.Fatalf("n=%d %+v: %v", c.n, o, err)
		}
		if got := p.Tuning().Path; got != vkcompact.PathThreePhase {
			t.Errorf("n=%d %+v: PathAuto took %v", c.n, o, got)
		}
	}
	if _, err := radix.NewPlan(ctx, 10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: radix.Options{Path: 7}}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("path 7: got %v, want ErrInvalid", err)
	}
}

// TestSortAutoPath checks PathAuto's choice: on a GPU the single pass
// with 8-bit digits for 32-bit keys, alone or with values, up to
// radix.SmallSortKeys (larger tiles from 2^20), the three phases past it
// and for 64-bit keys; the three phases on a CPU device.
func TestSortAutoPath(t *testing.T) {
	ctx := vktest.Shared(t)
	gpu := !ctx.Info().CPU()
	for _, c := range []struct {
		s     radix.Sort
		n     uint64
		small bool
	}{
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}, 100000, true},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true}, radix.SmallSortKeys, true},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Int32)}, 1 << 21, true},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}, 1<<21 + 1, true},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}, radix.SmallSortKeys, true},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true}, 1 << 23, true},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Float32)}, radix.SmallSortKeys + 1, false},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64)}, 100000, false},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: radix.Options{DigitBits: 6}}, 100000, false},
	} {
		p, err := radix.NewPlan(ctx, c.n, c.s)
		if err != nil {
			t.Fatal(err)
		}
		want := vkcompact.PathThreePhase
		if gpu && c.small {
			want = vkcompact.PathSinglePass
		}
		// A CPU device sorts up to 2^24 keys that leave the shape to it
		// lane-serially (Tuning.LaneSerial, Path left PathAuto).
		lanes := !gpu && c.n <= 1<<24 && c.s.Options == (radix.Options{})
		if lanes {
			want = vkcompact.PathAuto
		}
		if got := p.Tuning(); got.Path != want || got.LaneSerial != lanes || want == vkcompact.PathSinglePass && got.DigitBits != 8 {
			t.Errorf("%+v, n=%d: PathAuto on a %s device: %+v, want %v (lane-serial %v)", c.s, c.n, ctx.Info().Type, got, want, lanes)
		}
	}
}
