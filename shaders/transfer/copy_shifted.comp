#version 450
#extension GL_GOOGLE_include_directive : require
// copy_shifted: dst[dstShift + i] = src[srcShift + i] for i < n, n uint32
// words, one word at a time (see copy_shifted.glsl): the copy of ranges
// whose offsets are multiples of 4 but not of
// minStorageBufferOffsetAlignment, each bound from its offset rounded
// down, its first word at srcShift (dstShift) of the binding.
//
// Bindings: 0 src, 1 dst.

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VECS_PER_THREAD = 4;

layout(std430, binding = 0) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 1) writeonly buffer DstWord { uint dstWord[]; };

layout(push_constant) uniform Push {
    uint n;        // words to copy
    uint srcShift; // the source's first word in its binding
    uint dstShift; // the destination's first word in its binding
} pc;

#include "../include/copy_shifted.glsl"

void main() {
    copyWordsShifted(pc.n, pc.srcShift, pc.dstShift);
}
