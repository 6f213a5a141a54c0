#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// select_scan: phase 2 of the compaction, one workgroup. An exclusive
// prefix sum (block_scan.glsl) turns the per-chunk counts into each
// chunk's first output slot. It then writes the kept total to
// counts[nChunks] and counts[PROCS] (the move reads them) and the element
// count to counts[PROCS + 1], the result block, and the indirect arguments
// of the in-place copy-back: of the kept elements, or with
// pc.copyAll of all of them (an in-place split).
//
// Bindings: 0 counts (PROCS + 2 words), 1 the result block (12 words),
// 2 the copy-back arguments (4 words per piece), 3 the GPU-side element
// count (common.glsl: countedElems).

#include "../include/common.glsl"
#include "../include/select.glsl"


layout(local_size_x_id = 0) in;

layout(std430, binding = 0) buffer Counts { uint counts[]; };
layout(std430, binding = 1) writeonly buffer Result { uint result[]; };
layout(std430, binding = 2) writeonly buffer Args { uvec4 args[]; };
layout(std430, binding = 3) readonly buffer GpuCount { uint gpuCount[]; };

#define SCAN_DATA counts
const bool SCAN_FLOAT = false;
#include "../include/block_scan.glsl"

layout(push_constant) uniform Push {
    uint nChunks;   // chunks holding elements
    uint n;         // elements in all
    uint groupSize; // the caller's invocations per workgroup, for result[4..6]
    uint maxX;      // maxComputeWorkGroupCount[0]
    uint pieceElems; // elements per copy-back piece
    uint pieces;    // copy-back pieces; 0 when there is no copy-back
    uint copyTile;  // words per copy-back workgroup
    uint countOn;   // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
    uint copyAll;   // the copy-back copies every element, not the kept ones
} pc;

#include "../include/result_block.glsl"

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint kept = scanExclusive(0, pc.nChunks);
    uint n = countedElems(pc.n, 0, pc.countOn, gpuCount[countWord(pc.countOn)]);
    if (lid == 0) {
        counts[pc.nChunks] = kept;
        counts[PROCS] = kept;
        counts[PROCS + 1] = n;
        writeResult(kept, n, pc.groupSize, pc.maxX);
    }
    uint copied = pc.copyAll != 0 ? n : kept;
    for (uint p = lid; p < pc.pieces; p += gl_WorkGroupSize.x) {
        uint first = p * pc.pieceElems;
        uint elems = copied > first ? min(pc.pieceElems, copied - first) : 0;
        // elems * STRIDE words fit: a piece is one binding of at most 4 GiB.
        uint words = elems * STRIDE;
        args[p] = uvec4(gridFor(words == 0 ? 0 : (words - 1) / pc.copyTile + 1, pc.maxX), 0);
    }
}
