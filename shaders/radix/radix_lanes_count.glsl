// radix_lanes_count.glsl: the count phase of a lane-serial radix sort
// pass (radix_lanes.glsl): each lane counts the digits of its run of keys
// and writes its column of hist, and the workgroup its lanes' sums.
// radix_lanes_count.comp is it in 32-bit words; radix_lanes_count64.comp
// (INT64, for devices with shaderInt64) loads a 64-bit key as one word,
// and 32-bit keys (not PACKED) two a load.
//
// Bindings: 0 the keys (words; with PACKED the packed pairs, the key the
// low word of each 64-bit one), 1 hist (BUCKETS * (nLanes + nProcs)
// words), 2 the GPU-side key count (common.glsl: countedElems), 3 the
// keys again, as 64-bit words with INT64 (unused without).

#include "radix_lanes.glsl"

// PACKED: the keys are 32-bit keys packed with their values as 64-bit
// words (key | value << 32) by radix_lanes_scatter's PACK_OUT.
layout(constant_id = 5) const bool PACKED = false;

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };
layout(std430, binding = 2) readonly buffer GpuCount { uint gpuCount[]; };
#ifdef INT64
layout(std430, binding = 3) readonly buffer Keys64 { uint64_t keys64[]; };
#else
layout(std430, binding = 3) readonly buffer Keys64 { uint keys64w[]; }; // bound, unused
#endif

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
    uvec2 run = laneRun(gpuCount[countWord(pc.countOn)]);
    uint i = run.x;
#ifdef INT64
    if (!WIDE && !PACKED) {
        // 32-bit keys two a load: the run's odd first key alone, then
        // pairs, then an odd last key alone below.
        if ((i & 1) != 0 && i < run.y) {
            counters[digitOf(sortKey(uvec2(keys[i], 0)), pc.shift, pc.width) * WG + l]++;
            i++;
        }
        for (; i + 1 < run.y; i += 2) {
            uvec2 two = unpack32(keys64[i / 2]);
            counters[digitOf(sortKey(uvec2(two.x, 0)), pc.shift, pc.width) * WG + l]++;
            counters[digitOf(sortKey(uvec2(two.y, 0)), pc.shift, pc.width) * WG + l]++;
        }
    }
#endif
    for (; i < run.y; i++) {
#ifdef INT64
        uvec2 raw = WIDE ? unpack32(keys64[i]) : uvec2(keys[PACKED ? 2 * i : i], 0);
#else
        uvec2 raw = WIDE ? uvec2(keys[2 * i], keys[2 * i + 1]) : uvec2(keys[PACKED ? 2 * i : i], 0);
#endif
        uint d = digitOf(sortKey(raw), pc.shift, pc.width);
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
