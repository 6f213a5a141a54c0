package histogram_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// histCase is one histogram to run and check.
type histCase struct {
	h       histogram.Histogram
	n       int
	segment uint64 // bytes one dispatch binds (0: the device's)
	// gpuCount, when set, passes count through Buffers.Count.
	gpuCount bool
	count    uint32
}

func (c histCase) String() string {
	h := c.h
	s := fmt.Sprintf("n=%d %v bins=%d", c.n, h.Elem.Key.OrUint32(), h.Bins)
	if h.Edges {
		s += " edges"
	} else {
		s += fmt.Sprintf(" [%v,%v)", h.Lower, h.Upper)
	}
	s += fmt.Sprintf(" upper=%v %+v", h.IncludeUpper, h.Options)
	if c.segment != 0 {
		s += fmt.Sprintf(" segment=%d", c.segment)
	}
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

// runCase records c over poisoned counts (and, where samples follow the
// counted ones, poisoned samples past the count) and checks the counts
// against the Go reference on fresh random samples.
func runCase(t *testing.T, ctx *vk.Context, rng *rand.Rand, c histCase) {
	t.Helper()
	h := c.h
	var edges []uint32
	if h.Edges {
		lo, hi := -1000.0, 50000.0
		if h.Elem.Key.OrUint32() == vkcompact.Uint32 {
			lo = 3
		}
		edges = randomEdges(rng, h.Elem.Key.OrUint32(), h.Bins, lo, hi)
	}
	data := samples(rng, h, edges, c.n)
	p, err := histogram.NewPlanSegmentLimit(ctx, uint64(c.n), h, c.segment)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	b := histogram.Buffers{Counts: vktest.NewPoisoned(t, ctx, 4*uint64(h.Bins)).Range(0, 4*uint64(h.Bins))}
	if c.n > 0 {
		b.Src = vktest.NewPoisoned(t, ctx, 4*uint64(c.n)).Range(0, 4*uint64(c.n))
		if err := vk.Upload(b.Src, data); err != nil {
			t.Fatal(err)
		}
	}
	if h.Edges {
		b.Edges = vktest.NewPoisoned(t, ctx, 4*uint64(len(edges))).Range(0, 4*uint64(len(edges)))
		if err := vk.Upload(b.Edges, edges); err != nil {
			t.Fatal(err)
		}
	}
	counted := data
	if c.gpuCount {
		cb := vktest.NewPoisoned(t, ctx, 256)
		b.Count = cb.Range(4, 4) // a word at byte 4, as a result block's second count
		if err := vk.Upload(b.Count, []uint32{c.count}); err != nil {
			t.Fatal(err)
		}
		counted = data[:min(int(c.count), c.n)]
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	got := make([]uint32, h.Bins)
	if err := vk.Download(b.Counts, got); err != nil {
		t.Fatal(err)
	}
	want := refHistogram(h, edges, counted)
	if !slices.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%v (tuning %+v): bin %d counts %d, want %d", c, p.Tuning(), i, got[i], want[i])
			}
		}
	}
}

// evenBounds are ranges for even bins, per type: wide, narrow (fewer
// values than bins), a range not a multiple of the bins, negative, and
// the type's extremes.
var evenBounds = map[vkcompact.Type][][2]float64{
	vkcompact.Uint32:  {{0, 1 << 24}, {10, 17}, {1000, 1000 + 9999}, {0, 4294967295}, {4294967000, 4294967295}},
	vkcompact.Int32:   {{-1000, 2000}, {-7, 3}, {-2147483648, 2147483647}, {5, 1<<20 + 3}},
	vkcompact.Float32: {{0, 1}, {-2.5, 7.25}, {f32(0.1), f32(0.7)}, {f32(-1e30), f32(1e30)}, {f32(1e-3), f32(1e-3 + 1e-6)}},
}

// f32 rounds v to float32.
func f32(v float64) float64 { return float64(float32(v)) }

