#version 450
#extension GL_GOOGLE_include_directive : require
// struct_keys: the first step of a sort of structs by a key field
// (radix.StructPlan). Invocation i, below the element count, copies the
// KEY_WORDS words at word KEY_WORD of struct i (structs of STRIDE_WORDS
// words) to keys[i] and writes i to indices[i]: the keys and values the
// radix sort then sorts.
//
// Bindings: 0 the structs as words, 1 the keys, 2 the indices, 3 the
// GPU-side count (read when pc.countOn is set).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint STRIDE_WORDS = 1;
layout(constant_id = 2) const uint KEY_WORD = 0;
layout(constant_id = 3) const uint KEY_WORDS = 1;

layout(std430, binding = 0) readonly buffer Structs { uint words[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Indices { uint indices[]; };
layout(std430, binding = 3) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;       // structs
    uint countOn; // 1 + the word of gpuCount that holds the count (at most n); 0: no count
} pc;

void main() {
    uint i = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= countedElems(pc.n, 0, pc.countOn, pc.countOn != 0 ? gpuCount[countWord(pc.countOn)] : 0)) {
        return;
    }
    for (uint w = 0; w < KEY_WORDS; w++) {
        keys[i * KEY_WORDS + w] = words[i * STRIDE_WORDS + KEY_WORD + w];
    }
    indices[i] = i;
}
