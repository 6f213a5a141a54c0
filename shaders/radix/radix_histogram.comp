#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// radix_histogram: the one pass over the keys that the single-pass radix
// sort (radix_onesweep) makes before its digit passes. Each workgroup
// counts the digits of every pass for its chunk of the keys in shared
// memory, and adds its counts to the global ones, hist[pass * BUCKETS +
// digit], which are zero before (cleared by the host, or left zero by the
// last run's passes: radix_onesweep's SELF_RESET). A pass's digit counts
// do not depend on the order earlier passes leave the keys in, so one
// read of the keys serves every pass; each digit pass scans its row into
// its digits' first slots itself.
//
// Workgroups [proc0, procEnd) run in one dispatch: every one at once,
// or past one binding those whose chunks lie in one window of the keys,
// which then starts at key proc0 * chunk.
//
// Bindings: 0 the keys (words), 1 hist (PASSES * BUCKETS words), 2 the
// GPU-side key count (common.glsl: countedElems).

#include "../include/common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 5) const uint PASSES = 4;

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Hist { uint hist[]; };
layout(std430, binding = 2) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;       // keys
    uint chunk;   // keys per workgroup
    uint nProcs;  // workgroups
    uint begin;   // the first pass's first bit
    uint end;     // the bit after the last pass's last
    uint countOn; // 1 + the word of gpuCount that holds the key count; 0: no count
    uint proc0;   // the dispatch's first workgroup
    uint procEnd; // the workgroup after its last
} pc;

shared uint counts[PASSES * BUCKETS];

void main() {
    uint p = pc.proc0 + linearWorkgroup();
    if (p >= pc.procEnd) {
        return; // a surplus workgroup of a 2D grid: the whole workgroup leaves
    }
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    for (uint d = lid; d < PASSES * BUCKETS; d += wg) {
        counts[d] = 0;
    }
    barrier();
    // The chunk in the coordinates of the keys' binding, whose first key
    // is proc0 * chunk (a window of them, or all).
    uint inBase = pc.proc0 * pc.chunk;
    uint start = p * pc.chunk;
    uint end = max(min(start + pc.chunk, countedElems(pc.n, 0, pc.countOn, gpuCount[countWord(pc.countOn)])), start) - inBase;
    start -= inBase;
    for (uint base = start; base < end; base += wg * KPL) {
        uvec2 k[KPL];
        // Every load of the round is issued before any count.
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            uint i = base + j * wg + lid;
            k[j] = uvec2(0);
            if (i < end) {
                k[j] = WIDE ? uvec2(keys[2 * i], keys[2 * i + 1]) : uvec2(keys[i], 0);
            }
        }
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            if (base + j * wg + lid < end) {
                uvec2 key = sortKey(k[j]);
                [[unroll]] for (uint q = 0; q < PASSES; q++) {
                    uint shift = pc.begin + q * RADIX_BITS;
                    uint width = min(RADIX_BITS, pc.end - shift);
                    atomicAdd(counts[q * BUCKETS + digitOf(key, shift, width)], 1u);
                }
            }
        }
    }
    barrier();
    for (uint d = lid; d < PASSES * BUCKETS; d += wg) {
        uint c = counts[d];
        if (c != 0) {
            atomicAdd(hist[d], c);
        }
    }
}
