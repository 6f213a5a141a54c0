#version 450
#extension GL_GOOGLE_include_directive : require
// segsort_heads: the middle step of a segmented sort's general path
// (radix.SegmentedPlan). After the keys are sorted whole, stably, with
// their indices as values, invocation j gives sorted key j, of input
// index i = indices[j], the key of its place: the start of i's segment,
// offsets[s] with s the last segment starting at or before i (offsets
// clamped to n), or i itself where i lies before offsets[0] or at or past
// offsets[nSeg]. A stable sort by that key then keeps the keys' order
// inside each segment and every key outside the segments in its place.
// Every head is below n, so the second sort takes the bits of n - 1.
// With offsets that decrease the binary search still ends on some
// segment: the heads, and so the order, are then unspecified, but the
// sort stays a permutation.
//
// With countOn, only the first gpuCount[countWord(pc.countOn)] keys (common.glsl:
// countedElems), as the sorts around it take them.
//
// Bindings: 0 the sorted indices, 1 offsets (nSeg + 1 words), 2 the
// heads, 3 the GPU-side key count (read when pc.countOn is set).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Indices { uint indices[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 2) writeonly buffer Heads { uint heads[]; };
layout(std430, binding = 3) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;    // keys
    uint nSeg; // segments
    uint countOn; // 1 + the word of gpuCount that holds the key count (at most n); 0: no count
} pc;

void main() {
    uint j = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (j >= countedElems(pc.n, 0, pc.countOn, pc.countOn != 0 ? gpuCount[countWord(pc.countOn)] : 0)) {
        return;
    }
    uint i = indices[j];
    // upper: the number of offsets at or below i (for non-decreasing
    // offsets), by binary search over offsets[0 .. nSeg].
    uint lo = 0, hi = pc.nSeg + 1;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (min(offsets[mid], pc.n) <= i) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    uint head = i;
    if (lo > 0 && lo <= pc.nSeg) {
        head = min(min(offsets[lo - 1], pc.n), i);
    }
    heads[j] = head;
}
