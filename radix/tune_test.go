package radix

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The fake devices of internal/testkit/fakedev: the tuning is a pure function of
// the device's information, so the choices for devices the tests do not
// run on are checked without them.
var (
	h100, lavapipe4, lavapipe8, lavapipe16 = fakedev.H100, fakedev.Lavapipe4, fakedev.Lavapipe8, fakedev.Lavapipe16
	swiftshader, amdLike                   = fakedev.SwiftShader, fakedev.AMDLike
	fakeDevices                            = fakedev.All
)

// summary writes a tuning as the table below states it: the path, the
// workgroup, keys per lane, processors and their chunk, each pass's bits
// with (three phases) "count" where it has a count phase and "fused"
// where the scatter before counted its digits, the held tails, the single
// pass's tiles and spins, and the scratch size.
func summary(c config) string {
	var b strings.Builder
	procs, chunk, layout := c.procsChunkLayout()
	fmt.Fprintf(&b, "%v wg=%d kpl=%d procs=%d chunk=%d passes=[", c.tuning().Path, c.wg, c.kpl, procs, chunk)
	for i := range c.passes {
		if i > 0 {
			b.WriteString(" ")
		}
		switch {
		case c.sweep != nil:
			_, w := c.sweepDigit(i)
			fmt.Fprintf(&b, "%d", w)
		case c.counted(i):
			fmt.Fprintf(&b, "%d:count", c.width(i))
		default:
			fmt.Fprintf(&b, "%d:fused", c.width(i))
		}
	}
	b.WriteString("]")
	if t := c.three; t != nil && t.carry {
		b.WriteString(" held")
	}
	if w := c.sweep; w != nil {
		fmt.Fprintf(&b, " tiles=%d tile=%d spins=%d", w.status.tiles, w.status.tile, w.spins)
		if w.selfReset {
			b.WriteString(" self-reset")
		}
	}
	if t := c.three; t != nil && t.winProcs > 0 {
		fmt.Fprintf(&b, " windows: procs=%d out=%dx%d", t.winProcs, t.outWindows, t.winSlots)
	}
	fmt.Fprintf(&b, " scratch=%d", layout.size)
	return b.String()
}

var (
	keys32  = Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}
	pairs32 = Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true}
	keys64  = Sort{Elem: vkcompact.Plain(vkcompact.Uint64)}
)

// with returns s with options o.
func with(s Sort, o Options) Sort {
	s.Options = o
	return s
}

// TestTuneDevices checks the tuning of representative sorts on each fake
// device, exactly. The H100's rows at 2^20 to 2^28 are the plans
// BENCHMARKS.md's table ran (its phases file names them: keys
// 2^28 1049 processors of 256000 keys, 20 keys per lane, 6-bit digits as
// passes of 6, 6, 5, 5, 5, 5 bits, the passes after the first counted by
// the scatter before; pairs 1041 of 258048, 16 keys per lane, held tails,
// the two 6-bit passes and the first 5-bit one with a count phase).
func TestTuneDevices(t *testing.T) {
	for _, c := range tuneRows {
		got, err := tune(c.dev, c.n, c.s, 0)
		switch {
		case err != nil:
			t.Errorf("%s: n=%d %+v: %v", c.dev.Name, c.n, c.s, err)
		case summary(got) != c.want:
			t.Errorf("%s: n=%d %+v:\n got  %s\n want %s", c.dev.Name, c.n, c.s, summary(got), c.want)
		}
	}
}

type tuneRow struct {
	dev  vk.DeviceInfo
	n    uint64
	s    Sort
	want string
}

