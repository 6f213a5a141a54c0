// Package particles is the particle system behind `vkcompact demo`: a
// fountain of particles in a box (or with Params.Grid a swarm in a cube,
// swarm.go, with its uniform grid, grid.go), moved, aged and spawned each
// frame by a compute shader, with the dead ones removed by vkcompact's compaction
// (from one of two buffers into the other, taken in turn) and the next frame dispatched indirectly from the kept count,
// all on the GPU. Simulate runs the same frames in Go, operation for
// operation, so that the GPU's final state can be checked bit for bit.
//
// A frame f, from K particles kept by the previous frame (0 before frame 0):
//
//  1. setup.comp, one invocation: n = min(K + Spawn, Capacity); writes n
//     (the compaction's GPU-side count), K and the update's indirect
//     dispatch arguments; stores K in history[f].
//  2. update.comp, dispatched indirectly: particle i < K takes one step
//     (Particle.Step); K <= i < n becomes Spawn(Seed, f, i-K); flags[i] is 1
//     while the particle lives (age < lifetime).
//  3. the stable compaction of the first n particles by flag, out of
//     place: from buffer f%2 into the other, where frame f+1 finds them
//     (out of place, a GPU takes the single pass; in place only the
//     three phases run).
//
// After the last frame one more setup stores the final count in
// history[Frames]. Nothing is read back until the end.
//
// Bit-exact floats: every float operation is an add, subtract or multiply
// (correctly rounded in Vulkan and in Go), the shader marks them precise so
// that none is fused into an FMA, and the Go code converts every product
// with float32(...) explicitly, which the Go specification says prevents
// fusion. All constants are exact in binary, and values stay far from the
// denormal range, which a driver may flush.
package particles

import (
	"fmt"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/demo/hash"
)

// Particle is one particle: 32 bytes, as the shaders lay it out.
type Particle struct {
	Pos      [3]float32 // metres; y is up, the floor is y = 0
	Vel      [3]float32 // metres per second
	Age      float32    // seconds since the particle spawned
	Lifetime float32    // seconds; the particle dies when Age reaches it
}

// Size is the bytes of one Particle on the GPU.
const Size = 32

// The simulation's constants, the same in update.comp; all exact in binary.
const (
	// DT is the time step: 1/64 s per frame.
	DT float32 = 0.015625
	// GravityDT is the gravity of -9.75 m/s² times DT.
	GravityDT float32 = -0.15234375
	// Drag is the fraction of its velocity a particle keeps per frame.
	Drag float32 = 0.9921875
	// Bounce scales the vertical velocity at the floor (reversing it).
	Bounce float32 = -0.75
	// Half is half the box's width: the walls stand at x and z = ±Half.
	Half float32 = 2
)

// MaxFrames bounds Params.Frames (a timestamp and a history word each).
const MaxFrames = 100000

// Params describes a run.
type Params struct {
	Capacity uint32 // particles the buffer holds
	Frames   int    // frames to simulate
	Spawn    uint32 // particles spawned per frame, fewer when the buffer is full
	Seed     uint32 // seeds the spawn hash
	// Path is the compaction's (compact.Options.Path); the zero value,
	// PathAuto, takes the single pass on GPUs.
	Path vkcompact.Path
	// Grid makes the scene the swarm (swarm.go) and builds the uniform
	// grid of the live particles after every frame's compaction
	// (grid.go): cells, a sort by cell, the run-length encoding into each
	// cell's start and count, and each particle's neighbour count and
	// push, which the next frame's update applies.
	Grid bool
}

// Check reports parameters that describe no run.
func (p Params) Check() error {
	switch {
	case p.Capacity == 0:
		return fmt.Errorf("particles: capacity 0: want at least 1")
	case p.Frames < 1 || p.Frames > MaxFrames:
		return fmt.Errorf("particles: %d frames: want 1 to %d", p.Frames, MaxFrames)
	case p.Spawn == 0:
		return fmt.Errorf("particles: spawn 0: want at least 1 particle per frame")
	}
	return nil
}

