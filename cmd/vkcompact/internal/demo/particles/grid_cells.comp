#version 450
#extension GL_GOOGLE_include_directive : require
// grid_cells: the first stage of the particle grid (grid.go). Invocation
// i < K (the live particles the frame's compaction kept) writes the key
// cells[i] = the particle's grid cell and the value ids[i] = i, for the sort
// by cell that follows. Dispatched indirectly from the compaction's result
// block (64 invocations per workgroup, a 2D grid past
// maxComputeWorkGroupCount[0]).
//
// A cell is 1 on a side (the interaction radius); the cube is pc.side
// cells along each axis: cell = (cy * side + cz) * side + cx, the
// coordinates the positions truncated (grid.glsl), as grid_ref.go does.
//
// Bindings: 0 particles (compacted, read), 1 the compaction's result block,
// 2 cells, 3 ids.

layout(local_size_x_id = 0) in;

#include "grid.glsl"

layout(std430, binding = 0) readonly buffer Particles { Particle particles[]; };
layout(std430, binding = 1) readonly buffer Result { uint result[]; };
layout(std430, binding = 2) writeonly buffer Cells { uint cells[]; };
layout(std430, binding = 3) writeonly buffer Ids { uint ids[]; };

layout(push_constant) uniform Push {
    uint side; // the cube's side in cells
} pc;

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= result[0]) {
        return;
    }
    Particle p = particles[i];
    cells[i] = cellOf(p.px, p.py, p.pz, pc.side);
    ids[i] = i;
}