var tuneRows = []tuneRow{
	// The H100: up to 2^26 u32 keys PathAuto takes the shapes of
	// smallSorts (the single pass with 8-bit digits, larger tiles from
	// 2^20: keys alone past 2^21 in tiles of 256 x 30, pairs of 256 x
	// 16); past it, the plans BENCHMARKS.md's table ran; a digit width,
	// path or 64-bit keys keep the three phases.
	{h100, 1 << 16, keys32, "single-pass wg=256 kpl=8 procs=32 chunk=2048 passes=[8 8 8 8] tiles=32 tile=2048 spins=64 self-reset scratch=332288"},
	{h100, 1 << 16, pairs32, "single-pass wg=256 kpl=8 procs=32 chunk=2048 passes=[8 8 8 8] tiles=32 tile=2048 spins=64 self-reset scratch=594432"},
	{h100, 1<<20 - 1, keys32, "single-pass wg=256 kpl=8 procs=512 chunk=2048 passes=[8 8 8 8] tiles=512 tile=2048 spins=64 self-reset scratch=5247488"},
	{h100, 1 << 20, keys32, "single-pass wg=256 kpl=16 procs=256 chunk=4096 passes=[8 8 8 8] tiles=256 tile=4096 spins=64 self-reset scratch=4723200"},
	{h100, 1 << 20, pairs32, "single-pass wg=256 kpl=16 procs=256 chunk=4096 passes=[8 8 8 8] tiles=256 tile=4096 spins=64 self-reset scratch=8917504"},
	{h100, 1<<21 + 1, keys32, "single-pass wg=256 kpl=30 procs=274 chunk=7680 passes=[8 8 8 8] tiles=274 tile=7680 spins=64 self-reset scratch=8954624"},
	{h100, 1 << 22, keys32, "single-pass wg=256 kpl=30 procs=547 chunk=7680 passes=[8 8 8 8] tiles=547 tile=7680 spins=64 scratch=17902080"},
	{h100, 1 << 22, pairs32, "single-pass wg=256 kpl=16 procs=1024 chunk=4096 passes=[8 8 8 8] tiles=1024 tile=4096 spins=64 scratch=35656192"},
	{h100, 1<<22 + 1, keys32, "single-pass wg=256 kpl=30 procs=547 chunk=7680 passes=[8 8 8 8] tiles=547 tile=7680 spins=64 scratch=17902336"},
	{h100, 1<<22 + 1, pairs32, "single-pass wg=256 kpl=16 procs=1025 chunk=4096 passes=[8 8 8 8] tiles=1025 tile=4096 spins=64 scratch=35658752"},
	{h100, 1 << 16, with(keys32, Options{DigitBits: 6}), "three-phase wg=256 kpl=8 procs=32 chunk=2048 passes=[6:count 6:count 5:count 5:count 5:count 5:count] scratch=270592"},
	{h100, 1 << 16, with(pairs32, Options{Path: vkcompact.PathThreePhase}), "three-phase wg=256 kpl=8 procs=32 chunk=2048 passes=[6:count 6:count 5:count 5:count 5:count 5:count] held scratch=532736"},
	{h100, 1 << 16, keys64, "three-phase wg=256 kpl=8 procs=32 chunk=2048 passes=[4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count] scratch=526592"},
	{h100, 1 << 24, keys32, "single-pass wg=256 kpl=30 procs=729 chunk=23040 passes=[8 8 8 8] tiles=2185 tile=7680 spins=64 scratch=71588352"},
	{h100, 1 << 24, pairs32, "single-pass wg=256 kpl=16 procs=1024 chunk=16384 passes=[8 8 8 8] tiles=4096 tile=4096 spins=64 scratch=142610944"},
	{h100, 1<<25 + 1, keys32, "single-pass wg=256 kpl=30 procs=874 chunk=38400 passes=[8 8 8 8] tiles=4370 tile=7680 spins=64 scratch=143172352"},
	{h100, 1<<25 + 1, pairs32, "single-pass wg=256 kpl=16 procs=1025 chunk=32768 passes=[8 8 8 8] tiles=8193 tile=4096 spins=64 scratch=285219840"},
	{h100, 1 << 26, keys32, "single-pass wg=256 kpl=30 procs=971 chunk=69120 passes=[8 8 8 8] tiles=8739 tile=7680 spins=64 scratch=286337536"},
	{h100, 1 << 26, pairs32, "single-pass wg=256 kpl=16 procs=1024 chunk=65536 passes=[8 8 8 8] tiles=16384 tile=4096 spins=64 scratch=570429952"},
	{h100, 1<<26 + 1, keys32, "three-phase wg=256 kpl=20 procs=1009 chunk=66560 passes=[6:count 6:fused 5:fused 5:fused 5:fused 5:fused] scratch=268952832"},
	{h100, 1<<26 + 1, pairs32, "three-phase wg=256 kpl=16 procs=1025 chunk=65536 passes=[6:count 6:count 5:count 5:fused 5:fused 5:fused] held scratch=537396736"},
	{h100, 1 << 28, keys32, "three-phase wg=256 kpl=20 procs=1049 chunk=256000 passes=[6:count 6:fused 5:fused 5:fused 5:fused 5:fused] scratch=1074279424"},
	{h100, 1 << 28, pairs32, "three-phase wg=256 kpl=16 procs=1041 chunk=258048 passes=[6:count 6:count 5:count 5:fused 5:fused 5:fused] held scratch=2148017152"},
	{h100, 1 << 20, keys64, "three-phase wg=256 kpl=8 procs=512 chunk=2048 passes=[4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count] scratch=8421632"},
	{h100, 1 << 20, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 6}), "single-pass wg=256 kpl=8 procs=512 chunk=2048 passes=[6 6 6 6 6 2] tiles=512 tile=2048 spins=64 self-reset scratch=4458496"},
	{h100, 1 << 20, with(pairs32, Options{Counts: CountsFused, DigitBits: 5}), "three-phase wg=256 kpl=8 procs=512 chunk=2048 passes=[5:count 5:fused 5:fused 5:fused 4:fused 4:fused 4:fused] held scratch=8520192"},
	{h100, 1 << 20, with(keys32, Options{Tails: TailsHold, DigitBits: 4}), "three-phase wg=256 kpl=8 procs=512 chunk=2048 passes=[4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count] held scratch=4227328"},
	{h100, 1 << 24, with(keys32, Options{Counts: CountsSeparate, KeysPerLane: 16, Processors: 1000}), "three-phase wg=256 kpl=16 procs=820 chunk=20480 passes=[6:count 6:count 5:count 5:count 5:count 5:count] scratch=67319040"},
	{h100, 100003, Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 8, EndBit: 8}, "three-phase wg=256 kpl=8 procs=49 chunk=2048 passes=[] held scratch=813056"},
	{h100, 0, pairs32, "three-phase wg=256 kpl=8 procs=1 chunk=2048 passes=[6:count 6:count 5:count 5:count 5:count 5:count] held scratch=512"},
	// Past one binding (2^30 u32 keys are one byte past the H100's), in
	// windows of processors that fill the device once each.
	{h100, 1 << 30, keys32, "three-phase wg=256 kpl=20 procs=2098 chunk=512000 passes=[6:count 6:fused 5:fused 5:fused 5:fused 5:fused] windows: procs=1049 out=2x1073741820 scratch=4296041984"},
	{h100, 1 << 30, pairs32, "three-phase wg=256 kpl=16 procs=2098 chunk=512000 passes=[6:count 6:count 5:count 5:fused 5:fused 5:fused] held windows: procs=1049 out=2x1073741820 scratch=8591009280"},
	{h100, 1<<29 + 1, keys64, "three-phase wg=256 kpl=8 procs=2098 chunk=256000 passes=[4:count 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused] windows: procs=1049 out=2x536870910 scratch=4295236352"},

	// lavapipe (a CPU device: 8-bit digits, 4 keys per lane, chunks
	// capped by its loop budget); 2^28 keys exceed its binding
	// (TestTuneRefusals).
	{lavapipe4, 1 << 16, keys32, "three-phase wg=32 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=271360"},
	{lavapipe4, 1 << 16, pairs32, "three-phase wg=32 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=533504"},
	{lavapipe4, 1 << 20, keys32, "three-phase wg=32 kpl=16 procs=19 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=4214784"},
	{lavapipe4, 1 << 20, pairs32, "three-phase wg=32 kpl=16 procs=19 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=8409088"},
	{lavapipe4, 1 << 24, keys32, "three-phase wg=32 kpl=16 procs=293 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=67409920"},
	{lavapipe4, 1 << 24, pairs32, "three-phase wg=32 kpl=16 procs=293 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=134518784"},
	{lavapipe4, 1 << 20, keys64, "three-phase wg=32 kpl=4 procs=35 chunk=30720 passes=[8:count 8:count 8:count 8:count 8:count 8:count 8:count 8:count] scratch=8425472"},
	{lavapipe4, 1 << 20, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 6}), "single-pass wg=256 kpl=8 procs=8 chunk=131072 passes=[6 6 6 6 6 2] tiles=512 tile=2048 spins=0 self-reset scratch=4458496"},
	{lavapipe4, 1 << 20, with(pairs32, Options{Counts: CountsFused, DigitBits: 5}), "three-phase wg=128 kpl=16 procs=8 chunk=131072 passes=[5:count 5:fused 5:fused 5:fused 4:fused 4:fused 4:fused] scratch=8391168"},
	{lavapipe4, 1 << 20, with(keys32, Options{Tails: TailsHold, DigitBits: 4}), "three-phase wg=256 kpl=16 procs=8 chunk=131072 passes=[4:count 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused] held scratch=4195840"},
	{lavapipe4, 1 << 24, with(keys32, Options{Counts: CountsSeparate, KeysPerLane: 16, Processors: 1000}), "three-phase wg=32 kpl=16 procs=993 chunk=16896 passes=[8:count 8:count 8:count 8:count] scratch=68126720"},
	{lavapipe4, 100003, Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 8, EndBit: 8}, "three-phase wg=32 kpl=16 procs=8 chunk=12800 passes=[] scratch=809472"},
	{lavapipe4, 0, pairs32, "three-phase wg=32 kpl=8 procs=1 chunk=256 passes=[8:count 8:count 8:count 8:count] scratch=2048"},

	{lavapipe8, 1 << 16, keys32, "three-phase wg=64 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=271360"},
	{lavapipe8, 1 << 16, pairs32, "three-phase wg=64 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=533504"},
	{lavapipe8, 1 << 20, keys32, "three-phase wg=64 kpl=16 procs=8 chunk=131072 passes=[8:count 8:count 8:count 8:count] scratch=4203520"},
	{lavapipe8, 1 << 20, pairs32, "three-phase wg=64 kpl=16 procs=8 chunk=131072 passes=[8:count 8:count 8:count 8:count] scratch=8397824"},
	{lavapipe8, 1 << 24, keys32, "three-phase wg=64 kpl=16 procs=128 chunk=131072 passes=[8:count 8:count 8:count 8:count] scratch=67240960"},
	{lavapipe8, 1 << 24, pairs32, "three-phase wg=64 kpl=16 procs=128 chunk=131072 passes=[8:count 8:count 8:count 8:count] scratch=134349824"},
	{lavapipe8, 1 << 20, keys64, "three-phase wg=64 kpl=4 procs=13 chunk=83712 passes=[8:count 8:count 8:count 8:count 8:count 8:count 8:count 8:count] scratch=8402944"},
	{lavapipe8, 1 << 20, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 6}), "single-pass wg=256 kpl=8 procs=8 chunk=131072 passes=[6 6 6 6 6 2] tiles=512 tile=2048 spins=0 self-reset scratch=4458496"},
	{lavapipe8, 1 << 20, with(pairs32, Options{Counts: CountsFused, DigitBits: 5}), "three-phase wg=128 kpl=16 procs=8 chunk=131072 passes=[5:count 5:fused 5:fused 5:fused 4:fused 4:fused 4:fused] scratch=8391168"},
	{lavapipe8, 1 << 20, with(keys32, Options{Tails: TailsHold, DigitBits: 4}), "three-phase wg=256 kpl=16 procs=8 chunk=131072 passes=[4:count 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused] held scratch=4195840"},
	{lavapipe8, 1 << 24, with(keys32, Options{Counts: CountsSeparate, KeysPerLane: 16, Processors: 1000}), "three-phase wg=64 kpl=16 procs=964 chunk=17408 passes=[8:count 8:count 8:count 8:count] scratch=68097024"},
	{lavapipe8, 100003, Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 8, EndBit: 8}, "three-phase wg=64 kpl=16 procs=8 chunk=13312 passes=[] scratch=809472"},
	{lavapipe8, 0, pairs32, "three-phase wg=64 kpl=8 procs=1 chunk=512 passes=[8:count 8:count 8:count 8:count] scratch=2048"},

	{lavapipe16, 1 << 16, keys32, "three-phase wg=128 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=271360"},
	{lavapipe16, 1 << 16, pairs32, "three-phase wg=64 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=533504"},
	{lavapipe16, 1 << 20, keys32, "three-phase wg=128 kpl=16 procs=8 chunk=131072 passes=[8:count 8:count 8:count 8:count] scratch=4203520"},
	{lavapipe16, 1 << 20, pairs32, "three-phase wg=64 kpl=16 procs=8 chunk=131072 passes=[8:count 8:count 8:count 8:count] scratch=8397824"},
	{lavapipe16, 1 << 24, keys32, "three-phase wg=128 kpl=16 procs=60 chunk=280576 passes=[8:count 8:count 8:count 8:count] scratch=67171328"},
	{lavapipe16, 1 << 24, pairs32, "three-phase wg=64 kpl=16 procs=119 chunk=141312 passes=[8:count 8:count 8:count 8:count] scratch=134340608"},
	{lavapipe16, 1 << 20, keys64, "three-phase wg=128 kpl=4 procs=8 chunk=131072 passes=[8:count 8:count 8:count 8:count 8:count 8:count 8:count 8:count] scratch=8397824"},
	{lavapipe16, 1 << 20, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 6}), "single-pass wg=256 kpl=8 procs=8 chunk=131072 passes=[6 6 6 6 6 2] tiles=512 tile=2048 spins=0 self-reset scratch=4458496"},
	{lavapipe16, 1 << 20, with(pairs32, Options{Counts: CountsFused, DigitBits: 5}), "three-phase wg=128 kpl=16 procs=8 chunk=131072 passes=[5:count 5:fused 5:fused 5:fused 4:fused 4:fused 4:fused] scratch=8391168"},
	{lavapipe16, 1 << 20, with(keys32, Options{Tails: TailsHold, DigitBits: 4}), "three-phase wg=256 kpl=16 procs=8 chunk=131072 passes=[4:count 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused] held scratch=4195840"},
	{lavapipe16, 1 << 24, with(keys32, Options{Counts: CountsSeparate, KeysPerLane: 16, Processors: 1000}), "three-phase wg=128 kpl=16 procs=911 chunk=18432 passes=[8:count 8:count 8:count 8:count] scratch=68042752"},
	{lavapipe16, 100003, Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 8, EndBit: 8}, "three-phase wg=64 kpl=16 procs=8 chunk=13312 passes=[] scratch=809472"},
	{lavapipe16, 0, pairs32, "three-phase wg=64 kpl=8 procs=1 chunk=512 passes=[8:count 8:count 8:count 8:count] scratch=2048"},

	// SwiftShader: workgroups of at most 256 invocations, a 1 GiB binding.
	{swiftshader, 1 << 16, keys32, "three-phase wg=32 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=271360"},
	{swiftshader, 1 << 16, pairs32, "three-phase wg=32 kpl=16 procs=8 chunk=8192 passes=[8:count 8:count 8:count 8:count] scratch=533504"},
	{swiftshader, 1 << 20, keys32, "three-phase wg=32 kpl=16 procs=19 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=4214784"},
	{swiftshader, 1 << 20, pairs32, "three-phase wg=32 kpl=16 procs=19 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=8409088"},
	{swiftshader, 1 << 24, keys32, "three-phase wg=32 kpl=16 procs=293 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=67409920"},
	{swiftshader, 1 << 24, pairs32, "three-phase wg=32 kpl=16 procs=293 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=134518784"},
	{swiftshader, 1 << 28, keys32, "three-phase wg=32 kpl=16 procs=4682 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=1078537216"},
	{swiftshader, 1 << 28, pairs32, "three-phase wg=32 kpl=16 procs=4682 chunk=57344 passes=[8:count 8:count 8:count 8:count] scratch=2152279040"},
	{swiftshader, 1 << 20, keys64, "three-phase wg=32 kpl=4 procs=35 chunk=30720 passes=[8:count 8:count 8:count 8:count 8:count 8:count 8:count 8:count] scratch=8425472"},
	{swiftshader, 1 << 20, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 6}), "single-pass wg=256 kpl=8 procs=8 chunk=131072 passes=[6 6 6 6 6 2] tiles=512 tile=2048 spins=0 self-reset scratch=4458496"},
	{swiftshader, 1 << 20, with(pairs32, Options{Counts: CountsFused, DigitBits: 5}), "three-phase wg=128 kpl=16 procs=8 chunk=131072 passes=[5:count 5:fused 5:fused 5:fused 4:fused 4:fused 4:fused] scratch=8391168"},
	{swiftshader, 1 << 20, with(keys32, Options{Tails: TailsHold, DigitBits: 4}), "three-phase wg=256 kpl=16 procs=8 chunk=131072 passes=[4:count 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused 4:fused] held scratch=4195840"},
	{swiftshader, 1 << 24, with(keys32, Options{Counts: CountsSeparate, KeysPerLane: 16, Processors: 1000}), "three-phase wg=32 kpl=16 procs=993 chunk=16896 passes=[8:count 8:count 8:count 8:count] scratch=68126720"},
	{swiftshader, 100003, Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 8, EndBit: 8}, "three-phase wg=32 kpl=16 procs=8 chunk=12800 passes=[] scratch=809472"},
	{swiftshader, 0, pairs32, "three-phase wg=32 kpl=8 procs=1 chunk=256 passes=[8:count 8:count 8:count 8:count] scratch=2048"},

	// A 64-wide GPU: workgroups of 8 subgroups at the smallest size.
	{amdLike, 1 << 16, keys32, "single-pass wg=256 kpl=8 procs=32 chunk=2048 passes=[8 8 8 8] tiles=32 tile=2048 spins=64 self-reset scratch=332288"},
	{amdLike, 1 << 16, pairs32, "single-pass wg=256 kpl=8 procs=32 chunk=2048 passes=[8 8 8 8] tiles=32 tile=2048 spins=64 self-reset scratch=594432"},
	{amdLike, 1 << 20, keys32, "single-pass wg=256 kpl=16 procs=256 chunk=4096 passes=[8 8 8 8] tiles=256 tile=4096 spins=64 self-reset scratch=4723200"},
	{amdLike, 1 << 20, pairs32, "single-pass wg=256 kpl=16 procs=256 chunk=4096 passes=[8 8 8 8] tiles=256 tile=4096 spins=64 self-reset scratch=8917504"},
	{amdLike, 1 << 24, keys32, "single-pass wg=256 kpl=30 procs=729 chunk=23040 passes=[8 8 8 8] tiles=2185 tile=7680 spins=64 scratch=71588352"},
	{amdLike, 1 << 24, pairs32, "single-pass wg=256 kpl=16 procs=683 chunk=24576 passes=[8 8 8 8] tiles=4096 tile=4096 spins=64 scratch=142610944"},
	{amdLike, 1 << 28, keys32, "three-phase wg=256 kpl=20 procs=760 chunk=353280 passes=[6:count 6:fused 5:fused 5:fused 5:fused 5:fused] scratch=1074131456"},
	{amdLike, 1 << 28, pairs32, "three-phase wg=256 kpl=16 procs=763 chunk=352256 passes=[6:count 6:fused 5:fused 5:fused 5:fused 5:fused] held scratch=2147874816"},
	{amdLike, 1 << 20, keys64, "three-phase wg=256 kpl=8 procs=512 chunk=2048 passes=[4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count] scratch=8421632"},
	{amdLike, 1 << 20, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 6}), "single-pass wg=256 kpl=8 procs=512 chunk=2048 passes=[6 6 6 6 6 2] tiles=512 tile=2048 spins=64 self-reset scratch=4458496"},
	{amdLike, 1 << 20, with(pairs32, Options{Counts: CountsFused, DigitBits: 5}), "three-phase wg=256 kpl=8 procs=512 chunk=2048 passes=[5:count 5:fused 5:fused 5:fused 4:fused 4:fused 4:fused] held scratch=8520192"},
	{amdLike, 1 << 20, with(keys32, Options{Tails: TailsHold, DigitBits: 4}), "three-phase wg=256 kpl=8 procs=512 chunk=2048 passes=[4:count 4:count 4:count 4:count 4:count 4:count 4:count 4:count] held scratch=4227328"},
	{amdLike, 1 << 24, with(keys32, Options{Counts: CountsSeparate, KeysPerLane: 16, Processors: 1000}), "three-phase wg=256 kpl=16 procs=820 chunk=20480 passes=[6:count 6:count 5:count 5:count 5:count 5:count] scratch=67319040"},
	{amdLike, 100003, Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 8, EndBit: 8}, "three-phase wg=256 kpl=8 procs=49 chunk=2048 passes=[] held scratch=813056"},
	{amdLike, 0, pairs32, "three-phase wg=256 kpl=8 procs=1 chunk=2048 passes=[6:count 6:count 5:count 5:count 5:count 5:count] held scratch=512"},
}

