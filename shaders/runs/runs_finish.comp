#version 450
#extension GL_GOOGLE_include_directive : require
// runs_finish: the second of run-length encoding's two dispatches. The
// first (package compact, Selection.Output) left the indices of the
// selected elements in sel[] and its result block in selBlock[]: for
// ENCODE the first element of each run (FirstOfRun; that pass also wrote
// the elements themselves, the runs' keys), so run j spans
// [sel[j], sel[j + 1]) and the last one ends at the elements covered,
// selBlock[2]; for the non-trivial runs the first and the last element of
// each run longer than one (RunEdges), in pairs, so run j spans
// [sel[2j], sel[2j + 1]]. Each invocation takes runs gid, gid + grid, ..
// (a grid-stride loop over a grid the host sizes once, for any count),
// and writes run j's length and (non-trivial runs) its offset.
// Invocation 0 writes the result block with the runs' count.
//
// Bindings: 0 sel, 1 selBlock, 2 the offsets (unused by ENCODE), 3 the
// lengths, 4 the result block (12 words).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ENCODE = 1; // 1: Encode; 0: non-trivial runs

layout(std430, binding = 0) readonly buffer Sel { uint sel[]; };
layout(std430, binding = 1) readonly buffer SelBlock { uint selBlock[]; };
layout(std430, binding = 2) writeonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer Lengths { uint lengths[]; };
layout(std430, binding = 4) writeonly buffer Result { uint result[]; };

layout(push_constant) uniform Push {
    uint groupSize; // the caller's next pass's workgroup size, for the result block
    uint maxX;      // maxComputeWorkGroupCount[0]
} pc;

#include "../include/result_block.glsl"

void main() {
    uint selected = selBlock[0];
    uint total = selBlock[2];
    uint runs = ENCODE != 0 ? selected : selected / 2;
    uint grid = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    uint gid = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (gid == 0) {
        writeResult(runs, total, pc.groupSize, pc.maxX);
    }
    for (uint j = gid; j < runs; j += grid) {
        if (ENCODE != 0) {
            uint first = sel[j];
            uint end = j + 1 < runs ? sel[j + 1] : total;
            lengths[j] = end - first;
        } else {
            uint first = sel[2 * j];
            offsets[j] = first;
            lengths[j] = sel[2 * j + 1] - first + 1;
        }
    }
}
