// radix_lanes_scatter.glsl: the scatter of a lane-serial radix sort pass
// (radix_lanes.glsl). The workgroup first turns hist into its lanes'
// first slots per digit: digit d's first slot (the digit totals'
// exclusive scan) plus the counts of d in the workgroups before and in
// its lanes before. Then each lane walks its run of keys and writes each
// one to its digit's next slot.
//
// radix_lanes_scatter.comp is it in 32-bit words. radix_lanes_scatter64
// (INT64, for devices with shaderInt64) moves 64-bit words: a 64-bit key
// is one load and one store, 32-bit keys alone are loaded two at a time,
// and 32-bit keys with values may travel
// packed as one word (key | value << 32) between the passes: PACK_OUT
// writes them so, PACK_IN reads them so. A CPU driver's loads and stores
// each cost a loop over the SIMD register's lanes (lavapipe), so a pass
// of pairs between two packed passes makes four of them a key, not six.
//
// Bindings: 0 keys in (PACK_IN: the packed pairs), 1 values in, 2 hist,
// 3 keys out (PACK_OUT: the packed pairs), 4 values out (without PAIRS,
// or where the values travel packed, 1 and 4 are bound to anything and
// unused), 5 the GPU-side key count, 6 and 7 keys in and keys out again,
// as 64-bit words with INT64 (unused without).

#include "radix_lanes.glsl"

layout(constant_id = 5) const bool PAIRS = false;
#ifdef INT64
layout(constant_id = 6) const bool PACK_IN = false;  // 32-bit keys and values read packed
layout(constant_id = 7) const bool PACK_OUT = false; // and written packed
#else
const bool PACK_IN = false, PACK_OUT = false;
#endif

layout(std430, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 1) readonly buffer ValsIn { uint valsIn[]; };
layout(std430, binding = 2) readonly buffer Hist { uint hist[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 4) writeonly buffer ValsOut { uint valsOut[]; };
layout(std430, binding = 5) readonly buffer GpuCount { uint gpuCount[]; };
#ifdef INT64
layout(std430, binding = 6) readonly buffer KeysIn64 { uint64_t keysIn64[]; };
layout(std430, binding = 7) writeonly buffer KeysOut64 { uint64_t keysOut64[]; };
#else
layout(std430, binding = 6) readonly buffer KeysIn64 { uint keysIn64w[]; };   // bound, unused
layout(std430, binding = 7) writeonly buffer KeysOut64 { uint keysOut64w[]; }; // bound, unused
#endif

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
    uvec2 run = laneRun(gpuCount[countWord(pc.countOn)]);
    uint i = run.x;
#ifdef INT64
    if (!WIDE && !PAIRS && !PACK_IN) {
        // 32-bit keys alone two a load: the run's odd first key alone,
        // then pairs, then an odd last key alone below.
        if ((i & 1) != 0 && i < run.y) {
            uint k = keysIn[i];
            uint d = digitOf(sortKey(uvec2(k, 0)), pc.shift, pc.width);
            uint s = counters[d * WG + l];
            counters[d * WG + l] = s + 1;
            keysOut[s] = k;
            i++;
        }
        for (; i + 1 < run.y; i += 2) {
            uvec2 two = unpack32(keysIn64[i / 2]);
            uint d = digitOf(sortKey(uvec2(two.x, 0)), pc.shift, pc.width);
            uint s = counters[d * WG + l];
            counters[d * WG + l] = s + 1;
            keysOut[s] = two.x;
            d = digitOf(sortKey(uvec2(two.y, 0)), pc.shift, pc.width);
            s = counters[d * WG + l];
            counters[d * WG + l] = s + 1;
            keysOut[s] = two.y;
        }
    }
#endif
    for (; i < run.y; i++) {
        // raw: the key's words; with PACK_IN its value in raw.y.
#ifdef INT64
        uvec2 raw = WIDE || PACK_IN ? unpack32(keysIn64[i]) : uvec2(keysIn[i], 0);
#else
        uvec2 raw = WIDE ? uvec2(keysIn[2 * i], keysIn[2 * i + 1]) : uvec2(keysIn[i], 0);
#endif
        uint d = digitOf(sortKey(PACK_IN ? uvec2(raw.x, 0) : raw), pc.shift, pc.width);
        uint s = counters[d * WG + l];
        counters[d * WG + l] = s + 1;
#ifdef INT64
        if (PACK_OUT) {
            keysOut64[s] = pack64(uvec2(raw.x, PACK_IN ? raw.y : valsIn[i]));
            continue;
        }
        if (WIDE) {
            keysOut64[s] = pack64(raw);
        } else {
            keysOut[s] = raw.x;
        }
#else
        if (WIDE) {
            keysOut[2 * s] = raw.x;
            keysOut[2 * s + 1] = raw.y;
        } else {
            keysOut[s] = raw.x;
        }
#endif
        if (PAIRS) {
            valsOut[s] = PACK_IN ? raw.y : valsIn[i];
        }
    }
}
