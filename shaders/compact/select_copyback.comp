#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// select_copyback: the last step of an in-place compaction. The move wrote
// the kept elements to scratch; this copies the first kept of them back
// over the input, one piece (one binding's worth) at a time; an in-place
// split copies all the elements back. The count is read from
// counts[PROCS + pc.which] (0: kept, 1: all, see select_scan); the dispatch
// is indirect, sized by select_scan from the same count.
//
// Bindings: 0 scratch piece as uvec4, 1 data piece as uvec4, 2 and 3 the
// same as uint, 4 counts.

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VECS_PER_THREAD = 1;
layout(constant_id = 2) const uint STRIDE = 1;
layout(constant_id = 3) const uint PROCS = 1024;

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 2) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 3) writeonly buffer DstWord { uint dstWord[]; };
layout(std430, binding = 4) readonly buffer Counts { uint counts[]; };

layout(push_constant) uniform Push {
    uint first;      // the piece's first element
    uint pieceElems; // elements in the piece
    uint which;      // 0: copy the kept elements; 1: all of them
} pc;

#include "../include/copy_words.glsl"

void main() {
    uint kept = counts[PROCS + pc.which];
    uint elems = kept > pc.first ? min(pc.pieceElems, kept - pc.first) : 0;
    copyWords(elems * STRIDE);
}
