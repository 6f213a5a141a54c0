// Package raytrace is the wavefront path tracer behind `vkcompact
// raytrace`: the ray case of stream compaction, for which Billeter et al.
// wrote theirs. Every bounce is one dispatch over a queue of rays; most
// rays end early (they leave for the open sky, hit a lamp, or lose at
// Russian roulette), and vkcompact compacts the queue between bounces so
// that later bounces pay only for the live ones. Everything stays on the
// GPU: the next bounce is dispatched indirectly from the compaction's
// result block, the per-bounce counts are read once at the end, and a
// frame is one command buffer.
//
// A frame of W × H pixels and S samples per pixel traces N = W*H*S paths,
// path p = pixel*S + sample, pixel = y*W + x:
//
//  1. generate.comp: ray i is path i's camera ray; its radiance slot is
//     zeroed; the first result block gets N and the dispatch over N rays;
//     the bounce counters are reset.
//  2. for each bounce b < B, shade.comp over the rays entering it,
//     dispatched indirectly: each ray meets the scene, and either ends
//     (writing its light, if any, to its path's radiance slot, and marking
//     itself dead) or is replaced by its continuation; a counter adds up
//     the continuing rays. Compacted, vkcompact then moves the live rays
//     of the queue to the other queue, and its result block holds the
//     next bounce's count and dispatch. Uncompacted, the dead rays stay
//     and every bounce walks all N slots, skipping them.
//  3. resolve.comp: each pixel's colour is the mean of its S samples,
//     summed in sample order.
//
// Deterministic: a path's random numbers are a hash of its index and the
// bounce, never of its place in the queue, and it writes only its own
// radiance slot, once. So compaction cannot change one bit of the image,
// and the renderer checks that it does not. Trace, the plain Go tracer,
// repeats the shaders' arithmetic operation for operation (arith.go says
// how), so that the GPU agrees with it too (CompareReference says how
// closely it must).
package raytrace

import (
	"fmt"
	"math"
)

// Params describes a render.
type Params struct {
	Width, Height int // pixels
	SPP           int // samples (paths) per pixel
	Bounces       int // B: the most surfaces a path meets
}

// Limits on Params.
const (
	MaxSide    = 1 << 15 // pixels in width or height
	MaxSPP     = 1 << 12
	MaxBounces = 64
	// MaxPaths keeps a path's index below dead, the mark of a dead ray.
	MaxPaths = 1<<32 - 2
)

// Check reports parameters that describe no render.
func (p Params) Check() error {
	switch {
	case p.Width < 1 || p.Width > MaxSide:
		return fmt.Errorf("raytrace: width %d: want 1 to %d", p.Width, MaxSide)
	case p.Height < 1 || p.Height > MaxSide:
		return fmt.Errorf("raytrace: height %d: want 1 to %d", p.Height, MaxSide)
	case p.SPP < 1 || p.SPP > MaxSPP:
		return fmt.Errorf("raytrace: %d samples per pixel: want 1 to %d", p.SPP, MaxSPP)
	case p.Bounces < 1 || p.Bounces > MaxBounces:
		return fmt.Errorf("raytrace: %d bounces: want 1 to %d", p.Bounces, MaxBounces)
	case p.Paths() > MaxPaths:
		return fmt.Errorf("raytrace: %d x %d pixels x %d samples is %d paths: at most %d", p.Width, p.Height, p.SPP, p.Paths(), uint64(MaxPaths))
	}
	return nil
}

// Pixels returns W*H.
func (p Params) Pixels() uint64 { return uint64(p.Width) * uint64(p.Height) }

// Paths returns N = W*H*S, the rays of the first bounce.
func (p Params) Paths() uint64 { return p.Pixels() * uint64(p.SPP) }

// The tracer's constants, the same in trace.glsl.
const (
	dead    = 0xffffffff // a dead ray's path
	tMin    = 1.0 / 4096 // nearer hits are the surface the ray leaves
	far     = 1e30       // beyond any hit
	offset  = 1.0 / 1024 // a continuing ray starts this far off its surface
	minAxis = 1.0 / (1 << 20)
	// Russian roulette from bounce rouletteFrom on: a path continues with
	// the probability of its largest throughput component, clamped to
	// [rouletteMin, rouletteMax], and is reweighted by its inverse.
	rouletteFrom = 2
	rouletteMin  = 0.0625
	rouletteMax  = 0.9375
	// A lambertian sample takes a point in the unit disk by rejection, at
	// most diskTries pairs of numbers (the centre if all miss: 2^-64).
	diskTries = 32
	// The sun's lobe is (d·sun)^(2^sunSquarings), counted where d·sun >
	// sunCut (below, it is under 2^-16).
	sunCut       = 0.5
	sunSquarings = 4
)

