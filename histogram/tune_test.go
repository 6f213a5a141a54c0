package histogram

import (
	"math"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestTuning checks the tuning, a pure function of the device's
// information and the request, on the fake devices: the grid fills the
// H100 once (132 units of 64 subgroups, 8 per workgroup: 1056
// workgroups) and takes fewer for small inputs; replicas fill 16 KiB on
// a GPU, one per subgroup at most, and are one on CPU devices; the edges
// go to shared memory where they fit beside the replicas; inputs past
// one binding are cut into segments.
func TestTuning(t *testing.T) {
	even := func(bins uint32) Histogram { return Histogram{Bins: bins, Lower: 0, Upper: 1 << 24} }
	edges := func(bins uint32) Histogram { return Histogram{Bins: bins, Edges: true} }
	for _, c := range []struct {
		name string
		dev  vk.DeviceInfo
		n    uint64
		h    Histogram
		want Tuning
	}{
		{"H100 2^28 256 bins", fakedev.H100, 1 << 28, even(256), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 1056, Replicas: 8, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"H100 2^20 256 bins", fakedev.H100, 1 << 20, even(256), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 256, Replicas: 8, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"H100 1000 samples", fakedev.H100, 1000, even(256), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 1, Replicas: 8, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"H100 4096 bins", fakedev.H100, 1 << 24, even(4096), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 1056, Replicas: 1, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"H100 1024 bins by edges", fakedev.H100, 1 << 24, edges(1024), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 1056, Replicas: 4, SharedEdges: true, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"H100 4096 bins by edges", fakedev.H100, 1 << 24, edges(4096), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 1056, Replicas: 1, SharedEdges: true, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"lavapipe 4096 bins by edges", fakedev.Lavapipe8, 1 << 20, edges(4096), Tuning{WorkgroupSize: 256, LoadsPerLane: 1, Workgroups: 4, Replicas: 1, SegmentSamples: 1 << 25, Segments: 1}},
		{"lavapipe 4095 bins by edges", fakedev.Lavapipe8, 1 << 20, edges(4095), Tuning{WorkgroupSize: 256, LoadsPerLane: 1, Workgroups: 4, Replicas: 1, SharedEdges: true, SegmentSamples: 1 << 25, Segments: 1}},
		{"lavapipe past one binding", fakedev.Lavapipe4, 1<<25 + 1, even(256), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 4, Replicas: 1, SegmentSamples: 1 << 25, Segments: 2}},
		{"SwiftShader", fakedev.SwiftShader, 1 << 20, even(256), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 4, Replicas: 1, SegmentSamples: 1 << 28, Segments: 1}},
		{"AMD-like 256 bins", fakedev.AMDLike, 1 << 28, even(256), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 768, Replicas: 4, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"options", fakedev.H100, 1 << 20, Histogram{Bins: 10, Upper: 10, Options: Options{WorkgroupSize: 64, LoadsPerLane: 1, Workgroups: 7, Replicas: 5}},
			Tuning{WorkgroupSize: 64, LoadsPerLane: 1, Workgroups: 7, Replicas: 5, SegmentSamples: 1<<30 - 4, Segments: 1}},
		{"no samples", fakedev.H100, 0, even(256), Tuning{WorkgroupSize: 256, LoadsPerLane: 4, Workgroups: 1, Replicas: 8, SegmentSamples: 1<<30 - 4}},
	} {
		p, err := tune(c.dev, c.n, c.h, 0)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := p.Tuning(); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

// TestTuningLimits checks every fake device's plans against its limits:
// the shared memory the kernel declares fits, no workgroup walks more
// than pipeline.LoopBudget tiles, and requests past the limits are
// refused naming what was wrong.
func TestTuningLimits(t *testing.T) {
	for _, dev := range fakedev.All {
		for _, bins := range []uint32{1, 256, 4095, 4096} {
			for _, h := range []Histogram{{Bins: bins, Upper: 1 << 20}, {Bins: bins, Edges: true}} {
				for _, n := range []uint64{0, 1, 1 << 20, MaxElements} {
					p, err := tune(dev, n, h, 0)
					if err != nil {
						t.Errorf("%s: %d bins, n=%d: %v", dev.Name, bins, n, err)
						continue
					}
					tu := p.Tuning()
					shared := tu.Replicas * bins
					if tu.SharedEdges {
						shared += bins + 1
					} else {
						shared++
					}
					if 4*shared > dev.MaxSharedMemory {
						t.Errorf("%s: %d bins: %d bytes of shared memory past %d", dev.Name, bins, 4*shared, dev.MaxSharedMemory)
					}
					tile := uint64(tu.WorkgroupSize * tu.LoadsPerLane * 4)
					if walks := (min(n, uint64(tu.SegmentSamples)) + tile*uint64(tu.Workgroups) - 1) / (tile * uint64(tu.Workgroups)); walks > pipeline.LoopBudget {
						t.Errorf("%s: n=%d: %d tiles a workgroup", dev.Name, n, walks)
					}
				}
			}
		}
		for _, c := range []struct {
			h    Histogram
			n    uint64
			want string
		}{
			{Histogram{Bins: 0, Upper: 1}, 1, "Bins 0"},
			{Histogram{Bins: MaxBins + 1, Upper: 1 << 20}, 1, "Bins 4097"},
			{Histogram{Bins: 4096, Upper: 1 << 20, Options: Options{Replicas: 4}}, 1, "shared memory"},
			{Histogram{Bins: 4, Upper: 1 << 20, Options: Options{Workgroups: 1, WorkgroupSize: dev.MaxSubgroupSize, LoadsPerLane: 1}}, MaxElements, "workgroups"},
			{Histogram{Bins: 4, Upper: 1 << 20, Options: Options{LoadsPerLane: 5}}, 1, "loads per lane"},
			{Histogram{Bins: 4, Upper: 1 << 20, Options: Options{WorkgroupSize: dev.MaxSubgroupSize + 1}}, 1, "workgroup size"},
			{Histogram{Bins: 4, Upper: 8}, MaxElements + 1, "samples"},
		} {
			if _, err := tune(dev, c.n, c.h, 0); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %+v: got %v, want an error naming %q", dev.Name, c.h, err, c.want)
			}
		}
	}
}

