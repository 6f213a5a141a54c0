package raytrace

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// render runs one frame of r in mode m and reads it back, samples
// included, checking its timing and counts.
func render(t *testing.T, r *Renderer, m Mode) *Render {
	t.Helper()
	timing, err := r.Run(m)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Params()
	wantCompactions := 0
	if m == Compacted {
		wantCompactions = p.Bounces - 1
	}
	if timing == nil || len(timing.ShadeMs) != p.Bounces || len(timing.CompactMs) != wantCompactions || timing.Ms <= 0 ||
		timing.CompactionMs() > timing.Ms || timing.GenerateMs < 0 || timing.ResolveMs < 0 {
		t.Errorf("%s: timing %+v", m, timing)
	}
	got, err := r.Read(m, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCounts(got); err != nil {
		t.Errorf("%s: %v", m, err)
	}
	return got
}

// checkRender renders p in both modes and checks them: identical to each
// other, bit for bit, and to the Go tracer (on lavapipe, where this runs,
// every sample is exact: the tolerance is for other drivers).
func checkRender(t *testing.T, r *Renderer) (compacted *Render) {
	t.Helper()
	p := r.Params()
	want := Trace(p)
	compacted = render(t, r, Compacted)
	uncompacted := render(t, r, Uncompacted)
	if err := Identical(uncompacted, compacted); err != nil {
		t.Errorf("%+v: uncompacted against compacted: %v", p, err)
	}
	a, err := CompareReference(compacted, want)
	if err != nil || a.ExactSamples != a.Samples || a.ExactPixels != a.Pixels {
		t.Errorf("%+v: against the Go tracer: %+v, %v", p, a, err)
	}
	t.Logf("%+v: rays %v", p, compacted.Rays)
	return compacted
}

// TestRenderGPU renders on the GPU, compacted and not, and checks both
// against each other and the Go tracer: sizes that are not multiples of
// the workgroup, one pixel, one bounce (no compaction), two (Russian
// roulette never plays), many, and a random case (its parameters are in
// the subtest's name).
func TestRenderGPU(t *testing.T) {
	ctx := vktest.Open(t)
	for _, p := range []Params{
		{Width: 64, Height: 36, SPP: 4, Bounces: 8},
		{Width: 37, Height: 23, SPP: 3, Bounces: 5},
		{Width: 1, Height: 1, SPP: 1, Bounces: 4},
		{Width: 50, Height: 20, SPP: 2, Bounces: 1},
		{Width: 31, Height: 17, SPP: 1, Bounces: 2},
		{Width: 20, Height: 12, SPP: 2, Bounces: 24},
		{Width: 1 + rand.IntN(60), Height: 1 + rand.IntN(40), SPP: 1 + rand.IntN(5), Bounces: 1 + rand.IntN(12)},
	} {
		t.Run(fmt.Sprintf("%dx%d_spp%d_bounces%d", p.Width, p.Height, p.SPP, p.Bounces), func(t *testing.T) {
			r, err := NewRenderer(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			checkRender(t, r)
		})
	}
}

// TestRenderDeterministic renders twice in each mode: the same bits each
// time, whatever ran before.
func TestRenderDeterministic(t *testing.T) {
	ctx := vktest.Open(t)
	r, err := NewRenderer(ctx, Params{Width: 45, Height: 30, SPP: 2, Bounces: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	first := checkRender(t, r)
	for _, m := range []Mode{Uncompacted, Compacted, Compacted} {
		if err := Identical(render(t, r, m), first); err != nil {
			t.Errorf("%s again: %v", m, err)
		}
	}
}

// TestRenderGrid spreads the uncompacted bounces and the first compacted
// one over a 2D grid of workgroups, as above maxComputeWorkGroupCount[0],
// by narrowing the grid generate writes: the shader must linearise it.
func TestRenderGrid(t *testing.T) {
	ctx := vktest.Open(t)
	for _, x := range []uint32{1, 3, 7} {
		t.Run(fmt.Sprint("x", x), func(t *testing.T) {
			r, err := NewRenderer(ctx, Params{Width: 33, Height: 20, SPP: 2, Bounces: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			groups := r.grid.X
			r.grid = pipeline.Grid{X: x, Y: (groups + x - 1) / x}
			checkRender(t, r)
		})
	}
}

// TestRenderRecord records a frame into a command buffer of the caller's
// (pipeline.Run), as an engine would, with no poisoning or timer.
func TestRenderRecord(t *testing.T) {
	ctx := vktest.Open(t)
	p := Params{Width: 30, Height: 20, SPP: 2, Bounces: 5}
	r, err := NewRenderer(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	want := Trace(p)
	for _, m := range []Mode{Compacted, Uncompacted} {
		if err := pipeline.Run(ctx, func(rec *pipeline.Recorder) { r.Record(rec, m) }); err != nil {
			t.Fatal(err)
		}
		got, err := r.Read(m, true)
		if err != nil {
			t.Fatal(err)
		}
		got.Counted = nil
		want.Counted = nil
		if err := Identical(got, want); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestNewRendererLimits checks the parameters NewRenderer refuses: bad
// ones, and a queue larger than one binding, named by its limit.
func TestNewRendererLimits(t *testing.T) {
	ctx := vktest.Open(t)
	rays := uint64(ctx.Info().MaxStorageBufferRange)/RaySize + 1
	side := 1
	for uint64(side*side) < rays {
		side *= 2
	}
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Width: 0, Height: 1, SPP: 1, Bounces: 1}, "width 0"},
		{Params{Width: 1, Height: 1, SPP: 1, Bounces: 0}, "0 bounces"},
		{Params{Width: side, Height: side, SPP: 1, Bounces: 1}, "maxStorageBufferRange"},
	} {
		r, err := NewRenderer(ctx, c.p)
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrInvalid naming %q", c.p, err, c.want)
		}
		r.Release()
	}
}
