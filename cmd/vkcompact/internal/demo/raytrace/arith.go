package raytrace

import (
	"math"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/demo/hash"
)

// The arithmetic both tracers share. Vulkan rounds a float addition,
// subtraction and multiplication correctly, as Go does, but allows 2.5 ULP
// for a division and more for sqrt, inversesqrt and the transcendental
// functions. So neither tracer divides or calls sqrt: rsqrt and recip
// below start from an integer bit trick and refine with Newton steps made
// of additions and multiplications, which give the same bits on both
// sides. Every product that feeds a sum is converted with float32(...),
// which the Go specification says prevents its fusion into an FMA; the
// shaders mark the same operations precise (NoContraction). The shaders'
// trace.glsl has the same functions, operation for operation.

// vec is three float32s, each operation on them rounded on its own.
type vec [3]float32

func (a vec) add(b vec) vec { return vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec) sub(b vec) vec { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// scale multiplies every component by s.
func (a vec) scale(s float32) vec {
	return vec{float32(a[0] * s), float32(a[1] * s), float32(a[2] * s)}
}

// mul multiplies component by component.
func (a vec) mul(b vec) vec {
	return vec{float32(a[0] * b[0]), float32(a[1] * b[1]), float32(a[2] * b[2])}
}

// dot is (a.x*b.x + a.y*b.y) + a.z*b.z, in that order.
func (a vec) dot(b vec) float32 {
	return float32(float32(a[0]*b[0])+float32(a[1]*b[1])) + float32(a[2]*b[2])
}

// maxf is a > b ? a : b, as the shaders write it (GLSL's max may return
// either zero of max(-0, +0)).
func maxf(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

// rsqrt approximates 1/sqrt(x) for a positive normal x: Lomont's
// constant, then three Newton steps (relative error about 2^-23).
func rsqrt(x float32) float32 {
	y := math.Float32frombits(0x5f375a86 - math.Float32bits(x)>>1)
	h := float32(0.5 * x)
	for range 3 {
		y = float32(y * float32(1.5-float32(float32(h*y)*y)))
	}
	return y
}

// sqrtPos approximates sqrt(x) for a positive normal x as x * rsqrt(x).
func sqrtPos(x float32) float32 { return float32(x * rsqrt(x)) }

// recip approximates 1/x for 2^-64 <= |x| <= 2^64: an integer guess
// within 12%, then four Newton steps.
func recip(x float32) float32 {
	neg := x < 0
	if neg {
		x = -x
	}
	y := math.Float32frombits(0x7ef311c3 - math.Float32bits(x))
	for range 4 {
		y = float32(y * float32(2-float32(x*y)))
	}
	if neg {
		return -y
	}
	return y
}

// normalize scales a to unit length (a must not be near zero).
func (a vec) normalize() vec { return a.scale(rsqrt(a.dot(a))) }

// rng is a path's random numbers at one step: a hash of the path (its
// pixel and sample) and the step, never of a queue slot.
type rng uint32

// stream starts path's numbers for step k: 0 for the camera, b+1 for
// bounce b.
func stream(path, k uint32) rng { return rng(hash.PCG(path ^ hash.PCG(k))) }

// next returns the stream's next number in [0, 1).
func (r *rng) next() float32 {
	*r = rng(hash.PCG(uint32(*r)))
	return hash.Unit(uint32(*r))
}
