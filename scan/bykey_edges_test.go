package scan_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestScanByKeyGPUCount takes the pair count from a GPU buffer, at a word
// past the alignment: none, some, all, more than n, on the default and
// the smallest tiles; the output past the count must stay poisoned.
func TestScanByKeyGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	i := 0
	for _, n := range []int{0, 1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(max(n-1, 0)), uint32(n), uint32(n + 5), 0xffffffff} {
			kt, vt, op := keyTypes[i%4], valueTypes[i%3], allOps[i%3]
			b := scan.ByKey{Elem: vkcompact.Plain(kt), Value: vt, Op: op, Inclusive: i%2 == 0}
			if i%3 == 0 {
				b.WorkgroupSize, b.LoadsPerLane, b.Spins = ctx.Info().MaxSubgroupSize, 1, -1
			}
			runByKey(t, ctx, byKeyCase{b: b, keys: runKeys(rng, kt, n, keepRatios[i%len(keepRatios)], true), values: byKeyValues(rng, vt, op, n, i%2 == 0, i),
				gpuCount: true, count: count})
			i++
		}
	}
}

// TestScanByKeyWindows runs the scan by key past one binding, with the
// binding limit lowered so that small inputs take several windows (one
// dispatch each, binding the same window of the keys, values and output
// and the key before it): every key type (uint64 keys take windows of
// half the pairs), runs that cross the windows' edges and runs that
// start at them, GPU counts that end inside a window or before the last
// ones, the fallback at once, at buffer offsets.
func TestScanByKeyWindows(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	const limit = 64 << 10
	align := info.MinStorageBufferOffsetAlignment
	for i, c := range []struct {
		n        int
		keep     float64
		gpuCount int // -1: none
	}{{100003, 0.001, -1}, {65536, 0.5, -1}, {100003, 0, 30000}, {100003, 0.01, 70001}, {16385, 1, -1}} {
		kt, vt, op := keyTypes[i%4], valueTypes[i%3], allOps[(i+1)%3]
		o := scan.Options{Spins: int32(-(i % 2)), WorkgroupSize: max(info.MaxSubgroupSize, 64), LoadsPerLane: 2}
		b := scan.ByKey{Elem: vkcompact.Plain(kt), Value: vt, Op: op, Inclusive: i%3 == 1, Options: o}
		c2 := byKeyCase{b: b, keys: runKeys(rng, kt, c.n, c.keep, true), values: byKeyValues(rng, vt, op, c.n, true, i), windowLimit: limit,
			keysOff: align * uint64(i%3), valuesOff: align * uint64(i%2), dstOff: align}
		if c.gpuCount >= 0 {
			c2.gpuCount, c2.count = true, uint32(c.gpuCount)
		}
		p, err := scan.NewByKeyPlanWindowLimit(ctx, uint64(c.n), b, limit)
		if err != nil {
			t.Fatal(err)
		}
		tu := p.Tuning()
		if tu.WindowTiles == 0 || tu.Tiles <= tu.WindowTiles || uint64(tu.WindowTiles)*uint64(tu.Tile)*uint64(kt.Size()) > limit || tu.SelfReset {
			t.Fatalf("%v n=%d: tuning %+v: want several windows of at most %d bytes, no self-reset", b, c.n, tu, limit)
		}
		runByKey(t, ctx, c2)
	}
	// A run starting at each window's first pair, and one crossing every
	// window's edge.
	o := scan.Options{WorkgroupSize: max(info.MaxSubgroupSize, 64), LoadsPerLane: 1}
	p, err := scan.NewByKeyPlanWindowLimit(ctx, 50000, scan.ByKey{Options: o}, limit)
	if err != nil {
		t.Fatal(err)
	}
	window := int(p.Tuning().WindowTiles * p.Tuning().Tile)
	for _, shift := range []int{0, window / 2} {
		n := 50000
		keys := make([]uint64, n)
		for j := range keys {
			keys[j] = uint64((j + shift) / window)
		}
		b := scan.ByKey{Value: vkcompact.Float32, Inclusive: shift == 0, Options: o}
		runByKey(t, ctx, byKeyCase{b: b, keys: keys, values: byKeyValues(rng, vkcompact.Float32, scan.Sum, n, true, 0), windowLimit: limit})
	}
}

