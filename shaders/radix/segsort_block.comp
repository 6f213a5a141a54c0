#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// segsort_block: the block path of a segmented sort (radix.SegmentedPlan).
// Workgroup s sorts segment s, keys [offsets[s], offsets[s+1]) (both
// clamped to n; an end below its start is an empty segment), in shared
// memory, when it holds at most CAP = workgroup size * KPL keys; a longer
// segment is copied through unsorted (the caller promised none).
//
// The sort is a least-significant-digit radix sort of RADIX_BITS-bit
// digits (RADIX_BITS must be 4) over bits [begin, end) of the
// order-mapped key (radix.glsl), each pass a stable rank as CUB's
// BlockRadixRank computes it: invocation t holds the keys at positions
// [t * KPL, t * KPL + KPL) of the stage (a blocked arrangement, so that
// input order is (t, k) order); it counts its keys per digit in its own
// column of counters, remembering each key's count before it; one
// exclusive scan of the counters in digit-major order (each invocation
// sums its row of consecutive counters, then a workgroup scan of those
// sums) gives every (digit, invocation) its first position, and a key's
// new position is that plus its count before it. Equal digits keep their
// order: the sort is stable. Stage positions past the segment's length
// hold no key; they always count as the largest digit and, being last,
// stay last.
//
// The counters are 16-bit, two to a word (CUB's packed counters): digit
// d counts in the (d / HALF)-th half of word (d % HALF, t). One scan of
// the words scans both halves at once, each in digit-major order (no
// half's sum reaches 2^16: a segment holds at most 32768 keys); the
// upper half's digits then come after all the lower half's, whose total
// is the low half of the scan's total.

// Workgroup 0 also copies the keys before offsets[0], and the last
// workgroup those from offsets[nSeg] on, to the same positions of the
// outputs. With offsets that decrease, segments may overlap: their
// outputs are then unspecified, but no write leaves [0, n).
//
// Shared arrays are indexed through pad(i) = i + i / 32, which keeps the
// blocked reads and the scan's consecutive reads off one bank.
//
// Bindings: 0 keys in, 1 values in, 2 offsets (nSeg + 1 words), 3 keys
// out, 4 values out (without PAIRS, 1 and 4 are bound to anything and
// unused).

#include "../include/common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 5) const bool PAIRS = false;
layout(constant_id = 6) const uint MAX_SUBGROUPS = 64; // per workgroup, at the smallest subgroup size

layout(std430, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 1) readonly buffer ValsIn { uint valsIn[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 4) writeonly buffer ValsOut { uint valsOut[]; };

layout(push_constant) uniform Push {
    uint n;     // keys
    uint nSeg;  // segments
    uint begin; // the first bit sorted
    uint end;   // the bit after the last
} pc;

const uint CAP = gl_WorkGroupSize.x * KPL;

uint pad(uint i) {
    return i + (i >> 5);
}

const uint STAGE = CAP + CAP / 32;
const uint HALF = BUCKETS / 2; // digits per half of the counter words
const uint COUNTERS = HALF * gl_WorkGroupSize.x;
shared uint stageLo[STAGE];
shared uint stageHi[WIDE ? STAGE : 1];
shared uint stageVal[PAIRS ? STAGE : 1];
shared uint counters[COUNTERS + COUNTERS / 32];
shared uint sgSums[MAX_SUBGROUPS];
shared uint lowTotal; // the scan's total of the lower half's digits

uvec2 loadKey(uint i) {
    return WIDE ? uvec2(keysIn[2 * i], keysIn[2 * i + 1]) : uvec2(keysIn[i], 0);
}

void storeKey(uint i, uvec2 k) {
    if (WIDE) {
        keysOut[2 * i] = k.x;
        keysOut[2 * i + 1] = k.y;
    } else {
        keysOut[i] = k.x;
    }
}

// copyThrough copies keys (and values) [first, last) to the outputs.
void copyThrough(uint first, uint last) {
    for (uint i = first + gl_LocalInvocationID.x; i < last; i += gl_WorkGroupSize.x) {
        storeKey(i, loadKey(i));
        if (PAIRS) {
            valsOut[i] = valsIn[i];
        }
    }
}

// scanCounters replaces the counter words by their exclusive prefix sum
// in (word row, invocation) order, and sets lowTotal. All invocations
// call it; it starts and ends with a barrier.
void scanCounters() {
    uint lid = gl_LocalInvocationID.x;
    uint base = lid * HALF;
    barrier();
    uint sum = 0;
    [[unroll]] for (uint j = 0; j < HALF; j++) {
        sum += counters[pad(base + j)];
    }
    uint incl = subgroupInclusiveAdd(sum);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
        sgSums[gl_SubgroupID] = incl;
    }
    barrier();
    if (gl_SubgroupID == 0) {
        uint run = 0;
        for (uint s0 = 0; s0 < gl_NumSubgroups; s0 += gl_SubgroupSize) {
            uint s = s0 + gl_SubgroupInvocationID;
            uint v = s < gl_NumSubgroups ? sgSums[s] : 0;
            uint ex = subgroupExclusiveAdd(v);
            if (s < gl_NumSubgroups) {
                sgSums[s] = run + ex;
            }
            run += subgroupAdd(v);
        }
        if (gl_SubgroupInvocationID == 0) {
            lowTotal = run & 0xffffu;
        }
    }
    barrier();
    uint first = sgSums[gl_SubgroupID] + incl - sum;
    [[unroll]] for (uint j = 0; j < HALF; j++) {
        uint c = counters[pad(base + j)];
        counters[pad(base + j)] = first;
        first += c;
    }
    barrier();
}

