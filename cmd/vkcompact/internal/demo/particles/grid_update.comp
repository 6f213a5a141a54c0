#version 450
#extension GL_GOOGLE_include_directive : require
// grid_update: one frame of the swarm (swarm.go), the particle demo's
// scene with its grid. Invocation i < K (the particles kept by the last
// compaction) takes particle i one step: it ages, adds the push
// forces[i] its neighbours gave it last frame (grid_neighbours.comp, in
// the same order of particles), slows, moves and bounces off the cube's
// faces at 0 and pc.side. K <= i < n spawns a new particle there from a
// hash of (seed, frame, i - K), anywhere in the cube. Each writes
// flags[i] = 1 while the particle lives (age < lifetime), 0 once it is
// dead, for the compaction that follows. Dispatched indirectly from the
// frame block that setup wrote.
//
// Every float operation is an add, subtract or multiply, each correctly
// rounded in Vulkan, and `precise` forbids fusing them: swarm.go repeats
// them operation for operation, bit for bit. The constants are exact in
// binary.
//
// Bindings: 0 particles, 1 flags, 2 the frame block (n, K), 3 forces.

layout(local_size_x_id = 0) in;

#include "grid.glsl"

layout(std430, binding = 0) buffer Particles { Particle particles[]; };
layout(std430, binding = 1) writeonly buffer Flags { uint flags[]; };
layout(std430, binding = 2) readonly buffer Frame { uint block[]; };
layout(std430, binding = 3) readonly buffer Forces { vec4 forces[]; };

layout(push_constant) uniform Push {
    uint frame;
    uint seed;
    uint side; // the cube's side in cells
} pc;

const float DT = 0.015625;  // 1/64 s per frame
const float DRAG = 0.9375;  // speed kept per frame, after the push

// pcg is the PCG-RXS-M-XS integer hash (Jarzynski and Olano, 2020).
uint pcg(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// unit turns a hash into a float in [0, 1): 24 bits, exactly.
float unit(uint h) {
    return float(h >> 8) * (1.0 / 16777216.0);
}

Particle spawn(uint j) {
    uint h = pcg(pcg(pcg(pc.seed) + pc.frame) + j);
    float u[7];
    for (int k = 0; k < 7; k++) {
        h = pcg(h);
        u[k] = unit(h);
    }
    float s = float(pc.side);
    precise float px = u[0] * s;
    precise float py = u[1] * s;
    precise float pz = u[2] * s;
    precise float vx = (u[3] - 0.5) * 2.0;
    precise float vy = (u[4] - 0.5) * 2.0;
    precise float vz = (u[5] - 0.5) * 2.0;
    precise float life = u[6] * 0.5 + 0.5;
    Particle p;
    p.px = px;
    p.py = py;
    p.pz = pz;
    p.vx = vx;
    p.vy = vy;
    p.vz = vz;
    p.age = 0.0;
    p.lifetime = life;
    return p;
}

// axisStep moves one coordinate: the push, the drag, the move, and the
// reflection off the faces at 0 and side.
void axisStep(inout float pos, inout float vel, float push, float side) {
    precise float v0 = vel + push;
    precise float v = v0 * DRAG;
    precise float x = pos + v * DT;
    if (x < 0.0) {
        x = -x;
        v = -v;
    } else if (x > side) {
        x = 2.0 * side - x;
        v = -v;
    }
    pos = x;
    vel = v;
}

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint n = block[0];
    uint kept = block[1];
    if (i >= n) {
        return;
    }
    Particle p;
    if (i < kept) {
        p = particles[i];
        vec4 push = forces[i];
        float s = float(pc.side);
        precise float age = p.age + DT;
        axisStep(p.px, p.vx, push.x, s);
        axisStep(p.py, p.vy, push.y, s);
        axisStep(p.pz, p.vz, push.z, s);
        p.age = age;
    } else {
        p = spawn(i - kept);
    }
    particles[i] = p;
    flags[i] = p.age < p.lifetime ? 1u : 0u;
}
