package raytrace

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCheck(t *testing.T) {
	good := Params{Width: 4, Height: 3, SPP: 2, Bounces: 5}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Params{
		{Width: 0, Height: 3, SPP: 2, Bounces: 5},
		{Width: -1, Height: 3, SPP: 2, Bounces: 5},
		{Width: 4, Height: 0, SPP: 2, Bounces: 5},
		{Width: 4, Height: MaxSide + 1, SPP: 2, Bounces: 5},
		{Width: 4, Height: 3, SPP: 0, Bounces: 5},
		{Width: 4, Height: 3, SPP: MaxSPP + 1, Bounces: 5},
		{Width: 4, Height: 3, SPP: 2, Bounces: 0},
		{Width: 4, Height: 3, SPP: 2, Bounces: MaxBounces + 1},
		{Width: MaxSide, Height: MaxSide, SPP: 8, Bounces: 1}, // 2^33 paths
	} {
		if p.Check() == nil {
			t.Errorf("%+v passed", p)
		}
	}
}

// TestSceneLayout checks the scene block's size against trace.glsl's
// std430 layout (12+12 floats, 4 words, then 16 materials, 16 spheres
// and 4 planes of 32 bytes each), and that the scene fits it.
func TestSceneLayout(t *testing.T) {
	if got, want := binary.Size(gpuScene{}), 48+48+16+32*(maxMaterials+maxSpheres+maxPlanes); got != want {
		t.Errorf("gpuScene is %d bytes, want %d", got, want)
	}
	s := NewScene(64, 36)
	if len(s.Materials) > maxMaterials || len(s.Spheres) > maxSpheres || len(s.Planes) > maxPlanes {
		t.Errorf("%d materials, %d spheres, %d planes", len(s.Materials), len(s.Spheres), len(s.Planes))
	}
	kinds := map[uint32]bool{}
	for _, sp := range s.Spheres {
		kinds[s.Materials[sp.Mat].Kind] = true
	}
	for _, pl := range s.Planes {
		kinds[s.Materials[pl.Mat].Kind] = true
	}
	if len(kinds) != 4 {
		t.Errorf("the surfaces use %d kinds of material, want all 4", len(kinds))
	}
}

// TestLambert checks the diffuse directions: unit length, on the normal's
// side, and cosine-distributed (the mean cosine is 2/3).
func TestLambert(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	normals := []vec{{0, 0, 1}, {0, 0, -1}, {0, 1, 0}, {1, 0, 0}, {0, -1, 0}}
	for range 20 {
		normals = append(normals, vec{float32(rnd.NormFloat64()), float32(rnd.NormFloat64()), float32(rnd.NormFloat64())}.normalize())
	}
	for _, n := range normals {
		sum := 0.0
		const draws = 20000
		for i := range uint32(draws) {
			r := stream(i, 7)
			d := lambert(n, &r)
			if l := d.dot(d); math.Abs(float64(l)-1) > 1e-5 {
				t.Fatalf("n %v: |d|^2 = %g", n, l)
			}
			c := float64(d.dot(n))
			if c < -1e-6 {
				t.Fatalf("n %v: d %v below the surface", n, d)
			}
			sum += c
		}
		if mean := sum / draws; math.Abs(mean-2.0/3) > 0.01 {
			t.Errorf("n %v: mean cosine %g, want 2/3", n, mean)
		}
	}
}

// TestIntersect follows rays to known surfaces: the chrome sphere (unit,
// at (0, 1, 0)) from the front, the floor from above, the mirror panel
// past its edge, and the open sky.
func TestIntersect(t *testing.T) {
	s := NewScene(64, 36)
	cases := []struct {
		o, d   vec
		sphere int
		plane  int
		t      float64
	}{
		{vec{0, 1, 5}, vec{0, 0, -1}, 0, -1, 4},
		{vec{0, 1, 0.5}, vec{0, 0, -1}, 0, -1, 1.5}, // from inside: the far side
		{vec{5, 2, 5}, vec{0, -1, 0}, -1, 0, 2},
		{vec{0, 2.2, 0}, vec{0, 0, -1}, -1, 1, 3.6},
		{vec{0, 2.4, 0}, vec{0, 0, -1}, -1, -1, far}, // above the panel
		{vec{0, 3, 5}, vec{0, 1, 0}, -1, -1, far},
	}
	for _, c := range cases {
		h := s.intersect(c.o, c.d)
		if h.sphere != c.sphere || h.plane != c.plane || math.Abs(float64(h.t)-c.t) > 1e-5*c.t {
			t.Errorf("from %v along %v: %+v, want sphere %d, plane %d at %g", c.o, c.d, h, c.sphere, c.plane, c.t)
		}
	}
}

