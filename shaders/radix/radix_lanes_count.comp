#version 450
#extension GL_GOOGLE_include_directive : require
// radix_lanes_count: the count phase of a lane-serial radix sort pass
// (radix_lanes.glsl): each lane counts the digits of its run of keys and
// writes its column of hist, and the workgroup its lanes' sums.
//
// Bindings: 0 the keys (words), 1 hist (BUCKETS * (nLanes + nProcs)
// words), 2 the
// GPU-side key count (common.glsl: countedElems).

#include "radix_lanes.glsl"

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };
layout(std430, binding = 2) readonly buffer GpuCount { uint gpuCount[]; };

void main() {
    uint l = gl_LocalInvocationID.x;
    uint p = linearWorkgroup();
    if (p >= pc.nProcs) {
        return; // a surplus workgroup of a 2D grid: the whole workgroup leaves
    }
    uint g = p * WG + l;
    uint buckets = 1u << pc.width;
    for (uint d = 0; d < buckets; d++) {
        counters[d * WG + l] = 0;
    }
    uvec2 run = laneRun(gpuCount[0]);
    for (uint i = run.x; i < run.y; i++) {
        uint d = digitOf(sortKey(WIDE ? uvec2(keys[2 * i], keys[2 * i + 1]) : uvec2(keys[i], 0)), pc.shift, pc.width);
        counters[d * WG + l]++;
    }
    for (uint d = 0; d < buckets; d++) {
        hist[d * pc.nLanes + g] = counters[d * WG + l];
    }
    barrier();
    // The workgroup's count of each digit (every WG-th one per invocation).
    for (uint d = l; d < buckets; d += WG) {
        uint sum = 0;
        for (uint j = 0; j < WG; j++) {
            sum += counters[d * WG + j];
        }
        hist[pc.nLanes * BUCKETS + d * pc.nProcs + p] = sum;
    }
}
