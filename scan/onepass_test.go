package scan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// smallTiles, on a CPU device, makes the single pass's tiles as small as
// they go (one subgroup, one load per lane), so that modest inputs cross
// many tiles and the look-back walks far.

// TestScanPaths runs integer prefix sums on both paths and on the single
// pass's fallback, at sizes around the tile edges, exclusive and
// inclusive, at buffer offsets.
func TestScanPaths(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	align := ctx.Info().MinStorageBufferOffsetAlignment
	sizes := []int{1, 2, 3, 5, 31, 32, 33, 127, 128, 129, 1023, 1024, 1025, 4095, 4096, 4097, 65537, 1<<20 + 12345}
	for _, pc := range vktest.PathConfigs {
		t.Run(pc.Name, func(t *testing.T) {
			for _, tiles := range []string{"default", "small"} {
				for i, n := range sizes {
					typ := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32}[i%2]
					o := scan.Options{Path: pc.Path, Spins: pc.Spins}
					if tiles == "small" {
						o = smallTiles(ctx, o)
					}
					for _, incl := range []bool{false, true} {
						s := scan.Scan{Elem: vkcompact.Plain(typ), Inclusive: incl, Options: o}
						p, err := scan.NewPlan(ctx, uint64(n), s)
						if err != nil {
							t.Fatalf("%v n=%d: %v", s, n, err)
						}
						if got := p.Tuning().Path; got != pc.Path {
							t.Fatalf("%v n=%d: path %v, want %v", s, n, got, pc.Path)
						}
						runScan(t, ctx, scanCase{scan: s, data: scanData(rng, typ, n, true),
							srcOff: align * uint64(rng.IntN(4)), dstOff: align * uint64(rng.IntN(4))})
					}
				}
			}
		})
	}
}

// TestScanSinglePassGPUCount takes the single pass's element count from a
// GPU buffer: none, some, all, more than n; the destination past the count
// must stay poisoned and the total cover the counted elements only.
func TestScanSinglePassGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	i := 0
	for _, n := range []int{1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n - 1), uint32(n), uint32(n + 5), 0xffffffff} {
			for _, spins := range []int32{0, -1} {
				o := smallTiles(ctx, scan.Options{Path: vkcompact.PathSinglePass, Spins: spins})
				typ := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32}[i%2]
				c := scanCase{scan: scan.Scan{Elem: vkcompact.Plain(typ), Inclusive: i%3 == 0, Options: o},
					data: scanData(rng, typ, n, true), gpuCount: true, count: count}
				runScan(t, ctx, c)
				i++
			}
		}
	}
}

// TestScanSinglePassNotApplicable forces the single pass where it does
// not apply: NewScanPlan names the reason.
func TestScanSinglePassNotApplicable(t *testing.T) {
	ctx := vktest.Shared(t)
	one := scan.Options{Path: vkcompact.PathSinglePass}
	for _, c := range []struct {
		s    scan.Scan
		n    uint64
		want string
	}{
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32), Options: one}, 1000, "float32 sums keep the three phases"},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), InPlace: true, Options: one}, 1000, "does not run in place"},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: scan.Options{Path: 9}}, 1000, "unknown path 9"},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: scan.Options{Path: vkcompact.PathSinglePass, WorkgroupSize: 1024}}, 1000, "workgroups above 512"},
	} {
		_, err := scan.NewPlan(ctx, c.n, c.s)
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v n=%d: %v, want ErrInvalid naming %q", c.s, c.n, err, c.want)
		}
	}
}