// TestTrace checks the reference's own rules: every path enters bounce
// 0, no bounce gains rays, most rays end early and some go the whole
// way, radiance is finite and non-negative, a path that sees the sky
// first takes the sky's colour exactly, the pixels are the samples'
// means, and a second run gives the same bits.
func TestTrace(t *testing.T) {
	p := Params{Width: 40, Height: 24, SPP: 3, Bounces: 8}
	r := Trace(p)
	if uint64(r.Rays[0]) != p.Paths() || len(r.Rays) != p.Bounces {
		t.Fatalf("rays %v for %d paths", r.Rays, p.Paths())
	}
	for b := 1; b < len(r.Rays); b++ {
		if r.Rays[b] > r.Rays[b-1] {
			t.Errorf("rays %v: bounce %d gains", r.Rays, b)
		}
	}
	if r.Rays[1] > r.Rays[0]*9/10 || r.Rays[p.Bounces-1] == 0 {
		t.Errorf("rays %v: want many ended at bounce 0 and some at the last", r.Rays)
	}
	for i, v := range r.Samples {
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			t.Fatalf("sample %d: component %d is %g", i/3, i%3, v)
		}
	}
	s := NewScene(p.Width, p.Height)
	ray := s.primary(p, 0) // the top-left corner: sky
	if h := s.intersect(vec(ray.Origin), vec(ray.Dir)); h.sphere >= 0 || h.plane >= 0 {
		t.Fatalf("the top-left ray hits %+v", h)
	}
	if sky := s.sky(vec(ray.Dir)); !slices.Equal(sky[:], r.Samples[:3]) {
		t.Errorf("the top-left sample is %v, the sky there %v", r.Samples[:3], sky)
	}
	if !slices.Equal(r.Pixels, resolve(r.Samples, p)) {
		t.Error("the pixels are not the samples' means")
	}
	if err := Identical(Trace(p), r); err != nil {
		t.Errorf("Trace is not deterministic: %v", err)
	}
}

// TestIdentical: any bit of any pixel, sample or count is a difference.
func TestIdentical(t *testing.T) {
	p := Params{Width: 8, Height: 4, SPP: 2, Bounces: 4}
	want := Trace(p)
	want.Counted = slices.Clone(want.Rays)
	clone := func() *Render {
		return &Render{Params: p, Pixels: slices.Clone(want.Pixels), Samples: slices.Clone(want.Samples),
			Rays: slices.Clone(want.Rays), Counted: slices.Clone(want.Counted)}
	}
	if err := Identical(clone(), want); err != nil {
		t.Fatal(err)
	}
	flip := func(v []float32, i int, bit uint) { v[i] = math.Float32frombits(math.Float32bits(v[i]) ^ 1<<bit) }
	for name, change := range map[string]func(r *Render){
		"pixel":   func(r *Render) { flip(r.Pixels, 13, 0) },
		"sample":  func(r *Render) { flip(r.Samples, 40, 31) },
		"rays":    func(r *Render) { r.Rays[2]++ },
		"counted": func(r *Render) { r.Counted[1]-- },
		"params":  func(r *Render) { r.Params.SPP = 3 },
	} {
		got := clone()
		change(got)
		if err := Identical(got, want); err == nil {
			t.Errorf("a changed %s passed", name)
		}
	}
	got := clone()
	got.Samples = nil // not read back: not compared
	if err := Identical(got, want); err != nil {
		t.Error(err)
	}
}

