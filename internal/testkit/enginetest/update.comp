#version 450
// update: one frame of the engine test's particle system. The pool holds
// n particles, of which the first `live` are in use (live may exceed n:
// the compaction must then stop at n). live is a push constant, or, when
// that is FROM_GPU, the kept count the previous frame's compaction left in
// its result block. Invocation i < min(live, n) moves particle i by its
// velocity and takes dt from its life; the particles past them are not
// touched. Invocation 0 writes live to the live-count word, which the
// compaction that follows may read as its element count (it cannot read
// the result block it is about to write).
//
// Each float operation is a single add or subtract (nothing to fuse), on
// values the test makes exact in binary, so the Go reference repeats it
// bit for bit.
//
// Bindings: 0 the particles, 1 the live-count word, 2 the result block's
// first 16 bytes (kept, rejected, total).

layout(local_size_x = 64) in;

// Particle is 32 bytes in std430: pos at 0, id at 12, vel at 16, life at 28.
struct Particle {
    vec3 pos;
    uint id;
    vec3 vel;
    float life;
};

layout(std430, binding = 0) buffer Particles { Particle particles[]; };
layout(std430, binding = 1) writeonly buffer Live { uint liveCount; };
layout(std430, binding = 2) readonly buffer Previous { uint previousKept; };

layout(push_constant) uniform Push {
    uint n;
    uint live;
    float dt;
} pc;

const uint FROM_GPU = 0xFFFFFFFFu;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint live = pc.live == FROM_GPU ? previousKept : pc.live;
    if (i == 0u) {
        liveCount = live;
    }
    if (i >= min(live, pc.n)) {
        return;
    }
    Particle p = particles[i];
    p.pos += p.vel;
    p.life -= pc.dt;
    particles[i] = p;
}
