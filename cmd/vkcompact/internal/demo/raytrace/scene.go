package raytrace

import "math"

// Material kinds, as the shaders number them.
const (
	Diffuse  = 0 // reflects A (albedo) in a cosine-weighted direction
	Mirror   = 1 // reflects A (tint) in the mirror direction
	Emissive = 2 // emits B and ends the path
	Checker  = 3 // diffuse: A or B on alternate unit squares of x and z
)

// The scene's capacities, as the shaders size its arrays.
const (
	maxMaterials = 16
	maxSpheres   = 16
	maxPlanes    = 4
)

// Material is a surface: its kind and two colours (see the kinds).
type Material struct {
	Kind uint32
	A, B vec
}

// Sphere is a sphere by its centre, its squared radius and the reciprocal
// of its radius (which scales its normals), and its material.
type Sphere struct {
	Center   vec
	R2, InvR float32
	Mat      uint32
}

// Plane is an axis-aligned rectangle: the points whose coordinate Axis is
// Pos, and whose coordinates (Axis+1)%3 and (Axis+2)%3 lie within Lo and
// Hi. It reflects on both sides.
type Plane struct {
	Axis   uint32
	Pos    float32
	Lo, Hi [2]float32
	Mat    uint32
}

// Scene is the fixed scene: a camera for one image size, the sky, and the
// surfaces. Rays that hit nothing take the sky's colour: a gradient from
// the horizon to the zenith and a soft sun.
type Scene struct {
	Origin, Corner, DU, DV vec // the camera: a ray through (x, y) heads to Corner + x*DU + y*DV
	Horizon, Zenith        vec
	Sun, SunColor          vec // Sun is a unit vector
	Materials              []Material
	Spheres                []Sphere
	Planes                 []Plane
}

// f32 rounds a float64 vector to float32, once: the scene's numbers are
// then the same bits for both tracers, whatever their decimal origin.
func f32(x, y, z float64) vec { return vec{float32(x), float32(y), float32(z)} }

// NewScene returns the scene for a width × height image: a chrome sphere,
// two diffuse ones and a lamp on a checkered floor, a ring of small
// spheres (diffuse, gold, glowing) placed by a hash, and a mirror panel
// behind them, under an open sky. The camera looks down on them slightly,
// so that the top of the frame is sky.
func NewScene(width, height int) *Scene {
	s := &Scene{
		Horizon:  f32(0.50, 0.60, 0.78),
		Zenith:   f32(0.10, 0.22, 0.58),
		SunColor: f32(3.2, 2.7, 2.0),
		Materials: []Material{
			{Kind: Checker, A: f32(0.72, 0.70, 0.66), B: f32(0.28, 0.30, 0.34)},
			{Kind: Mirror, A: f32(0.92, 0.92, 0.95)},
			{Kind: Diffuse, A: f32(0.80, 0.22, 0.15)},
			{Kind: Diffuse, A: f32(0.15, 0.35, 0.80)},
			{Kind: Emissive, B: f32(5, 2.6, 0.9)},
			{Kind: Mirror, A: f32(0.80, 0.85, 0.88)},
		},
	}
	sun := [3]float64{-0.45, 0.55, 0.70}
	l := math.Sqrt(sun[0]*sun[0] + sun[1]*sun[1] + sun[2]*sun[2])
	s.Sun = f32(sun[0]/l, sun[1]/l, sun[2]/l)
	sphere := func(x, y, z, r float64, mat uint32) {
		s.Spheres = append(s.Spheres, Sphere{Center: f32(x, y, z), R2: float32(r * r), InvR: float32(1 / r), Mat: mat})
	}
	sphere(0, 1, 0, 1, 1)
	sphere(-2.1, 0.7, 0.9, 0.7, 2)
	sphere(2.0, 0.8, -0.4, 0.8, 3)
	sphere(0.95, 0.3, 1.9, 0.3, 4)
	// The ring: eight small spheres around the middle, each with its
	// own material: diffuse in a hashed colour, gold, or glowing.
	for k := range 8 {
		rn := stream(uint32(k), 1000)
		u := func() float64 { return float64(rn.next()) }
		angle := (float64(k) + 0.3*u()) * math.Pi / 4
		r := 0.22 + 0.12*u()
		m := Material{Kind: Diffuse, A: f32(0.2+0.7*u(), 0.2+0.7*u(), 0.2+0.7*u())}
		switch k % 4 {
		case 1:
			m = Material{Kind: Mirror, A: f32(0.95, 0.75, 0.35)}
		case 3:
			m = Material{Kind: Emissive, B: f32(0.5+3*u(), 0.5+3*u(), 0.5+3*u())}
		}
		s.Materials = append(s.Materials, m)
		sphere(3.1*math.Cos(angle), r, 3.1*math.Sin(angle)-0.3, r, uint32(len(s.Materials)-1))
	}
	s.Planes = []Plane{
		{Axis: 1, Pos: 0, Lo: [2]float32{-256, -256}, Hi: [2]float32{256, 256}, Mat: 0}, // the floor: z, x
		{Axis: 2, Pos: -3.6, Lo: [2]float32{-3.3, 0}, Hi: [2]float32{3.3, 2.3}, Mat: 5}, // the panel: x, y
	}
	s.camera(width, height)
	return s
}