// TestScanAutoPath checks PathAuto's choice: the single pass for integer
// sums out of place on GPUs, the three phases otherwise.
func TestScanAutoPath(t *testing.T) {
	ctx := vktest.Shared(t)
	gpu := ctx.Info().Type != "cpu"
	// The largest workgroup the device allows, up to 1024: the single
	// pass takes at most 512.
	bigWG := min(1024, ctx.Info().MaxWorkgroupInvocations)
	bigWant := vkcompact.PathSinglePass
	if bigWG > 512 {
		bigWant = vkcompact.PathThreePhase
	}
	for _, c := range []struct {
		s    scan.Scan
		n    uint64
		want vkcompact.Path
	}{
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, 1000, vkcompact.PathSinglePass},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Int32), Inclusive: true}, 1 << 20, vkcompact.PathSinglePass},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32)}, 1000, vkcompact.PathThreePhase},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), InPlace: true}, 1000, vkcompact.PathThreePhase},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: scan.Options{WorkgroupSize: bigWG}}, 1000, bigWant},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, 0, vkcompact.PathThreePhase},
		{scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, uint64(ctx.Info().MaxStorageBufferRange)/4 + 1, vkcompact.PathSinglePass}, // in windows
	} {
		p, err := scan.NewPlan(ctx, c.n, c.s)
		if err != nil {
			t.Fatalf("%v n=%d: %v", c.s, c.n, err)
		}
		want := c.want
		if !gpu && c.n > 1<<12 {
			want = vkcompact.PathThreePhase // the faster there past 2^12 elements
		}
		if got := p.Tuning().Path; got != want {
			t.Errorf("%v n=%d: path %v, want %v", c.s, c.n, got, want)
		}
	}
}

// TestScanSinglePassRepeated runs the single-pass prefix sum many times on
// the same input, with the default spins and with the fallback at once,
// poisoning the output before every run. VKCOMPACT_REPEAT sets the runs
// per configuration (default 25), VKCOMPACT_REPEAT_N the size (default
// 100003) and VKCOMPACT_REPEAT_WG the workgroup size (default: the
// device's); scripts/bench-h100.sh -stress runs it on the H100.
func TestScanSinglePassRepeated(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	runs, n := vktest.EnvInt(t, "VKCOMPACT_REPEAT", 25), vktest.EnvInt(t, "VKCOMPACT_REPEAT_N", 100003)
	in := scanData(rng, vkcompact.Uint32, n, true)
	want, _, _, wantTotal, _ := refScan(scanCase{scan: scan.Scan{}, data: in})
	nb := uint64(4 * n)
	src, dst, tot := vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, 16)
	if err := vk.Upload(src.Range(0, nb), in); err != nil {
		t.Fatal(err)
	}
	poisoned := vktest.PoisonWords(n)
	got := make([]uint32, n)
	wg := uint32(vktest.EnvInt(t, "VKCOMPACT_REPEAT_WG", 0))
	for _, spins := range []int32{0, -1} {
		o := smallTiles(ctx, scan.Options{Path: vkcompact.PathSinglePass, Spins: spins})
		if wg != 0 {
			o.WorkgroupSize = wg
		}
		p, err := scan.NewPlan(ctx, uint64(n), scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o})
		if err != nil {
			t.Fatal(err)
		}
		scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
		b := scan.Buffers{Src: src.Range(0, nb), Dst: dst.Range(0, nb), Total: tot.Range(0, scan.TotalSize), Scratch: scratch.Range(0, p.ScratchSize())}
		tu := p.Tuning()
		for r := 0; r < runs; r++ {
			if err := vk.Upload(b.Dst, poisoned); err != nil {
				t.Fatal(err)
			}
			if err := vk.Upload(b.Total, []uint32{vktest.Poison}); err != nil {
				t.Fatal(err)
			}
			if err := pipeline.Run(ctx, func(rec *pipeline.Recorder) { p.Record(rec, b) }); err != nil {
				t.Fatal(err)
			}
			var total [1]uint32
			if err := vk.Download(b.Total, total[:]); err != nil {
				t.Fatal(err)
			}
			if err := vk.Download(b.Dst, got); err != nil {
				t.Fatal(err)
			}
			if total[0] != wantTotal || !slices.Equal(got, want) {
				i := 0
				for i < n && got[i] == want[i] {
					i++
				}
				t.Fatalf("run %d of %d (%d tiles of %d, spins %d): total %#x, want %#x; first difference at element %d",
					r+1, runs, tu.Tiles, tu.Tile, tu.Spins, total[0], wantTotal, i)
			}
		}
		t.Logf("prefix sum: %d runs of %d elements, %d tiles of %d, spins %d: all right", runs, n, tu.Tiles, tu.Tile, tu.Spins)
	}
}