// TestScanByKeyAboveMaxRange scans by key more pairs than one binding
// holds (lavapipe: 2^25 uint32), in windows.
func TestScanByKeyAboveMaxRange(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	info := ctx.Info()
	if uint64(info.MaxStorageBufferRange) > 1<<28 {
		t.Skipf("maxStorageBufferRange %d: too large to exceed here", info.MaxStorageBufferRange)
	}
	rng := vktest.Rand(t)
	n := int(info.MaxStorageBufferRange)/4 + 1234567
	b := scan.ByKey{Value: vkcompact.Int32, Op: scan.Sum, Inclusive: true}
	p, err := scan.NewByKeyPlan(ctx, uint64(n), b)
	if err != nil {
		t.Fatal(err)
	}
	if tu := p.Tuning(); tu.WindowTiles == 0 || tu.WindowTiles >= tu.Tiles {
		t.Fatalf("n=%d: tuning %+v: want windows", n, tu)
	}
	runByKey(t, ctx, byKeyCase{b: b, keys: runKeys(rng, vkcompact.Uint32, n, 0.0001, false), values: byKeyValues(rng, vkcompact.Int32, scan.Sum, n, true, 0)})
}

// TestScanByKeyReproducible runs float32 sums by key again and again, on
// plans whose look-back waits for its predecessors and plans that
// compute them at once (the fallback), over tiles that the runs cross,
// and wants the same bits from every run and every plan: the additions'
// order depends on the input and the tuning only. The values hold NaNs
// and infinities too, whose sums are NaNs of either sign (+Inf + -Inf
// makes one of its own), as the device's arithmetic picks: any NaN
// stands for any other.
func TestScanByKeyReproducible(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	const n = 300007
	for _, keep := range []float64{0.5, 0.0005, 0} {
		keys := runKeys(rng, vkcompact.Uint32, n, keep, false)
		values := byKeyValues(rng, vkcompact.Float32, scan.Sum, n, false, 0)
		for _, small := range []bool{false, true} {
			for _, inclusive := range []bool{false, true} {
				var first []uint32
				for _, spins := range []int32{0, -1, 200, -1} {
					b := scan.ByKey{Value: vkcompact.Float32, Inclusive: inclusive, Options: scan.Options{Spins: spins}}
					if small {
						b.WorkgroupSize, b.LoadsPerLane = ctx.Info().MaxSubgroupSize, 1
					}
					got := runByKey(t, ctx, byKeyCase{b: b, keys: keys, values: values})
					if first == nil {
						first = got
					} else if !slices.EqualFunc(got, first, sameSum) {
						i := 0
						for sameSum(got[i], first[i]) {
							i++
						}
						t.Fatalf("keep %g, small tiles %v, inclusive %v, spins %d: element %d is %#x, an earlier run gave %#x", keep, small, inclusive, spins, i, got[i], first[i])
					}
				}
			}
		}
	}
}

// sameSum says whether two float32 sums are the same bits, or both NaN.
func sameSum(a, b uint32) bool { return a == b || isNaN32(a) && isNaN32(b) }

// TestScanByKeyEmpty plans a scan by key of no pairs, with and without a
// GPU count: it writes nothing but its scratch, and the slice helper
// returns an empty slice.
func TestScanByKeyEmpty(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, gpuCount := range []bool{false, true} {
		p, err := scan.NewByKeyPlan(ctx, 0, scan.ByKey{Elem: vkcompact.Plain(vkcompact.Uint64), Value: vkcompact.Float32, Op: scan.Min})
		if err != nil {
			t.Fatal(err)
		}
		buf := vktest.NewPoisoned(t, ctx, 4096)
		b := scan.ByKeyBuffers{Keys: buf.Range(0, 0), Values: buf.Range(256, 0), Dst: buf.Range(512, 0), Scratch: buf.Range(1024, p.ScratchSize())}
		if gpuCount {
			b.Count = buf.Range(768, 4)
			if err := vk.Upload(b.Count, []uint32{7}); err != nil {
				t.Fatal(err)
			}
		}
		if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, 1024)
		if err := vk.Download(buf.All(), got); err != nil {
			t.Fatal(err)
		}
		for i, w := range got {
			written := uint64(i*4) >= 1024 && uint64(i*4) < 1024+p.ScratchSize() || gpuCount && i == 192
			if !written && w != vktest.Poison {
				t.Fatalf("word %d (byte %d) outside the scratch written: %#x", i, 4*i, w)
			}
		}
	}
	out, err := scan.ScanByKeySlice(ctx, []float32{}, []int32{}, scan.ByKey{Inclusive: true})
	if err != nil || len(out) != 0 {
		t.Fatalf("ScanByKeySlice of nothing: %v, %v", out, err)
	}
}

