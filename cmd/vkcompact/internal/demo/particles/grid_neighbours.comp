#version 450
#extension GL_GOOGLE_include_directive : require
// grid_neighbours: the particle grid's use. Invocation i < K takes the
// i-th particle in cell order (ids[i], from the sort) and counts the other
// particles closer than one cell's width (1/32 m) by reading the 27 cells
// around its own through the table: every candidate lies in one of them.
// It writes the count to neighbours[ids[i]], in the particles' own order.
// The squared distance is computed as grid.go does, each operation
// rounded on its own (precise: no fused multiply-add), so the counts
// match the Go reference exactly.
//
// Dispatched indirectly from the compaction's result block.
//
// Bindings: 0 particles, 1 the compaction's result block, 2 ids (sorted by
// cell), 3 the table, 4 neighbours.

layout(local_size_x_id = 0) in;

#include "grid.glsl"

layout(std430, binding = 0) readonly buffer Particles { Particle particles[]; };
layout(std430, binding = 1) readonly buffer Result { uint result[]; };
layout(std430, binding = 2) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 3) readonly buffer Table { uint table[]; };
layout(std430, binding = 4) writeonly buffer Neighbours { uint neighbours[]; };

layout(push_constant) uniform Push {
    uint frame;
} pc;

const float RADIUS2 = 1.0 / (CELLS_PER_M * CELLS_PER_M);

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= result[0]) {
        return;
    }
    uint me = ids[i];
    Particle p = particles[me];
    ivec3 c = ivec3(coordsOf(p.px, p.py, p.pz));
    uint count = 0;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dz = -1; dz <= 1; dz++) {
            for (int dx = -1; dx <= 1; dx++) {
                ivec3 q = c + ivec3(dx, dy, dz);
                if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, ivec3(GRID)))) {
                    continue;
                }
                uint cell = (uint(q.y) * GRID + uint(q.z)) * GRID + uint(q.x);
                if (table[3 * cell + 2] != pc.frame) {
                    continue; // empty this frame
                }
                uint start = table[3 * cell];
                uint end = start + table[3 * cell + 1];
                for (uint k = start; k < end; k++) {
                    uint other = ids[k];
                    if (other == me) {
                        continue;
                    }
                    Particle o = particles[other];
                    precise float ex = p.px - o.px;
                    precise float ey = p.py - o.py;
                    precise float ez = p.pz - o.pz;
                    precise float d2 = ex * ex + ey * ey + ez * ez;
                    if (d2 < RADIUS2) {
                        count++;
                    }
                }
            }
        }
    }
    neighbours[me] = count;
}