// TestTuneRefusals checks, on every fake device, that each sort the
// tuning refuses is refused with ErrInvalid naming its reason. The shapes
// are sized from the device so that each fails for its own reason.
func TestTuneRefusals(t *testing.T) {
	for _, info := range fakeDevices {
		sg := info.MaxSubgroupSize
		for _, c := range []struct {
			what string
			n    uint64
			s    Sort
			want string
		}{
			{"i64 keys", 10, Sort{Elem: vkcompact.Plain(vkcompact.Int64)}, "keys of type i64: the key type must be u32, i32, f32 or u64"},
			{"end bit past the key", 10, Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 33}, "bit range [0, 33) of a 32-bit key"},
			{"begin after end", 10, Sort{Elem: vkcompact.Plain(vkcompact.Uint64), BeginBit: 20, EndBit: 10}, "bit range [20, 10) of a 64-bit key"},
			{"too many keys", 1 << 32, keys32, "4294967296 keys: at most 4294967295"},
			{"keys past four windows", 4*windowSlots(info, 8) + 1, keys64, fmt.Sprintf("keys of 8 bytes exceed one binding (%d bytes, maxStorageBufferRange): past it the sort binds each output as at most 4 windows of %d keys",
				info.MaxStorageBufferRange, windowSlots(info, 8))},
			{"single pass past four windows", 4*windowSlots(info, 8) + 1, with(keys64, Options{Path: vkcompact.PathSinglePass, DigitBits: 4, WorkgroupSize: 64}),
				fmt.Sprintf("the single pass does not apply: %d keys of 8 bytes exceed one binding (%d bytes, maxStorageBufferRange): past it the single pass binds each output as at most 4 windows of %d keys",
					4*windowSlots(info, 8)+1, info.MaxStorageBufferRange, windowSlots(info, 8))},
			{"9-bit digits", 10, with(keys32, Options{DigitBits: 9}), "9 digit bits: 1 to 8"},
			{"33 keys per lane", 10, with(keys32, Options{KeysPerLane: 33}), "33 keys per lane: at most 32"},
			{"unknown tails mode", 10, with(keys32, Options{Tails: 9}), "unknown tails mode 9"},
			{"held tails on the single pass", 10, with(keys32, Options{Tails: TailsHold, Path: vkcompact.PathSinglePass}), "held tails (TailsHold) apply to the three phases' scatter, not the single pass"},
			{"workgroup not a subgroup multiple", 10, with(keys32, Options{WorkgroupSize: sg * 3 / 2}), fmt.Sprintf("workgroup size %d is not a multiple of the largest subgroup size %d", sg*3/2, sg)},
			{"workgroup too large for shared memory", 10, with(keys32, Options{WorkgroupSize: 64 * sg}), fmt.Sprintf("bytes of shared memory; the device has %d", info.MaxSharedMemory)},
			{"held tails beyond shared memory", 10, with(pairs32, Options{WorkgroupSize: 256, DigitBits: 8, KeysPerLane: 8, Tails: TailsHold}), "8 keys per lane and held tails needs"},
			{"unknown path", 10, with(keys32, Options{Path: 7}), "unknown path 7"},
			{"single pass, workgroup smaller than its digits", 1000, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 8, KeysPerLane: 1, WorkgroupSize: sg}),
				fmt.Sprintf("the single pass does not apply: a workgroup of %d invocations is smaller than the 256 digits of 8 bits", sg)},
			{"single pass, tile status past one binding", uint64(info.MaxStorageBufferRange) / 4, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 6, KeysPerLane: 1, WorkgroupSize: 64}),
				fmt.Sprintf("the single pass does not apply: its tile status (%d bytes for %d tiles of 6-bit digits) exceeds the device's maxStorageBufferRange",
					4*(64+2*64*tiles(info)), tiles(info))},
			{"unknown counts mode", 10, with(keys32, Options{Counts: 9}), "unknown counts mode 9"},
			{"fused counts of 8-bit digits", 10, with(keys32, Options{Counts: CountsFused, DigitBits: 8}), "fused counts do not apply: 8-bit digits: at most 6"},
			{"fused counts on the single pass", 1000, with(keys32, Options{Counts: CountsFused, Path: vkcompact.PathSinglePass, DigitBits: 6}), "fused counts do not apply: the single pass has no count phases"},
		} {
			_, err := tune(info, c.n, c.s, 0)
			if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %s: got %v, want ErrInvalid naming %q", info.Name, c.what, err, c.want)
			}
		}
		// 2^28 u32 keys: one binding, windows, or past four windows.
		for _, s := range []Sort{keys32, pairs32} {
			c, err := tune(info, 1<<28, s, 0)
			switch past := 4<<28 > uint64(info.MaxStorageBufferRange); {
			case 1<<28 > 4*windowSlots(info, 4):
				if err == nil || !strings.Contains(err.Error(), "at most 4 windows") {
					t.Errorf("%s: 2^28 %+v: %v; want refused past four windows", info.Name, s, err)
				}
			case err != nil || past != (c.three != nil && c.three.winProcs > 0):
				t.Errorf("%s: 2^28 %+v: %v, windows %+v; the binding holds %d bytes", info.Name, s, err, c.three, info.MaxStorageBufferRange)
			}
		}
		// Past one binding on a device that allows fewer storage buffers
		// per stage than the wide scatter binds.
		few := info
		few.MaxPerStageStorageBuffers = wideStorageBuffers - 1
		if _, err := tune(few, uint64(info.MaxStorageBufferRange)/4+1, keys32, 0); !errors.Is(err, vk.ErrInvalid) ||
			!strings.Contains(err.Error(), "past it the scatter binds 13 storage buffers; the device allows 12 (maxPerStageDescriptorStorageBuffers)") {
			t.Errorf("%s: 12 storage buffers a stage: got %v", info.Name, err)
		}
		if _, err := tune(few, uint64(info.MaxStorageBufferRange)/4+1, with(keys32, Options{Path: vkcompact.PathSinglePass, DigitBits: 4, WorkgroupSize: 64}), 0); !errors.Is(err, vk.ErrInvalid) ||
			!strings.Contains(err.Error(), "past it the single pass binds 13 storage buffers; the device allows 12 (maxPerStageDescriptorStorageBuffers)") {
			t.Errorf("%s: 12 storage buffers a stage, the single pass: got %v", info.Name, err)
		}
		// Fused counts whose counters do not fit beside the scatter:
		// wherever the scatter alone fits and forced fused counts do not,
		// they are refused for their counters' shared memory, and the
		// automatic choice fuses no 6-bit pass.
		refused := 0
		for wg := sg; wg <= min(256, info.MaxWorkgroupInvocations); wg *= 2 {
			for kpl := uint32(1); kpl <= MaxKeysPerLane; kpl++ {
				s := with(pairs32, Options{WorkgroupSize: wg, DigitBits: 6, KeysPerLane: kpl, Tails: TailsWrite, Counts: CountsSeparate})
				if _, err := tune(info, 1<<20, s, 0); err != nil {
					continue
				}
				s.Counts = CountsFused
				if _, err := tune(info, 1<<20, s, 0); err == nil {
					continue
				} else if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "fused counts do not apply: the scatter would need") {
					t.Errorf("%s: %+v: got %v, want the fused counts refused for shared memory", info.Name, s.Options, err)
				}
				refused++
				s.Counts = CountsAuto
				if c, err := tune(info, 1<<20, s, 0); err != nil || c.three.nextFits[6] {
					t.Errorf("%s: %+v: %v; want the automatic choice, 6-bit passes not fused", info.Name, s.Options, err)
				}
			}
		}
		if refused == 0 {
			t.Errorf("%s: no workgroup and keys per lane where 6-bit digits fit but their fused counts do not", info.Name)
		}
	}
}

