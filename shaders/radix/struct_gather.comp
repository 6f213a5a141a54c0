#version 450
#extension GL_GOOGLE_include_directive : require
// struct_gather: the last step of a sort of structs by a key field
// (radix.StructPlan): struct i of the output is struct indices[i] of the
// input, for i below the element count. Invocation j copies word
// j % STRIDE_WORDS of output struct j / STRIDE_WORDS, so the writes of a
// workgroup are one contiguous span.
//
// Bindings: 0 the input structs as words, 1 the output structs, 2 the
// sorted indices, 3 the GPU-side count (read when pc.countOn is set).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint STRIDE_WORDS = 1;

layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(std430, binding = 2) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 3) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;       // structs
    uint countOn; // 1 + the word of gpuCount that holds the count (at most n); 0: no count
} pc;

void main() {
    uint j = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint i = j / STRIDE_WORDS;
    if (i >= countedElems(pc.n, 0, pc.countOn, pc.countOn != 0 ? gpuCount[countWord(pc.countOn)] : 0)) {
        return;
    }
    dst[j] = src[indices[i] * STRIDE_WORDS + j % STRIDE_WORDS];
}