// Ray is one ray of the queue: 40 bytes, as the shaders lay it out.
type Ray struct {
	Path       uint32 // pixel*S + sample; dead (0xffffffff) once the path ended
	Origin     [3]float32
	Dir        [3]float32
	Throughput [3]float32
}

// RaySize is the bytes of one Ray on the GPU.
const RaySize = 40

// primary returns path's camera ray: through its pixel, jittered by the
// path's first two numbers.
func (s *Scene) primary(p Params, path uint32) Ray {
	pixel := path / uint32(p.SPP)
	x, y := pixel%uint32(p.Width), pixel/uint32(p.Width)
	r := stream(path, 0)
	fx := float32(x) + r.next()
	fy := float32(y) + r.next()
	d := s.Corner.add(s.DU.scale(fx)).add(s.DV.scale(fy))
	return Ray{Path: path, Origin: s.Origin, Dir: d.normalize(), Throughput: vec{1, 1, 1}}
}

// hit is what a ray meets: a sphere or a plane (by index), or nothing.
type hit struct {
	t      float32
	sphere int // -1 when the hit is a plane or nothing
	plane  int // -1 when the hit is a sphere or nothing
}

// intersect finds the nearest surface along o + t*d, t > tMin.
func (s *Scene) intersect(o, d vec) hit {
	h := hit{t: far, sphere: -1, plane: -1}
	for k := range s.Spheres {
		sp := &s.Spheres[k]
		oc := o.sub(sp.Center)
		b := oc.dot(d)
		c := oc.dot(oc) - sp.R2
		disc := float32(b*b) - c
		if disc > 0 {
			q := sqrtPos(disc)
			t := -b - q
			if !(t > tMin) {
				t = -b + q
			}
			if t > tMin && t < h.t {
				h = hit{t: t, sphere: k, plane: -1}
			}
		}
	}
	for k := range s.Planes {
		pl := &s.Planes[k]
		a := pl.Axis
		da := d[a]
		if !(da > minAxis || da < -minAxis) {
			continue // parallel, or nearly
		}
		t := float32(float32(pl.Pos-o[a]) * recip(da))
		if !(t > tMin && t < h.t) {
			continue
		}
		u, v := (a+1)%3, (a+2)%3
		hu := o[u] + float32(t*d[u])
		hv := o[v] + float32(t*d[v])
		if hu >= pl.Lo[0] && hu <= pl.Hi[0] && hv >= pl.Lo[1] && hv <= pl.Hi[1] {
			h = hit{t: t, sphere: -1, plane: k}
		}
	}
	return h
}

// sky is the light from direction d.
func (s *Scene) sky(d vec) vec {
	t := float32(0)
	if d[1] > 0.5 {
		t = 1
	} else if d[1] > 0 {
		t = float32(d[1] * 2)
	}
	col := s.Horizon.add(s.Zenith.sub(s.Horizon).scale(t))
	if c := d.dot(s.Sun); c > sunCut {
		for range sunSquarings {
			c = float32(c * c)
		}
		col = col.add(s.SunColor.scale(c))
	}
	return col
}

// floorInt is floor(x) as an integer, x clamped to ±2^20 first.
func floorInt(x float32) int32 {
	x = min(max(x, -1<<20), 1<<20)
	return int32(math.Floor(float64(x)))
}

// lambert returns a cosine-weighted direction about the unit normal n:
// a point of the unit disk lifted onto the hemisphere, in Duff et al.'s
// orthonormal basis ("Building an Orthonormal Basis, Revisited", 2017).
func lambert(n vec, r *rng) vec {
	var x, y, r2 float32
	for range diskTries {
		x = float32(r.next()*2) - 1
		y = float32(r.next()*2) - 1
		r2 = float32(x*x) + float32(y*y)
		if r2 < 1 {
			break
		}
	}
	if !(r2 < 1) {
		x, y, r2 = 0, 0, 0
	}
	z := sqrtPos(1 - r2)
	sign := float32(1)
	if !(n[2] >= 0) {
		sign = -1
	}
	a := -recip(sign + n[2])
	b := float32(float32(n[0]*n[1]) * a)
	t := vec{1 + float32(float32(float32(sign*n[0])*n[0])*a), float32(sign * b), float32(-sign * n[0])}
	bt := vec{b, sign + float32(float32(n[1]*n[1])*a), -n[1]}
	return t.scale(x).add(bt.scale(y)).add(n.scale(z))
}

