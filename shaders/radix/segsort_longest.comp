#version 450
#extension GL_GOOGLE_include_directive : require
// segsort_longest: the choice of a segmented sort's automatic path
// (radix.SegmentedPlan, SegmentedSort.MaxSegment 0), made on the GPU.
// Invocation s looks at segment s (offsets clamped to n, an end below its
// start an empty segment) and, where it holds more than capacity keys,
// raises count[0] (zeroed before) to n. count[0] is then the key count of
// the general path's sorts: 0, and the block path sorts (the general
// path's dispatches find no keys); n, and the block kernel returns at
// once and the general path sorts every key.
//
// Bindings: 0 offsets (nSeg + 1 words), 1 the count word.

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 1) buffer Count { uint count[]; };

layout(push_constant) uniform Push {
    uint n;        // keys
    uint nSeg;     // segments
    uint capacity; // the block path's longest segment
} pc;

void main() {
    uint s = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (s >= pc.nSeg) {
        return;
    }
    uint start = min(offsets[s], pc.n);
    uint stop = max(min(offsets[s + 1], pc.n), start);
    if (stop - start > pc.capacity) {
        atomicMax(count[0], pc.n);
    }
}