// State is the end of a run: the live particles in buffer order, and the
// live count after each frame.
type State struct {
	Particles []Particle
	Live      []uint32 // len Frames: Live[f] is the count kept by frame f
	// With Params.Grid: the last frame's grid, and the occupied cells of
	// every frame.
	Grid     *Grid
	Occupied []uint32
}

// Spawn returns the j-th particle spawned in the given frame: near the
// middle of the floor, flying up and out, with a lifetime of 0.25 to 1.5 s.
func Spawn(seed uint32, frame uint32, j uint32) Particle {
	h := hash.PCG(hash.PCG(hash.PCG(seed)+frame) + j)
	var u [7]float32
	for k := range u {
		h = hash.PCG(h)
		u[k] = hash.Unit(h)
	}
	return Particle{
		Pos:      [3]float32{float32(u[0]-0.5) * 0.25, u[1] * 0.125, float32(u[2]-0.5) * 0.25},
		Vel:      [3]float32{float32(u[3]-0.5) * 4, float32(u[4]*3) + 3, float32(u[5]-0.5) * 4},
		Lifetime: float32(u[6]*1.25) + 0.25,
	}
}

// wall reflects a coordinate and its velocity off the walls at ±Half.
func wall(pos, vel *float32) {
	switch {
	case *pos < -Half:
		*pos = -2*Half - *pos
		*vel = -*vel
	case *pos > Half:
		*pos = 2*Half - *pos
		*vel = -*vel
	}
}

// Step advances the particle by one frame, as update.comp does: it ages,
// falls, slows, moves, and bounces off the floor and the walls. Each
// float32 operation is rounded on its own.
func (p *Particle) Step() {
	p.Age = p.Age + DT
	vy := p.Vel[1] + GravityDT
	vx := float32(p.Vel[0] * Drag)
	vy = float32(vy * Drag)
	vz := float32(p.Vel[2] * Drag)
	px := p.Pos[0] + float32(vx*DT)
	py := p.Pos[1] + float32(vy*DT)
	pz := p.Pos[2] + float32(vz*DT)
	if py < 0 {
		py = -py
		vy = float32(vy * Bounce)
	}
	wall(&px, &vx)
	wall(&pz, &vz)
	p.Pos = [3]float32{px, py, pz}
	p.Vel = [3]float32{vx, vy, vz}
}

// Alive reports whether the particle survives its frame's compaction.
func (p *Particle) Alive() bool { return p.Age < p.Lifetime }

// Simulate runs the frames of p in Go, as the GPU does: the kept particles
// step, the new ones spawn after them, and a stable compaction keeps the
// live ones in order. With p.Grid the scene is the swarm (swarm.go),
// whose every frame builds the grid of its live particles (BuildGrid),
// their pushes for the next frame's step; the state holds the last
// frame's grid and the occupied cells of every frame.
func Simulate(p Params) State {
	if p.Grid {
		return SimulateSwarm(p, nil)
	}
	return SimulateEach(p, nil)
}

// SimulateSwarm is Simulate of a swarm (Params.Grid), calling each, when
// not nil, with every frame's live particles and grid (both reused: copy
// what is kept).
func SimulateSwarm(p Params, each func(frame int, live []Particle, g *Grid)) State {
	side := Side(p.Capacity)
	b := newGridBuilder(side)
	ps := make([]Particle, 0, p.Capacity)
	live := make([]uint32, p.Frames)
	occupied := make([]uint32, p.Frames)
	var g Grid
	for f := range p.Frames {
		kept := uint32(len(ps))
		for i := range ps {
			ps[i].StepSwarm(g.push(i), float32(side))
		}
		for j := range min(p.Spawn, p.Capacity-kept) {
			ps = append(ps, SpawnSwarm(p.Seed, uint32(f), j, side))
		}
		ps = keepAlive(ps)
		live[f] = uint32(len(ps))
		g = b.build(ps)
		occupied[f] = uint32(len(g.Unique))
		if each != nil {
			each(f, ps, &g)
		}
	}
	return State{Particles: ps, Live: live, Grid: &g, Occupied: occupied}
}