// TestSinglePassManyTiles runs the single pass over more tiles than
// maxComputeWorkGroupCount[0], so that the dispatch is a 2D grid
// (compact's TestSelectSinglePassManyTiles does the same for a selection;
// tiling.TilesByIndex says why it matters on lavapipe).
func TestSinglePassManyTiles(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	o := smallTiles(ctx, scan.Options{Path: vkcompact.PathSinglePass})
	probe, err := scan.NewPlan(ctx, 1<<20, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o})
	if err != nil {
		t.Fatal(err)
	}
	tiles := uint64(ctx.Info().MaxWorkgroupCount[0]) + 1000
	n := tiles * uint64(probe.Tuning().Tile)
	if n > 1<<26 {
		t.Skipf("%d tiles of %d: too many elements to test here", tiles, probe.Tuning().Tile)
	}
	runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o}, data: scanData(rng, vkcompact.Uint32, int(n), true)})
}

// smallTiles makes a CPU device's single pass take many small tiles
// (vktest.SmallTiles).
func smallTiles(ctx *vk.Context, o scan.Options) scan.Options {
	if wg, loads := vktest.SmallTiles(ctx.Info()); wg != 0 {
		o.WorkgroupSize, o.LoadsPerLane = wg, loads
	}
	return o
}

// TestScanSinglePassWindows runs the single pass past one binding, with
// the binding limit lowered so that small inputs take several windows
// (one dispatch each, binding the same window of the input and output,
// tile numbers carried from one to the next): inclusive and exclusive,
// GPU counts that end inside a window or before the last ones, the
// fallback, and (where maxComputeWorkGroupCount[0] is small enough to
// test) windows of more tiles than it, dispatched as 2D grids whose
// padding workgroups take tile-counter numbers too. Each against the Go
// reference with the output poisoned.
func TestScanSinglePassWindows(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	const limit = 64 << 10
	for i, c := range []struct {
		n        int
		gpuCount int // -1: none
		spins    int32
	}{{100003, -1, 0}, {65536, -1, -1}, {100003, 30000, 0}, {100003, 70001, -1}, {16385, -1, 0}} {
		o := scan.Options{Path: vkcompact.PathSinglePass, Spins: c.spins, WorkgroupSize: max(info.MaxSubgroupSize, 64), LoadsPerLane: 2}
		typ := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32}[i%2]
		sc := scanCase{scan: scan.Scan{Elem: vkcompact.Plain(typ), Inclusive: i%3 == 1, Options: o}, data: scanData(rng, typ, c.n, true), windowLimit: limit}
		if c.gpuCount >= 0 {
			sc.gpuCount, sc.count = true, uint32(c.gpuCount)
		}
		p, err := scan.NewPlanWindowLimit(ctx, uint64(c.n), sc.scan, limit)
		if err != nil {
			t.Fatal(err)
		}
		tu := p.Tuning()
		if tu.WindowTiles == 0 || tu.Tiles <= tu.WindowTiles || uint64(tu.WindowTiles)*uint64(tu.Tile)*4 > limit || tu.SelfReset {
			t.Fatalf("n=%d: tuning %+v: want several windows of at most %d bytes, no self-reset", c.n, tu, limit)
		}
		runScan(t, ctx, sc)
	}
	// Windows of more tiles than the grid's x limit.
	o := smallTiles(ctx, scan.Options{Path: vkcompact.PathSinglePass})
	probe, err := scan.NewPlan(ctx, 1<<20, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o})
	if err != nil {
		t.Fatal(err)
	}
	tileBytes := uint64(probe.Tuning().Tile) * 4
	window := (uint64(info.MaxWorkgroupCount[0]) + 1000) * tileBytes
	n := (2*window + window/3) / 4
	if info.MaxWorkgroupCount[0] >= 1<<20 || n > 1<<24 {
		t.Logf("windows of %d tiles of %d bytes: too many elements to test here", info.MaxWorkgroupCount[0]+1000, tileBytes)
		return // the windows above ran
	}
	t.Logf("n=%d, tiles of %d bytes, windows of %d bytes", n, tileBytes, window)
	runScan(t, ctx, scanCase{scan: scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o}, data: scanData(rng, vkcompact.Uint32, int(n), true), windowLimit: window})
}
