#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// segsort_block: the block path of a segmented sort (radix.SegmentedPlan).
// Workgroup g sorts segments [g * SEGS, g * SEGS + SEGS), segment s being
// keys [offsets[s], offsets[s+1]) (both clamped to n; an end below its
// start is an empty segment), in shared memory. With SEGS = 1, it sorts
// its segment when it holds at most CAP = workgroup size * KPL keys; a
// longer segment is copied through unsorted (the caller promised none).
// With several (MULTI, for short segments), where the group's keys fit
// CAP together, it stages them all with each key's segment index in the
// group and sorts by key and then by that index (SEG_BITS more bits:
// stable, so each segment's keys stay sorted); where they do not, each
// segment on its own as with SEGS = 1.
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
// With whole (radix.Plan's small sorts on CPU devices, one workgroup and
// SEGS = 1), workgroup 0 sorts keys [0, n) (whole 1), or [0,
// min(offsets[whole - 2], n)) with offsets bound to the aligned window
// that holds a GPU count (whole 2 + the count's word), and copies
// nothing through.
//
// With skipOn (the automatic path), the whole dispatch returns at once
// where skip[0] is not 0: segsort_longest found a segment too long, and
// the general path sorts instead.
//
// Bindings: 0 keys in, 1 values in, 2 offsets (nSeg + 1 words), 3 keys
// out, 4 values out (without PAIRS, 1 and 4 are bound to anything and
// unused), 5 the skip word (read when pc.skipOn is set).

#include "../include/common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 5) const bool PAIRS = false;
layout(constant_id = 6) const uint MAX_SUBGROUPS = 64; // per workgroup, at the smallest subgroup size
layout(constant_id = 7) const uint SEGS = 1;     // segments per workgroup
layout(constant_id = 8) const uint SEG_BITS = 0; // bits of SEGS - 1
const bool MULTI = SEGS > 1;

layout(std430, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 1) readonly buffer ValsIn { uint valsIn[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 4) writeonly buffer ValsOut { uint valsOut[]; };
layout(std430, binding = 5) readonly buffer Skip { uint skip[]; };

layout(push_constant) uniform Push {
    uint n;     // keys
    uint nSeg;  // segments
    uint begin; // the first bit sorted
    uint end;   // the bit after the last
    uint skipOn; // return where skip[0] is not 0
    uint whole;  // radix.Plan's sort in one workgroup: 1 keys [0, n), 2 + w keys [0, min(offsets[w], n)); nothing copied through
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
shared uint stageSeg[MULTI ? STAGE : 1]; // with MULTI: each key's segment in the group
shared uint segOff[SEGS];                // with MULTI: the group's segments' starts
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

// sortRange sorts keys [start, stop) in the stage and writes them back:
// with MULTI, keys of the workgroup's segments, each with its segment's
// index in the group (by binary search of segOff), sorted by key and then
// by that index; else one segment. A range of at most one key, of more
// than CAP, or with no bits to sort is copied through. All invocations
// call it with the same arguments.
void sortRange(uint start, uint stop, bool multi) {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint len = stop - start;
    if (len <= 1 || len > CAP || pc.end <= pc.begin) {
        copyThrough(start, stop);
        return;
    }

    // Stage the keys, coalesced.
    for (uint i = lid; i < len; i += wg) {
        uvec2 k = loadKey(start + i);
        stageLo[pad(i)] = k.x;
        if (WIDE) {
            stageHi[pad(i)] = k.y;
        }
        if (PAIRS) {
            stageVal[pad(i)] = valsIn[start + i];
        }
        if (MULTI && multi) {
            // The last segment starting at or before the key (offsets
            // that decrease give some segment of the group).
            uint lo = 0, hi = SEGS;
            while (lo + 1 < hi) {
                uint mid = (lo + hi) / 2;
                if (segOff[mid] <= start + i) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            stageSeg[pad(i)] = lo;
        }
    }
    barrier();

    uvec2 key[KPL];
    uint val[KPL];
    uint seg[KPL];
    // meta[k]: the key's digit (bits 16 and up) and its count among the
    // invocation's earlier keys of that digit (the low 16 bits).
    uint meta[KPL];
    // The key's bits, then with multi the segment index's SEG_BITS.
    uint keyPasses = (pc.end - pc.begin + RADIX_BITS - 1) / RADIX_BITS;
    uint passes = keyPasses + (MULTI && multi ? (SEG_BITS + RADIX_BITS - 1) / RADIX_BITS : 0);
    for (uint pass = 0; pass < passes; pass++) {
        bool bySeg = pass >= keyPasses;
        uint shift = bySeg ? (pass - keyPasses) * RADIX_BITS : pc.begin + pass * RADIX_BITS;
        uint width = min(RADIX_BITS, (bySeg ? SEG_BITS : pc.end) - shift);
        [[unroll]] for (uint w = 0; w < HALF; w++) {
            counters[pad(w * wg + lid)] = 0;
        }
        [[unroll]] for (uint k = 0; k < KPL; k++) {
            uint i = lid * KPL + k;
            key[k] = uvec2(stageLo[pad(i)], WIDE ? stageHi[pad(i)] : 0);
            if (PAIRS) {
                val[k] = stageVal[pad(i)];
            }
            if (MULTI) {
                seg[k] = stageSeg[pad(i)];
            }
            uint d = BUCKETS - 1;
            if (i < len) {
                d = bySeg ? (seg[k] >> shift) & ((1u << width) - 1u) : digitOf(sortKey(key[k]), shift, width);
            }
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
            if (MULTI) {
                stageSeg[to] = seg[k];
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
    // The stage is read again only after the next range's staging
    // barrier; the next staging writes it only after every invocation's
    // last read here: order them.
    barrier();
}

uint clampedOffset(uint s) {
    return min(offsets[s], pc.n);
}

void main() {
    uint g = linearWorkgroup();
    if (pc.whole != 0) {
        // One segment from key 0, its end n or the GPU count bound at
        // offsets (radix.Plan's small sorts on CPU devices): the keys
        // past it, in the outputs, are left unwritten.
        if (g == 0) {
            sortRange(0, pc.whole >= 2 ? min(offsets[pc.whole - 2], pc.n) : pc.n, false);
        }
        return;
    }
    uint s0 = g * SEGS;
    if (s0 >= pc.nSeg || (pc.skipOn != 0 && skip[0] != 0)) {
        return; // a surplus workgroup of a 2D grid, or the general path sorts: the whole workgroup leaves
    }
    uint s1 = min(s0 + SEGS, pc.nSeg);
    uint lo = clampedOffset(s0);
    uint hi = max(clampedOffset(s1), lo);
    if (g == 0) {
        copyThrough(0, lo);
    }
    if (s1 == pc.nSeg) {
        copyThrough(hi, pc.n);
    }
    if (MULTI && hi - lo <= CAP) {
        // The group's segments fit the stage together: their starts,
        // clamped into [lo, hi], for the keys' binary search.
        for (uint j = gl_LocalInvocationID.x; j < SEGS; j += gl_WorkGroupSize.x) {
            segOff[j] = s0 + j < s1 ? clamp(clampedOffset(s0 + j), lo, hi) : hi;
        }
        barrier();
        sortRange(lo, hi, true);
        return;
    }
    // One segment, or a group too long together (a broken promise, or
    // offsets that decrease): each segment on its own.
    for (uint s = s0; s < s1; s++) {
        uint start = clampedOffset(s);
        sortRange(start, max(clampedOffset(s + 1), start), false);
    }
}
