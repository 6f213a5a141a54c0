#version 450
#extension GL_GOOGLE_include_directive : require
// grid_neighbours: the particle grid's use. Invocation i < K takes the
// i-th particle in cell order, sorted[i] (the live particles gathered by
// the sort's order, so each cell's particles lie together and are read
// together: coalesced), and reads the 27 cells around its own through the
// table (every particle closer than 1, the interaction radius, lies in one
// of them): it counts the others closer than 1 and sums the push each
// gives it, (1 - d²) times the vector from the other to it, the swarm's
// repulsion, which the next frame's update adds to its velocity
// (grid_update.comp). It writes the count to neighbours[ids[i]] and the
// push to forces[ids[i]], in the particles' own order (ids[i] is the
// particle's index among the live ones), as NVIDIA's CUDA particles
// sample writes its velocities back by the original index; and its
// squared speed, (vx² + vy²) + vz², to speedSq[i], in cell order, for the
// reduction by cell that follows (the fastest particle of each cell).
//
// The cells are read y, then z, then x from -1 to 1, each cell's
// particles in the sort's order, and every operation is rounded on its
// own (precise: no fused multiply-add), as grid_ref.go does, so the
// counts and the pushes match the Go reference bit for bit.
//
// Dispatched indirectly from the compaction's result block.
//
// Bindings: 0 the particles in cell order, 1 the compaction's result
// block, 2 ids (sorted by cell), 3 the table, 4 neighbours, 5 forces,
// 6 squared speeds.

layout(local_size_x_id = 0) in;

#include "grid.glsl"

layout(std430, binding = 0) readonly buffer Sorted { Particle sorted[]; };
layout(std430, binding = 1) readonly buffer Result { uint result[]; };
layout(std430, binding = 2) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 3) readonly buffer Table { uint table[]; };
layout(std430, binding = 4) writeonly buffer Neighbours { uint neighbours[]; };
layout(std430, binding = 5) writeonly buffer Forces { vec4 forces[]; };
layout(std430, binding = 6) writeonly buffer SpeedSq { float speedSq[]; };

layout(push_constant) uniform Push {
    uint frame;
    uint side; // the cube's side in cells
} pc;

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= result[0]) {
        return;
    }
    Particle p = sorted[i];
    ivec3 c = ivec3(coordsOf(p.px, p.py, p.pz, pc.side));
    int side = int(pc.side);
    uint count = 0;
    precise float fx = 0.0;
    precise float fy = 0.0;
    precise float fz = 0.0;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dz = -1; dz <= 1; dz++) {
            for (int dx = -1; dx <= 1; dx++) {
                ivec3 q = c + ivec3(dx, dy, dz);
                if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, ivec3(side)))) {
                    continue;
                }
                uint cell = (uint(q.y) * pc.side + uint(q.z)) * pc.side + uint(q.x);
                if (table[3 * cell + 2] != pc.frame) {
                    continue; // empty this frame
                }
                uint start = table[3 * cell];
                uint end = start + table[3 * cell + 1];
                for (uint k = start; k < end; k++) {
                    if (k == i) {
                        continue;
                    }
                    Particle o = sorted[k];
                    precise float ex = p.px - o.px;
                    precise float ey = p.py - o.py;
                    precise float ez = p.pz - o.pz;
                    precise float d2 = ex * ex + ey * ey + ez * ez;
                    if (d2 < 1.0) {
                        count++;
                        precise float w = 1.0 - d2;
                        fx = fx + w * ex;
                        fy = fy + w * ey;
                        fz = fz + w * ez;
                    }
                }
            }
        }
    }
    uint me = ids[i];
    neighbours[me] = count;
    forces[me] = vec4(fx, fy, fz, 0.0);
    precise float s2 = p.vx * p.vx + p.vy * p.vy + p.vz * p.vz;
    speedSq[i] = s2;
}