// TestCheckCounts: the shade's counters must match the result blocks, and
// bounce 0 must hold every path.
func TestCheckCounts(t *testing.T) {
	p := Params{Width: 8, Height: 4, SPP: 2, Bounces: 3}
	good := func() *Render { return &Render{Params: p, Rays: []uint32{64, 30, 10}, Counted: []uint32{64, 30, 10}} }
	if err := CheckCounts(good()); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(r *Render){
		"counters":    func(r *Render) { r.Counted[2] = 11 },
		"first":       func(r *Render) { r.Rays[0], r.Counted[0] = 63, 63 },
		"growth":      func(r *Render) { r.Rays[2], r.Counted[2] = 31, 31 },
		"short":       func(r *Render) { r.Rays = r.Rays[:2] },
		"poisoned":    func(r *Render) { r.Rays[1], r.Counted[1] = math.MaxUint32, math.MaxUint32 },
		"no counters": func(r *Render) { r.Counted = nil },
	} {
		r := good()
		change(r)
		if CheckCounts(r) == nil {
			t.Errorf("%s: passed", name)
		}
	}
}

// TestCompareReference checks the tolerance rule: a few samples off (a
// path that went another way) pass, more than 1% do not; a value within
// RelTol passes; a count off by more than 1% fails.
func TestCompareReference(t *testing.T) {
	p := Params{Width: 32, Height: 20, SPP: 2, Bounces: 6}
	want := Trace(p)
	clone := func() *Render {
		return &Render{Params: p, Pixels: slices.Clone(want.Pixels), Samples: slices.Clone(want.Samples), Rays: slices.Clone(want.Rays)}
	}
	a, err := CompareReference(clone(), want)
	if err != nil || a.ExactSamples != a.Samples || a.Samples != int(p.Paths()) || a.ExactPixels != int(p.Pixels()) || a.MaxCountDiff != 0 {
		t.Fatalf("identical: %+v, %v", a, err)
	}
	// Five diverged paths and their pixels; a value a little off.
	got := clone()
	for k := range 5 {
		got.Samples[3*100*k] += 1
		got.Pixels[3*50*k] += 1
	}
	got.Samples[3*7+1] *= 1 + RelTol/2
	got.Rays[1] += 2 // within 1%
	got.Rays[5]++    // at least one ray
	if a, err := CompareReference(got, want); err != nil || a.AgreeingSamples != a.Samples-5 || a.ExactSamples != a.Samples-6 {
		t.Errorf("5 paths off: %+v, %v", a, err)
	}
	for name, change := range map[string]func(r *Render){
		"2% of the samples": func(r *Render) {
			for i := 0; i < len(r.Samples); i += 3 * 50 {
				r.Samples[i] = r.Samples[i]*1.01 + 0.01
			}
		},
		"2% of the pixels": func(r *Render) {
			for i := 0; i < len(r.Pixels); i += 3 * 50 {
				r.Pixels[i+2] = -1
			}
		},
		"a count": func(r *Render) { r.Rays[1] = r.Rays[1]*103/100 + 2 },
		"size":    func(r *Render) { r.Pixels = r.Pixels[3:] },
	} {
		got := clone()
		change(got)
		if _, err := CompareReference(got, want); err == nil {
			t.Errorf("%s changed: passed", name)
		}
	}
}

// TestImage checks the tone mapping's ends and its treatment of values
// that are not finite.
func TestImage(t *testing.T) {
	r := &Render{Params: Params{Width: 4, Height: 1, SPP: 1, Bounces: 1},
		Pixels: []float32{0, 0, 0, 1e9, 1e9, 1e9, float32(math.NaN()), 0, 0, 0.5, 0.18, 0.02}}
	img := Image(r, 1)
	if b := img.Bounds(); b.Dx() != 4 || b.Dy() != 1 {
		t.Fatalf("bounds %v", b)
	}
	want := [][4]uint8{{0, 0, 0, 255}, {255, 255, 255, 255}, {255, 0, 255, 255}}
	for x, w := range want {
		c := img.RGBAAt(x, 0)
		if [4]uint8{c.R, c.G, c.B, c.A} != w {
			t.Errorf("pixel %d: %v, want %v", x, c, w)
		}
	}
	if c := img.RGBAAt(3, 0); !(c.R > c.G && c.G > c.B && c.B > 0) {
		t.Errorf("pixel 3: %v", c)
	}
}
