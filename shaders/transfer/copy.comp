#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// copy: dst[i] = src[i] for i < n, n uint32 words, with 16-byte (uvec4)
// loads and stores (see copy_words.glsl).
//
// Bindings: 0 src as uvec4, 1 dst as uvec4, 2 src as uint, 3 dst as uint
// (0 and 2, 1 and 3 are the same buffer ranges).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VECS_PER_THREAD = 4;

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 2) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 3) writeonly buffer DstWord { uint dstWord[]; };

layout(push_constant) uniform Push {
    uint n; // words to copy
} pc;

#include "../include/copy_words.glsl"

void main() {
    copyWords(pc.n);
}