// TestHistogram counts random samples of every type into even bins and
// bins by edges, at sizes from none past several workgroups, with the
// upper edge counted and not, against the Go reference, over poisoned
// counts. The short form runs fewer sizes and bin counts.
func TestHistogram(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{0, 1, 3, 4, 5, 1000, 4099, 70001}
	binCounts := []uint32{1, 7, 256, 4095, 4096}
	if !vktest.Short() {
		sizes = append(sizes, 300007)
		binCounts = append(binCounts, 2, 1000)
	}
	for _, typ := range []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32} {
		for i, bins := range binCounts {
			for j, n := range sizes {
				bounds := evenBounds[typ][(i+j)%len(evenBounds[typ])]
				upper := (i+j)%2 == 1
				if vktest.Short() {
					upper = i%2 == 1 // one pipeline of each kind per bin count: compiling is most of the time
				}
				even := histogram.Histogram{Elem: vkcompact.Plain(typ), Bins: bins, Lower: bounds[0], Upper: bounds[1], IncludeUpper: upper}
				runCase(t, ctx, rng, histCase{h: even, n: n})
				byEdges := histogram.Histogram{Elem: vkcompact.Plain(typ), Bins: bins, Edges: true, IncludeUpper: !upper}
				runCase(t, ctx, rng, histCase{h: byEdges, n: n})
			}
		}
	}
}

// TestOptions runs the options' extremes (one small workgroup, one
// workgroup in all, odd replica counts, every loads per lane) on even
// bins and bins by edges.
func TestOptions(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sg := ctx.Info().MaxSubgroupSize
	for i, o := range []histogram.Options{
		{WorkgroupSize: sg, LoadsPerLane: 1},
		{Workgroups: 1, LoadsPerLane: 2},
		{Replicas: 3, LoadsPerLane: 3},
		{Replicas: 2, Workgroups: 5, WorkgroupSize: 2 * sg},
	} {
		for _, n := range []int{17, 9000} {
			even := histogram.Histogram{Elem: vkcompact.Plain(vkcompact.Int32), Bins: 33, Lower: -500, Upper: 700, Options: o}
			runCase(t, ctx, rng, histCase{h: even, n: n})
			byEdges := histogram.Histogram{Elem: vkcompact.Plain(vkcompact.Float32), Bins: 100 + uint32(i), Edges: true, Options: o}
			runCase(t, ctx, rng, histCase{h: byEdges, n: n})
		}
	}
}

// TestSegments cuts the samples into segments of 256 bytes or the
// alignment (as inputs past maxStorageBufferRange are cut), with and
// without a GPU count that ends inside a segment, past the samples, and
// at none.
func TestSegments(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	seg := max(256, ctx.Info().MinStorageBufferOffsetAlignment)
	for _, c := range []histCase{
		{n: 1000}, {n: 1003}, {n: 1003, gpuCount: true, count: 501}, {n: 1003, gpuCount: true, count: 5000},
		{n: 1003, gpuCount: true, count: 0}, {n: 64, gpuCount: true, count: 63},
	} {
		c.segment = seg
		c.h = histogram.Histogram{Bins: 50, Lower: 100, Upper: 60000}
		runCase(t, ctx, rng, c)
		c.h = histogram.Histogram{Elem: vkcompact.Plain(vkcompact.Float32), Bins: 9, Edges: true, IncludeUpper: true}
		runCase(t, ctx, rng, c)
		c.segment = 0
		runCase(t, ctx, rng, c)
	}
}

// TestPastOneBinding counts more samples than one binding holds
// (maxStorageBufferRange: 128 MiB on lavapipe), in two dispatches, even
// bins and by edges, the second with a GPU count ending past the first
// segment.
func TestPastOneBinding(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := int(ctx.Info().MaxStorageBufferRange/4) + 4099
	runCase(t, ctx, rng, histCase{h: histogram.Histogram{Bins: 256, Lower: 0, Upper: 1 << 24}, n: n})
	runCase(t, ctx, rng, histCase{h: histogram.Histogram{Elem: vkcompact.Plain(vkcompact.Int32), Bins: 100, Edges: true, IncludeUpper: true},
		n: n, gpuCount: true, count: uint32(n - 1000)})
}
