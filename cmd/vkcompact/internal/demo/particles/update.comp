#version 450
// update: one frame of the particle demo. Invocation i < K (the particles
// kept by the last compaction) moves and ages particle i; K <= i < n spawns
// a new particle there from a hash of (seed, frame, i - K). Each writes
// flags[i] = 1 while the particle lives (age < lifetime), 0 once it is
// dead, for the compaction that follows. Dispatched indirectly from the
// frame block that setup wrote.
//
// Every float operation is an add, subtract or multiply, each correctly
// rounded in Vulkan, and `precise` forbids fusing them: the Go reference
// (particles.go) repeats them operation for operation, bit for bit. The
// constants are exact in binary.
//
// Bindings: 0 particles, 1 flags, 2 the frame block (n, K).

layout(local_size_x_id = 0) in;

struct Particle {
    float px, py, pz;
    float vx, vy, vz;
    float age, lifetime;
};

layout(std430, binding = 0) buffer Particles { Particle particles[]; };
layout(std430, binding = 1) writeonly buffer Flags { uint flags[]; };
layout(std430, binding = 2) readonly buffer Frame { uint block[]; };

layout(push_constant) uniform Push {
    uint frame;
    uint seed;
} pc;

const float DT = 0.015625;          // 1/64 s per frame
const float GRAVITY_DT = -0.15234375; // -9.75 m/s^2 times DT
const float DRAG = 0.9921875;       // speed kept per frame: 127/128
const float BOUNCE = -0.75;         // vertical speed kept, reversed, at the floor
const float HALF = 2.0;             // the box is [-HALF, HALF] in x and z, y >= 0

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
    precise float px = (u[0] - 0.5) * 0.25;
    precise float py = u[1] * 0.125;
    precise float pz = (u[2] - 0.5) * 0.25;
    precise float vx = (u[3] - 0.5) * 4.0;
    precise float vy = u[4] * 3.0 + 3.0;
    precise float vz = (u[5] - 0.5) * 4.0;
    precise float life = u[6] * 1.25 + 0.25;
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

// wall reflects a coordinate and its velocity off the walls at +-HALF.
void wall(inout float pos, inout float vel) {
    precise float p = pos;
    if (p < -HALF) {
        p = -2.0 * HALF - p;
        vel = -vel;
    } else if (p > HALF) {
        p = 2.0 * HALF - p;
        vel = -vel;
    }
    pos = p;
}

void step(inout Particle p) {
    precise float age = p.age + DT;
    precise float vy0 = p.vy + GRAVITY_DT;
    precise float vx = p.vx * DRAG;
    precise float vy = vy0 * DRAG;
    precise float vz = p.vz * DRAG;
    precise float px = p.px + vx * DT;
    precise float py = p.py + vy * DT;
    precise float pz = p.pz + vz * DT;
    if (py < 0.0) {
        py = -py;
        vy = vy * BOUNCE;
    }
    wall(px, vx);
    wall(pz, vz);
    p.px = px;
    p.py = py;
    p.pz = pz;
    p.vx = vx;
    p.vy = vy;
    p.vz = vz;
    p.age = age;
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
        step(p);
    } else {
        p = spawn(i - kept);
    }
    particles[i] = p;
    flags[i] = p.age < p.lifetime ? 1u : 0u;
}
