#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// radix_count: the first phase of a radix sort pass. Each workgroup is a
// processor owning one chunk of the keys: it counts the chunk's keys per
// digit in shared memory and writes the counts digit-major, hist[d *
// nProcs + p], so that one scan over them in that order gives every
// (digit, processor) its first output slot.
//
// Processors [proc0, procEnd) run in one dispatch: every processor at
// once, or past one binding those whose chunks lie in one window of the
// keys, which then starts at key proc0 * chunk.
//
// Bindings: 0 the keys (words; a window of them), 1 hist (BUCKETS *
// nProcs words), 2 the GPU-side key count (common.glsl: countedElems).

#include "../include/common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };
layout(std430, binding = 2) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;      // keys
    uint chunk;  // keys per processor
    uint nProcs; // processors
    uint shift;  // the digit's first bit
    uint width;  // the digit's bits
    uint countOn; // 1 + the word of gpuCount that holds the key count; 0: no count
    uint proc0;   // the dispatch's first processor
    uint procEnd; // the processor after its last
} pc;

shared uint counts[BUCKETS];

void main() {
    uint p = pc.proc0 + linearWorkgroup();
    if (p >= pc.procEnd) {
        return; // a surplus workgroup of a 2D grid: the whole workgroup leaves
    }
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    for (uint d = lid; d < BUCKETS; d += wg) {
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
                atomicAdd(counts[digitOf(sortKey(k[j]), pc.shift, pc.width)], 1u);
            }
        }
    }
    barrier();
    for (uint d = lid; d < BUCKETS; d += wg) {
        hist[d * pc.nProcs + p] = counts[d];
    }
}