// TestScanByKeySlice runs the slice helper for a few key and value
// types, exclusive and inclusive.
func TestScanByKeySlice(t *testing.T) {
	ctx := vktest.Shared(t)
	u, err := scan.ScanByKeySlice(ctx, []uint32{1, 1, 2, 2, 2, 1}, []uint32{1, 2, 3, 4, math.MaxUint32, 6}, scan.ByKey{})
	if err != nil || fmt.Sprint(u) != "[0 1 0 3 7 0]" {
		t.Errorf("uint32 exclusive sum: %v %v, want [0 1 0 3 7 0]", u, err)
	}
	i, err := scan.ScanByKeySlice(ctx, []uint64{1 << 40, 1 << 40, 1<<40 + 1, 7}, []int32{-5, 2, -7, 1}, scan.ByKey{Op: scan.Max, Inclusive: true})
	if err != nil || fmt.Sprint(i) != "[-5 2 -7 1]" {
		t.Errorf("int32 inclusive max by uint64 key: %v %v, want [-5 2 -7 1]", i, err)
	}
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	f, err := scan.ScanByKeySlice(ctx, []float32{nan, nan, 0, negZero, 3}, []float32{0.5, 0.25, 2, 1, -1}, scan.ByKey{Op: scan.Min})
	if err != nil || fmt.Sprint(f) != "[+Inf +Inf +Inf 2 +Inf]" {
		t.Errorf("float32 exclusive min by float32 key (NaN keys each a run, zeros one): %v %v, want [+Inf +Inf +Inf 2 +Inf]", f, err)
	}
	s, err := scan.ScanByKeySlice(ctx, []int32{4, 4, 4}, []float32{negZero, negZero, 1}, scan.ByKey{Inclusive: true})
	if err != nil || fmt.Sprint(s) != "[-0 -0 1]" || !math.Signbit(float64(s[0])) {
		t.Errorf("float32 inclusive sum of -0.0: %v %v, want [-0 -0 1]", s, err)
	}
}