var posInf, nan = math.Inf(1), math.NaN()

// TestBounds checks the even bins' bounds for each type: accepted where
// they are values of the sample type with Lower below Upper, refused
// naming the bound otherwise.
func TestBounds(t *testing.T) {
	u, i, f := vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Int32), vkcompact.Plain(vkcompact.Float32)
	for _, c := range []struct {
		elem         vkcompact.Elem
		lower, upper float64
		want         string // "" accepted
	}{
		{u, 0, 4294967295, ""}, {u, -1, 5, "Lower -1 is not a uint32"}, {u, 0, 4294967296, "Upper 4.294967296e+09 is not a uint32"},
		{u, 0.5, 5, "Lower 0.5 is not a uint32"}, {u, 5, 5, "Lower must be below Upper"}, {u, 6, 5, "Lower must be below Upper"},
		{i, -2147483648, 2147483647, ""}, {i, -2147483649, 0, "not an int32"}, {i, 0, 2147483648, "not an int32"},
		{f, -1, 1, ""}, {f, 0.1, 1, "Lower 0.1 is not a float32 value"}, {f, float64(float32(-3e38)), float64(float32(3e38)), "wider than the largest float32"},
		{f, 0, float64(float32(1e-44)), "too narrow"}, {f, 0, posInf, "not finite"}, {f, nan, 1, "not finite"},
		{vkcompact.Plain(vkcompact.Uint64), 0, 1, "must be uint32, int32 or float32"},
		{vkcompact.Struct(8, 0, vkcompact.Uint32), 0, 1, "must be plain"},
	} {
		_, err := checkHistogram(Histogram{Elem: c.elem, Bins: 16, Lower: c.lower, Upper: c.upper})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v [%v, %v): %v", c.elem, c.lower, c.upper, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v [%v, %v): got %v, want an error naming %q", c.elem, c.lower, c.upper, err, c.want)
		}
	}
	if _, err := checkHistogram(Histogram{Bins: 4, Edges: true, Upper: 3}); err == nil || !strings.Contains(err.Error(), "with Edges both must be zero") {
		t.Errorf("bounds with Edges: %v", err)
	}
}