// TestTuneSlotLimit checks the sort's last bound past one binding on the
// H100: u32 keys until the last processor's chunk would end past slot
// 2^32-1 (the kernels' slots are 32-bit), short of the 4 * 1073741820
// keys four windows hold.
func TestTuneSlotLimit(t *testing.T) {
	const most = 4294517760
	if c, err := tune(h100, most, keys32, 0); err != nil || c.three.outWindows != 4 || uint64(c.three.procs)*uint64(c.three.chunk) > math.MaxUint32 {
		t.Errorf("%d keys: %v, %+v", uint64(most), err, c.three)
	}
	if _, err := tune(h100, most+1, keys32, 0); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "would end past slot 2^32-1") {
		t.Errorf("%d keys: got %v, want ErrInvalid naming slot 2^32-1", uint64(most+1), err)
	}
}

// windowSlots is the keys of keyBytes bytes one output window holds.
func windowSlots(info vk.DeviceInfo, keyBytes uint64) uint64 {
	return uint64(tiling.WindowTiles(info, uint64(info.MaxStorageBufferRange), keyBytes))
}

// tiles is the single pass's tiles of 64 keys over a binding of uint32.
func tiles(info vk.DeviceInfo) uint64 { return align.CeilDiv(uint64(info.MaxStorageBufferRange)/4, 64) }