// TestScanByKeyScratchReuse runs a scan by key again and again on one
// scratch range, which the pass leaves zero for its next run: runs back
// to back in one command buffer, another with no clear recorded, then
// after an upload wrote stale-looking status words there, where a clear
// must be recorded. Each run is checked against the reference.
func TestScanByKeyScratchReuse(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	const runs = 3
	b := scan.ByKey{Elem: vkcompact.Plain(vkcompact.Int32), Value: vkcompact.Uint32, Inclusive: true,
		Options: scan.Options{WorkgroupSize: ctx.Info().MaxSubgroupSize, LoadsPerLane: 1}}
	n := uint64(500*ctx.Info().MaxSubgroupSize*4 - 5) // 500 tiles: the pass resets its status words
	p, err := scan.NewByKeyPlan(ctx, n, b)
	if err != nil {
		t.Fatal(err)
	}
	tu := p.Tuning()
	if !tu.SelfReset {
		t.Fatalf("tuning %+v: want a self-resetting pass", tu)
	}
	status := vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
	words := 2 + 2*uint64(tu.Tiles)
	round := func(what string, wantClear bool) {
		t.Helper()
		type run struct {
			keys   []uint64
			values []uint32
			b      scan.ByKeyBuffers
		}
		rs := make([]run, runs)
		for i := range rs {
			x := run{keys: runKeys(rng, vkcompact.Int32, int(n), 0.01, false), values: byKeyValues(rng, vkcompact.Uint32, scan.Sum, int(n), true, 0)}
			kw := make([]uint32, n)
			for j, k := range x.keys {
				kw[j] = uint32(k)
			}
			x.b = scan.ByKeyBuffers{Keys: vktest.NewPoisoned(t, ctx, 4*n).All(), Values: vktest.NewPoisoned(t, ctx, 4*n).All(),
				Dst: vktest.NewPoisoned(t, ctx, 4*n).All(), Scratch: status}
			if err := vk.Upload(x.b.Keys, kw); err != nil {
				t.Fatal(err)
			}
			if err := vk.Upload(x.b.Values, x.values); err != nil {
				t.Fatal(err)
			}
			rs[i] = x
		}
		vktest.RecordRuns(t, ctx, what, runs, true, wantClear, nil, func(r *pipeline.Recorder, i int) { p.Record(r, rs[i].b) })
		for i, x := range rs {
			got := make([]uint32, n)
			if err := vk.Download(x.b.Dst, got); err != nil {
				t.Fatal(err)
			}
			if want, _, _, _ := refByKey(b, x.keys, x.values); !slices.Equal(got, want) {
				t.Fatalf("%s: run %d of %d: wrong scans", what, i+1, runs)
			}
		}
		vktest.CheckZero(t, what, status, words)
	}
	round("first use of the scratch", true)
	round("scratch left zero by the last run", false)
	vktest.UploadStale(t, status, func() uint32 { return (1+uint32(rng.IntN(2)))<<16 | rng.Uint32N(1<<16) })
	round("scratch overwritten by an upload", true)
}

// TestScanByKeyRecordTimed times a scan by key with a timer of
// len(Phases())+1 queries and refuses a shorter one, naming the queries
// needed.
func TestScanByKeyRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	if ctx.Info().TimestampValidBits == 0 {
		t.Skip("no timestamps")
	}
	rng := vktest.Rand(t)
	const n = 5000
	c := byKeyCase{b: scan.ByKey{Inclusive: true}, keys: runKeys(rng, vkcompact.Uint32, n, 0.1, false), values: byKeyValues(rng, vkcompact.Uint32, scan.Sum, n, true, 0)}
	p, err := scan.NewByKeyPlan(ctx, n, c.b)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Phases(); !slices.Equal(got, []string{"clear", "pass"}) {
		t.Fatalf("phases %q", got)
	}
	kw := make([]uint32, n)
	for j, k := range c.keys {
		kw[j] = uint32(k)
	}
	b := scan.ByKeyBuffers{Keys: vktest.NewPoisoned(t, ctx, 4*n).All(), Values: vktest.NewPoisoned(t, ctx, 4*n).All(), Dst: vktest.NewPoisoned(t, ctx, 4*n).All(),
		Scratch: vktest.NewPoisoned(t, ctx, p.ScratchSize()).All()}
	if err := vk.Upload(b.Keys, kw); err != nil {
		t.Fatal(err)
	}
	if err := vk.Upload(b.Values, c.values); err != nil {
		t.Fatal(err)
	}
	for _, queries := range []uint32{3, 2} {
		timer, err := ctx.NewTimer(queries)
		if err != nil {
			t.Fatal(err)
		}
		defer timer.Release()
		err = ctx.Submit(func(cb vk.CommandBuffer) error {
			timer.Reset(cb)
			r := pipeline.Record(cb)
			p.RecordTimed(r, b, timer)
			return r.Err()
		})
		if queries == 2 {
			if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "RecordTimed needs a timer of 3 queries") {
				t.Errorf("a timer of 2 queries: %v, want ErrInvalid naming 3", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := uint32(0); i < queries; i++ {
			if ns, err := timer.Nanoseconds(0, i); err != nil || ns < 0 {
				t.Errorf("query %d: %v ns, %v", i, ns, err)
			}
		}
		got := make([]uint32, n)
		if err := vk.Download(b.Dst, got); err != nil {
			t.Fatal(err)
		}
		if want, _, _, _ := refByKey(c.b, c.keys, c.values); !slices.Equal(got, want) {
			t.Error("wrong scans")
		}
	}
}