// shade takes ray r through bounce b of bounces: it meets the scene and
// either continues (r becomes its continuation; alive is true) or ends,
// with light when lit.
func (s *Scene) shade(r *Ray, b, bounces int) (light vec, lit, alive bool) {
	o, d, tp := vec(r.Origin), vec(r.Dir), vec(r.Throughput)
	h := s.intersect(o, d)
	if h.sphere < 0 && h.plane < 0 {
		return tp.mul(s.sky(d)), true, false
	}
	p := o.add(d.scale(h.t))
	var n vec
	var m *Material
	if h.sphere >= 0 {
		sp := &s.Spheres[h.sphere]
		n = p.sub(sp.Center).scale(sp.InvR)
		m = &s.Materials[sp.Mat]
	} else {
		pl := &s.Planes[h.plane]
		n[pl.Axis] = 1
		if !(d[pl.Axis] < 0) {
			n[pl.Axis] = -1
		}
		m = &s.Materials[pl.Mat]
	}
	if m.Kind == Emissive {
		return tp.mul(m.B), true, false
	}
	if b+1 >= bounces {
		return vec{}, false, false
	}
	rn := stream(r.Path, uint32(b)+1)
	switch m.Kind {
	case Mirror:
		tp = tp.mul(m.A)
		d = d.sub(n.scale(float32(2 * d.dot(n))))
	case Checker:
		albedo := m.A
		if (floorInt(p[0])+floorInt(p[2]))&1 != 0 {
			albedo = m.B
		}
		tp = tp.mul(albedo)
		d = lambert(n, &rn)
	default:
		tp = tp.mul(m.A)
		d = lambert(n, &rn)
	}
	if b >= rouletteFrom {
		q := min(max(maxf(tp[0], maxf(tp[1], tp[2])), rouletteMin), rouletteMax)
		if rn.next() >= q {
			return vec{}, false, false
		}
		tp = tp.scale(recip(q))
	}
	r.Origin = p.add(n.scale(offset))
	r.Dir = d
	r.Throughput = tp
	return vec{}, false, true
}

// Render is a finished render, on the GPU or in Go.
type Render struct {
	Params Params
	// Pixels holds each pixel's colour, RGB, rows from the top: the mean
	// of its samples, summed in sample order and scaled by 1/S.
	Pixels []float32
	// Samples holds each path's radiance, RGB, by path index (nil when
	// not read back).
	Samples []float32
	// Rays[b] counts the rays entering bounce b: Rays[0] is every path.
	Rays []uint32
	// Counted is Rays as the shade kernel's own counters have it (GPU
	// renders only).
	Counted []uint32
}

// Trace renders p in Go, as the shaders do.
func Trace(p Params) *Render {
	s := NewScene(p.Width, p.Height)
	n := uint32(p.Paths())
	out := &Render{Params: p, Samples: make([]float32, 3*int(n)), Rays: make([]uint32, p.Bounces)}
	live := make([]Ray, n)
	for i := range n {
		live[i] = s.primary(p, i)
	}
	for b := range p.Bounces {
		out.Rays[b] = uint32(len(live))
		next := live[:0]
		for _, r := range live {
			light, lit, alive := s.shade(&r, b, p.Bounces)
			if lit {
				copy(out.Samples[3*r.Path:], light[:])
			}
			if alive {
				next = append(next, r)
			}
		}
		live = next
	}
	out.Pixels = resolve(out.Samples, p)
	return out
}

// resolve averages each pixel's samples, as resolve.comp does.
func resolve(samples []float32, p Params) []float32 {
	spp := p.SPP
	inv := float32(1) / float32(spp)
	pixels := make([]float32, 3*p.Pixels())
	for px := range int(p.Pixels()) {
		for c := range 3 {
			sum := samples[3*px*spp+c]
			for s := 1; s < spp; s++ {
				sum += samples[3*(px*spp+s)+c]
			}
			pixels[3*px+c] = float32(sum * inv)
		}
	}
	return pixels
}