// keepAlive is the stable compaction of ps: the live ones, in order, in
// place.
func keepAlive(ps []Particle) []Particle {
	out := ps[:0]
	for _, q := range ps {
		if q.Alive() {
			out = append(out, q)
		}
	}
	return out
}

// SimulateEach is Simulate of the fountain (no grid), calling each, when
// not nil, with every frame's live particles after its compaction (the
// slice is reused: copy what is kept).
func SimulateEach(p Params, each func(frame int, live []Particle)) State {
	ps := make([]Particle, 0, p.Capacity)
	live := make([]uint32, p.Frames)
	for f := range p.Frames {
		kept := uint32(len(ps))
		for i := range ps {
			ps[i].Step()
		}
		for j := range min(p.Spawn, p.Capacity-kept) {
			ps = append(ps, Spawn(p.Seed, uint32(f), j))
		}
		ps = keepAlive(ps)
		live[f] = uint32(len(ps))
		if each != nil {
			each(f, ps)
		}
	}
	return State{Particles: ps, Live: live}
}

// Compare checks got against want particle for particle, bit for bit, and
// the live count of every frame. It returns nil when they are identical,
// else an error that counts the differences and describes the first.
func Compare(got, want State) error {
	var first string
	diffs := 0
	note := func(format string, args ...any) {
		if diffs == 0 {
			first = fmt.Sprintf(format, args...)
		}
		diffs++
	}
	if len(got.Live) != len(want.Live) {
		note("%d frames of live counts, want %d", len(got.Live), len(want.Live))
	}
	for f := range min(len(got.Live), len(want.Live)) {
		if got.Live[f] != want.Live[f] {
			note("frame %d: %d live, want %d", f, got.Live[f], want.Live[f])
		}
	}
	if len(got.Particles) != len(want.Particles) {
		note("%d particles at the end, want %d", len(got.Particles), len(want.Particles))
	}
	for i := range min(len(got.Particles), len(want.Particles)) {
		if field, ok := sameBits(&got.Particles[i], &want.Particles[i]); !ok {
			note("particle %d: %s is %v, want %v (%+v, want %+v)", i, field,
				fieldValue(&got.Particles[i], field), fieldValue(&want.Particles[i], field),
				got.Particles[i], want.Particles[i])
		}
	}
	if diffs == 0 && want.Grid != nil {
		if got.Grid == nil {
			return fmt.Errorf("no grid read back")
		}
		return CompareGrid(*got.Grid, *want.Grid, got.Occupied, want.Occupied)
	}
	if diffs == 0 {
		return nil
	}
	return fmt.Errorf("%d difference(s) from the Go simulation; the first: %s", diffs, first)
}

// fields lists a particle's float32s by name.
func fields(p *Particle) []struct {
	name string
	v    *float32
} {
	return []struct {
		name string
		v    *float32
	}{
		{"pos.x", &p.Pos[0]}, {"pos.y", &p.Pos[1]}, {"pos.z", &p.Pos[2]},
		{"vel.x", &p.Vel[0]}, {"vel.y", &p.Vel[1]}, {"vel.z", &p.Vel[2]},
		{"age", &p.Age}, {"lifetime", &p.Lifetime},
	}
}

// sameBits compares two particles' bits, and names the first field that
// differs.
func sameBits(a, b *Particle) (string, bool) {
	fa, fb := fields(a), fields(b)
	for k := range fa {
		if math.Float32bits(*fa[k].v) != math.Float32bits(*fb[k].v) {
			return fa[k].name, false
		}
	}
	return "", true
}

// fieldValue formats one named field with its bits.
func fieldValue(p *Particle, name string) string {
	for _, f := range fields(p) {
		if f.name == name {
			return fmt.Sprintf("%g (%#08x)", *f.v, math.Float32bits(*f.v))
		}
	}
	return "?"
}

// particleBits returns a particle's eight words.
func particleBits(p Particle) (b [8]uint32) {
	for k, f := range fields(&p) {
		b[k] = math.Float32bits(*f.v)
	}
	return b
}