// TestTuneMatchesNewPlan checks that NewPlan on the test device takes
// exactly the configuration tune gives for the device's information, and
// refuses what it refuses with the same error, over the table's sorts and
// more options, so that the fake devices' rows speak for real plans.
func TestTuneMatchesNewPlan(t *testing.T) {
	ctx := vktest.Shared(t)
	info := ctx.Info()
	sorts := []Sort{keys32, pairs32, keys64, {Elem: vkcompact.Plain(vkcompact.Float32), Descending: true, InPlace: true}, {Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 3, EndBit: 29}}
	for _, r := range tuneRows {
		sorts = append(sorts, r.s)
	}
	for _, o := range []Options{
		{Counts: CountsFused}, {Counts: CountsSeparate}, {Tails: TailsHold}, {Tails: TailsWrite, DigitBits: 5},
		{Path: vkcompact.PathSinglePass, DigitBits: 6}, {Path: vkcompact.PathSinglePass, Spins: -1, DigitBits: 4, KeysPerLane: 3},
		{Processors: 17, KeysPerLane: 12, DigitBits: 7}, {WorkgroupSize: info.MaxSubgroupSize, KeysPerLane: 1, Counts: CountsFused, DigitBits: 3},
		{DigitBits: 8, KeysPerLane: 32}, {WorkgroupSize: 64 * info.MaxSubgroupSize},
	} {
		sorts = append(sorts, with(pairs32, o), with(keys64, o))
	}
	planned, refused := 0, 0
	for _, n := range []uint64{0, 1, 4097, 1 << 16, 1 << 20, 1 << 24, uint64(info.MaxStorageBufferRange)/4 + 1} {
		for i, s := range sorts {
			if n >= 1<<24 && i%3 != 0 {
				continue
			}
			want, wantErr := tune(info, n, s, 0)
			if wantErr != nil {
				refused++
			} else {
				planned++
			}
			p, err := NewPlan(ctx, n, s)
			switch {
			case wantErr != nil && (err == nil || err.Error() != wantErr.Error()):
				t.Errorf("n=%d %+v: NewPlan %v, tune %v", n, s, err, wantErr)
			case wantErr != nil:
			case err != nil:
				t.Errorf("n=%d %+v: NewPlan %v, tune %s", n, s, err, summary(want))
			case renderConfig(p.config()) != renderConfig(want):
				t.Errorf("n=%d %+v: NewPlan %s, tune %s", n, s, summary(p.config()), summary(want))
			}
		}
	}
	t.Logf("%d plans and %d refusals alike on %s", planned, refused, info.Name)
}

