#version 450
#extension GL_GOOGLE_include_directive : require
// fill: words[i] = value for i < n. The single-pass compaction clears its
// tile counter and status words with it before each run.
//
// Bindings: 0 the words.

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) writeonly buffer Words { uint words[]; };

layout(push_constant) uniform Push {
    uint n;     // words to fill
    uint value;
} pc;

void main() {
    uint i = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < pc.n) {
        words[i] = pc.value;
    }
}
