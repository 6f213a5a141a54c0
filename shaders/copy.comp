#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// copy: dst[i] = src[i] for i < n, n uint32 words, with 16-byte (uvec4)
// loads and stores. Each workgroup copies one tile of
// WORKGROUP_SIZE * VECS_PER_THREAD uvec4; thread t handles vectors
// t, t + WORKGROUP_SIZE, ... of the tile, so each load instruction of the
// workgroup is one contiguous, coalesced span, and all of a thread's loads
// are issued before its first store. The last n % 4 words go through a
// scalar view of the same buffers.
//
// Bindings: 0 src as uvec4, 1 dst as uvec4, 2 src as uint, 3 dst as uint
// (0 and 2, 1 and 3 are the same buffer ranges).

#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VECS_PER_THREAD = 4;

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 2) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 3) writeonly buffer DstWord { uint dstWord[]; };

layout(push_constant) uniform Push {
    uint n; // words to copy
} pc;

void main() {
    const uint wg = gl_WorkGroupSize.x;
    uint nvec = pc.n / 4;
    uint tile = wg * VECS_PER_THREAD;
    uint first = linearWorkgroup() * tile;
    uint base = first + gl_LocalInvocationID.x;
    if (first + tile <= nvec) {
        uvec4 v[VECS_PER_THREAD];
        [[unroll]] for (uint k = 0; k < VECS_PER_THREAD; k++) {
            v[k] = srcVec[base + k * wg];
        }
        [[unroll]] for (uint k = 0; k < VECS_PER_THREAD; k++) {
            dstVec[base + k * wg] = v[k];
        }
    } else if (first < nvec) {
        for (uint k = 0; k < VECS_PER_THREAD; k++) {
            uint i = base + k * wg;
            if (i < nvec) {
                dstVec[i] = srcVec[i];
            }
        }
    }
    // The last n % 4 words, through the scalar views; a loop, since a
    // workgroup may have fewer than 3 invocations.
    if (linearWorkgroup() == 0) {
        for (uint i = nvec * 4 + gl_LocalInvocationID.x; i < pc.n; i += wg) {
            dstWord[i] = srcWord[i];
        }
    }
}