// TestTuneOnesweepShared checks the single pass's own shared-memory
// bound (one union of counts and stage, onesweepShared), on every fake
// device: given exactly what it needs, the single pass is planned; given
// a word less, it is refused naming its shared memory, and the three
// phases still fit where the scatter's model does.
func TestTuneOnesweepShared(t *testing.T) {
	for _, info := range fakeDevices {
		o := Options{DigitBits: 4, KeysPerLane: 4, WorkgroupSize: max(2*info.MaxSubgroupSize, 16), Path: vkcompact.PathSinglePass} // at least a digit per invocation
		sh := newScatterShape(info, o.WorkgroupSize, o.KeysPerLane, 1)
		need := sh.onesweepShared(4, 1)
		info.MaxSharedMemory = max(need, sh.shared(4, false))
		if _, err := tune(info, 100000, with(keys32, o), 0); err != nil {
			t.Errorf("%s: the single pass with %d bytes of shared memory: %v", info.Name, info.MaxSharedMemory, err)
		}
		info.MaxSharedMemory = need - 4
		_, err := tune(info, 100000, with(keys32, o), 0)
		want := fmt.Sprintf("needs %d bytes of shared memory; the device has %d", need, info.MaxSharedMemory)
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "the single pass does not apply") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: the single pass with %d bytes of shared memory: %v, want ErrInvalid naming %q", info.Name, info.MaxSharedMemory, err, want)
		}
	}
}

