package particles

import (
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/demo/hash"
)

// The swarm: the scene of `vkcompact demo -grid`, whose cost is the
// grid's rather than the scene's crowding. Its units are grid cells: a
// cell is 1 on a side, and 1 is the distance at which two particles
// interact, so every neighbour of a particle lies in the 27 cells around
// its own. The particles live in a cube of Side(capacity) cells, sized
// so that a full buffer holds SwarmDensity particles per cell or a few
// more; they spawn
// anywhere in it (an emitter spread over the volume, not a point), with
// small random velocities and no gravity, and each frame every pair
// closer than 1 pushes apart with a force (1 - d²) along the line between
// them (grid_neighbours.comp), which the next frame's update adds to the
// velocity before the drag. So the density stays bounded wherever the
// particles go, as a particle engine's does: about SwarmDensity per cell,
// some 20 or more neighbours each.
//
// Every float operation is an add, subtract or multiply, each rounded on
// its own (precise in the shaders, float32(...) conversions here), and the
// forces are summed in one order on both sides (the 27 cells in a fixed
// order, each cell's particles in the sort's order), so the GPU's state
// matches the Go simulation bit for bit.
const (
	// SwarmDensity is the fewest particles per cell a full buffer holds
	// (but in the smallest cube).
	SwarmDensity = 6
	// MaxSide bounds the cube's side in cells: 2^21 cells, 21 bits of
	// cell index.
	MaxSide = 128
	// SwarmDrag is the fraction of its velocity a particle keeps per
	// frame, after the push.
	SwarmDrag float32 = 0.9375
)

// Side returns the side in cells of the swarm's cube for capacity
// particles: the largest at which a full buffer holds at least
// SwarmDensity particles per cell, from 2 to MaxSide.
func Side(capacity uint32) uint32 {
	s := uint64(2)
	for s < MaxSide && (s+1)*(s+1)*(s+1)*SwarmDensity <= uint64(capacity) {
		s++
	}
	return uint32(s)
}

// SpawnSwarm returns the j-th particle spawned in the given frame of a
// swarm in a cube of side cells: anywhere in the cube, at up to one cell
// per second along each axis, with a lifetime of 0.5 to 1 s.
func SpawnSwarm(seed, frame, j, side uint32) Particle {
	h := hash.PCG(hash.PCG(hash.PCG(seed)+frame) + j)
	var u [7]float32
	for k := range u {
		h = hash.PCG(h)
		u[k] = hash.Unit(h)
	}
	s := float32(side)
	return Particle{
		Pos:      [3]float32{float32(u[0] * s), float32(u[1] * s), float32(u[2] * s)},
		Vel:      [3]float32{float32(u[3]-0.5) * 2, float32(u[4]-0.5) * 2, float32(u[5]-0.5) * 2},
		Lifetime: float32(u[6]*0.5) + 0.5,
	}
}

// wallAt reflects a coordinate and its velocity off the cube's faces at
// 0 and side.
func wallAt(pos, vel *float32, side float32) {
	switch {
	case *pos < 0:
		*pos = -*pos
		*vel = -*vel
	case *pos > side:
		*pos = 2*side - *pos
		*vel = -*vel
	}
}

// StepSwarm advances a swarm particle by one frame, as grid_update.comp
// does: it ages, takes the push its neighbours gave it last frame, slows,
// moves and bounces off the cube's faces.
func (p *Particle) StepSwarm(push [3]float32, side float32) {
	p.Age = p.Age + DT
	var pos, vel [3]float32
	for k := range 3 {
		v := float32((p.Vel[k] + push[k]) * SwarmDrag)
		x := p.Pos[k] + float32(v*DT)
		wallAt(&x, &v, side)
		pos[k], vel[k] = x, v
	}
	p.Pos, p.Vel = pos, vel
}
