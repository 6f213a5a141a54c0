#version 450
#extension GL_GOOGLE_include_directive : require
// radix_lanes_scatter: the scatter of a lane-serial radix sort pass
// (radix_lanes.glsl). The workgroup first turns hist into its lanes'
// first slots per digit: digit d's first slot (the digit totals'
// exclusive scan) plus the counts of d in the workgroups before and in
// its lanes before. Then each
// lane walks its run of keys and writes each one to its digit's next
// slot.
//
// Bindings: 0 keys in, 1 values in, 2 hist, 3 keys out, 4 values out
// (without PAIRS, 1 and 4 are bound to anything and unused), 5 the
// GPU-side key count.

#include "radix_lanes.glsl"

layout(constant_id = 5) const bool PAIRS = false;

layout(std430, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 1) readonly buffer ValsIn { uint valsIn[]; };
layout(std430, binding = 2) readonly buffer Hist { uint hist[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 4) writeonly buffer ValsOut { uint valsOut[]; };
layout(std430, binding = 5) readonly buffer GpuCount { uint gpuCount[]; };

shared uint digitFirst[BUCKETS]; // each digit's total, then its first slot

void main() {
    uint l = gl_LocalInvocationID.x;
    uint p = linearWorkgroup();
    if (p >= pc.nProcs) {
        return; // a surplus workgroup of a 2D grid: the whole workgroup leaves
    }
    uint g0 = p * WG; // the workgroup's first lane
    uint buckets = 1u << pc.width;
    // Per digit (every WG-th one per invocation): the counts of the
    // workgroups before this one, its lanes' running sums, and the total.
    for (uint d = l; d < buckets; d += WG) {
        uint row = pc.nLanes * BUCKETS + d * pc.nProcs;
        uint before = 0;
        for (uint q = 0; q < p; q++) {
            before += hist[row + q];
        }
        uint total = before;
        for (uint q = p; q < pc.nProcs; q++) {
            total += hist[row + q];
        }
        for (uint j = 0; j < WG; j++) {
            counters[d * WG + j] = before;
            before += hist[d * pc.nLanes + g0 + j];
        }
        digitFirst[d] = total;
    }
    barrier();
    if (l == 0) {
        uint sum = 0;
        for (uint d = 0; d < buckets; d++) {
            uint c = digitFirst[d];
            digitFirst[d] = sum;
            sum += c;
        }
    }
    barrier();
    for (uint d = 0; d < buckets; d++) {
        counters[d * WG + l] += digitFirst[d];
    }
    uvec2 run = laneRun(gpuCount[0]);
    for (uint i = run.x; i < run.y; i++) {
        uvec2 raw = WIDE ? uvec2(keysIn[2 * i], keysIn[2 * i + 1]) : uvec2(keysIn[i], 0);
        uint d = digitOf(sortKey(raw), pc.shift, pc.width);
        uint s = counters[d * WG + l];
        counters[d * WG + l] = s + 1;
        if (WIDE) {
            keysOut[2 * s] = raw.x;
            keysOut[2 * s + 1] = raw.y;
        } else {
            keysOut[s] = raw.x;
        }
        if (PAIRS) {
            valsOut[s] = valsIn[i];
        }
    }
}