// TestTuneScanWorkgroup checks the three phases' scan workgroup: on a
// GPU the largest (pipeline.ScanWorkgroup), whatever the processors; on a
// CPU device just enough whole subgroups for a row of one count per
// processor, at most the largest.
func TestTuneScanWorkgroup(t *testing.T) {
	for _, dev := range fakeDevices {
		for _, n := range []uint64{1, 4096, 1 << 16, 1 << 20, 1 << 24} {
			c, err := tune(dev, n, Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: Options{Path: vkcompact.PathThreePhase}}, uint64(dev.MaxStorageBufferRange))
			if err != nil {
				t.Fatalf("%s, n %d: %v", dev.Name, n, err)
			}
			tp := c.three
			if tp == nil {
				t.Fatalf("%s, n %d: not the three phases", dev.Name, n)
			}
			largest := pipeline.ScanWorkgroup(dev)
			want := largest
			if dev.CPU() {
				sg := dev.MaxSubgroupSize
				want = min(largest, uint32(align.CeilDiv(uint64(tp.procs), uint64(sg)))*sg)
			}
			if tp.scanWG != want || tp.scanWG%dev.MaxSubgroupSize != 0 || (dev.CPU() && tp.scanWG < min(tp.procs, largest)) {
				t.Errorf("%s, n %d, %d processors: scan workgroup %d, want %d", dev.Name, n, tp.procs, tp.scanWG, want)
			}
		}
	}
}