// camera points the camera, a 40° vertical field of view, for the image
// size.
func (s *Scene) camera(width, height int) {
	eye := [3]float64{0, 1.45, 6.4}
	at := [3]float64{0, 0.8, 0}
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	unitv := func(a [3]float64) [3]float64 {
		l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
		return [3]float64{a[0] / l, a[1] / l, a[2] / l}
	}
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	fwd := unitv(sub(at, eye))
	right := unitv(cross(fwd, [3]float64{0, 1, 0}))
	up := cross(right, fwd)
	halfH := math.Tan(20 * math.Pi / 180)
	halfW := halfH * float64(width) / float64(height)
	s.Origin = f32(eye[0], eye[1], eye[2])
	var corner, du, dv [3]float64
	for c := range 3 {
		corner[c] = fwd[c] - right[c]*halfW + up[c]*halfH
		du[c] = right[c] * 2 * halfW / float64(width)
		dv[c] = -up[c] * 2 * halfH / float64(height)
	}
	s.Corner = f32(corner[0], corner[1], corner[2])
	s.DU = f32(du[0], du[1], du[2])
	s.DV = f32(dv[0], dv[1], dv[2])
}

// gpuScene is the scene as the shaders read it (trace.glsl's Scene block,
// std430): every field 4 bytes, so no padding.
type gpuScene struct {
	Camera   [4][3]float32 // origin, corner, du, dv
	Sky      [4][3]float32 // horizon, zenith, sun, sun colour
	NSpheres uint32
	NPlanes  uint32
	_        [2]uint32
	Mats     [maxMaterials]gpuMaterial
	Spheres  [maxSpheres]gpuSphere
	Planes   [maxPlanes]gpuPlane
}

type gpuMaterial struct {
	Kind uint32
	A, B [3]float32
	_    uint32
}

type gpuSphere struct {
	Center   [3]float32
	R2, InvR float32
	Mat      uint32
	_        [2]uint32
}

type gpuPlane struct {
	Axis   uint32
	Pos    float32
	Lo, Hi [2]float32
	Mat    uint32
	_      uint32
}

// gpu lays the scene out for the shaders.
func (s *Scene) gpu() gpuScene {
	g := gpuScene{
		Camera:   [4][3]float32{s.Origin, s.Corner, s.DU, s.DV},
		Sky:      [4][3]float32{s.Horizon, s.Zenith, s.Sun, s.SunColor},
		NSpheres: uint32(len(s.Spheres)),
		NPlanes:  uint32(len(s.Planes)),
	}
	for i, m := range s.Materials {
		g.Mats[i] = gpuMaterial{Kind: m.Kind, A: m.A, B: m.B}
	}
	for i, sp := range s.Spheres {
		g.Spheres[i] = gpuSphere{Center: sp.Center, R2: sp.R2, InvR: sp.InvR, Mat: sp.Mat}
	}
	for i, p := range s.Planes {
		g.Planes[i] = gpuPlane{Axis: p.Axis, Pos: p.Pos, Lo: p.Lo, Hi: p.Hi, Mat: p.Mat}
	}
	return g
}