// counterWord is the counter word of digit d and invocation t; halfShift
// the bit of d's half in it.
uint counterWord(uint d, uint t) {
    return pad((d % HALF) * gl_WorkGroupSize.x + t);
}

uint halfShift(uint d) {
    return 16 * (d / HALF);
}

void main() {
    uint s = linearWorkgroup();
    if (s >= pc.nSeg) {
        return; // a surplus workgroup of a 2D grid: the whole workgroup leaves
    }
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint start = min(offsets[s], pc.n);
    uint stop = max(min(offsets[s + 1], pc.n), start);
    uint len = stop - start;
    if (s == 0) {
        copyThrough(0, start);
    }
    if (s == pc.nSeg - 1) {
        copyThrough(stop, pc.n);
    }
    if (len <= 1 || len > CAP || pc.end <= pc.begin) {
        copyThrough(start, stop);
        return;
    }

    // Stage the segment, coalesced.
    for (uint i = lid; i < len; i += wg) {
        uvec2 k = loadKey(start + i);
        stageLo[pad(i)] = k.x;
        if (WIDE) {
            stageHi[pad(i)] = k.y;
        }
        if (PAIRS) {
            stageVal[pad(i)] = valsIn[start + i];
        }
    }
    barrier();

    uvec2 key[KPL];
    uint val[KPL];
    // meta[k]: the key's digit (bits 16 and up) and its count among the
    // invocation's earlier keys of that digit (the low 16 bits).
    uint meta[KPL];
    for (uint shift = pc.begin; shift < pc.end; shift += RADIX_BITS) {
        uint width = min(RADIX_BITS, pc.end - shift);
        [[unroll]] for (uint w = 0; w < HALF; w++) {
            counters[pad(w * wg + lid)] = 0;
        }
        [[unroll]] for (uint k = 0; k < KPL; k++) {
            uint i = lid * KPL + k;
            key[k] = uvec2(stageLo[pad(i)], WIDE ? stageHi[pad(i)] : 0);
            if (PAIRS) {
                val[k] = stageVal[pad(i)];
            }
            uint d = i < len ? digitOf(sortKey(key[k]), shift, width) : BUCKETS - 1;
            uint c = counterWord(d, lid);
            uint word = counters[c];
            meta[k] = d << 16 | ((word >> halfShift(d)) & 0xffffu);
            counters[c] = word + (1u << halfShift(d));
        }
        scanCounters();
        [[unroll]] for (uint k = 0; k < KPL; k++) {
            uint d = meta[k] >> 16;
            uint word = counters[counterWord(d, lid)];
            uint first = d < HALF ? word & 0xffffu : (word >> 16) + lowTotal;
            uint to = pad(first + (meta[k] & 0xffffu));
            stageLo[to] = key[k].x;
            if (WIDE) {
                stageHi[to] = key[k].y;
            }
            if (PAIRS) {
                stageVal[to] = val[k];
            }
        }
        barrier();
    }

    for (uint i = lid; i < len; i += wg) {
        storeKey(start + i, uvec2(stageLo[pad(i)], WIDE ? stageHi[pad(i)] : 0));
        if (PAIRS) {
            valsOut[start + i] = stageVal[pad(i)];
        }
    }
}
