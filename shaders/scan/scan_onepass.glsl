#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_memory_scope_semantics : require
// scan_onepass.glsl: a prefix scan in one pass over the input, the
// chained scan with decoupled look-back and decoupled fallback of
// select_onepass, with sums where the compaction has counts. Kernels:
// scan_onepass, integer sums; scan_onepass_minmax and
// scan_onepass_minmax_f32, which define SCAN_MINMAX (and SCAN_F32), min
// and max (OP, scan_ops.glsl).
// Below, "sum" is the op's combination (for min and max, of keys:
// scan_ops.glsl), which is exact in any order and grouping for every op
// this pass runs.
//
// Each workgroup takes tile TILE_BY_ID ? its index : the tile counter's
// next, loads it once (TILE = workgroup size * VECS * 4 elements; unit
// u = k * WG + lid holds elements 4u .. 4u+3), and keeps its units in
// registers. Each subgroup sums its segments (its units k, 4 * subgroup
// size consecutive elements) with subgroupExclusiveAdd; subgroup 0 scans
// the segment sums into the tile's aggregate, which the tile publishes at
// once. Subgroup 0 then looks back over its predecessors' status for the
// exclusive prefix P and publishes the inclusive prefix P + aggregate;
// every lane finally writes its units' sums: P + (the segment's first
// sum) + (the lane's exclusive sum in the segment) + the serial sum inside
// the unit.
//
// Status of tile t: two words, status[1 + 2t] and status[2 + 2t], each
// holding a flag in bits 16-17 (0 not yet, 1 aggregate, 2 inclusive
// prefix) and one 16-bit half of the 32-bit value in bits 0-15 (low half
// first). Each word is published with atomicMax (a flag never goes down)
// and read with atomic loads, so no other memory ordering is needed. A
// reader takes a value only when both words carry the same flag; a
// mixture (the owner between its two stores) reads as not published. An
// aggregate may be published twice, by its tile and by a successor's
// fallback: both write the same bits, as integer sums, mins and maxes do
// not depend on their order (which is why float sums keep the three
// phases). status[0]
// is the tile counter, status[1 + 2 * tiles] the count of finished
// workgroups. The last workgroup to finish sets them all back to zero
// (tile_reset.glsl), so the host clears status only when it does not know
// it zero.
//
// Fallback: a predecessor that stays unpublished for pc.spins re-reads is
// summed by the looking subgroup itself from its input, which this pass
// never overwrites (it does not run in place).
//
// Bindings: 0 the elements as uvec4, 1 the same as uint, 2 status
// (2 + 2 * tiles words), 3 the output as uvec4, 4 the same as uint, 5 the
// total (1 word: the elements' bits), 6 the GPU-side element count.
//
// Past one binding (WINDOWED): the host records one dispatch per window
// of tiles whose input and output one binding each holds, with a barrier
// between them; element i's sum goes to slot i, so each dispatch binds
// the same window of both.

#include "../include/common.glsl"
#include "../include/select.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 8) const bool INCLUSIVE = false;
layout(constant_id = 9) const uint MAX_SUBGROUPS = 64; // workgroup size / smallest subgroup size
layout(constant_id = 10) const uint TILE_BY_ID = 1;    // 1: tile = workgroup index; 0: from the tile counter
layout(constant_id = 11) const uint SELF_RESET = 0;    // 1: set status back to zero at the end (tile_reset.glsl); 0: the host clears it
layout(constant_id = 12) const uint WINDOWED = 0;      // 1: one dispatch of several, each over one window of the input and output
#ifdef SCAN_MINMAX
layout(constant_id = 13) const uint OP = 1;            // OP_MIN or OP_MAX (scan_ops.glsl) of elements of KEY_TYPE
#endif

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) buffer Status { uint status[]; };
layout(std430, binding = 3) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 4) writeonly buffer DstWord { uint dstWord[]; };
layout(std430, binding = 5) writeonly buffer Total { uint total[]; };
layout(std430, binding = 6) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;       // elements (the capacity when countOn)
    uint tiles;   // tiles dispatched: status holds 2 + 2 * tiles words
    uint countOn; // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
    uint spins;   // re-reads of an unpublished predecessor before the fallback
    // With WINDOWED (else unused): this dispatch's tiles are tile0 ..
    // tileEnd - 1, its input and output bound from element tile0 * TILE;
    // wgBase workgroups took a number from the tile counter before it.
    uint tile0;
    uint tileEnd;
    uint wgBase;
} pc;

const bool LOAD_DATA = true;
#define LOAD_ONLY
#include "../include/select_load.glsl"
#ifdef SCAN_MINMAX
const uint ELEM_TYPE = KEY_TYPE;
#include "scan_ops.glsl"
#endif

const uint WG = gl_WorkGroupSize.x;
const uint TILE = WG * VECS * 4;
const uint NONE = 0, AGG = 1, INCL = 2;

shared uint segSums[VECS * MAX_SUBGROUPS]; // per (load k, subgroup), then their exclusive scan
shared uint sTile, sAggregate, sPrefix;

#define DONE_WORD (1 + 2 * pc.tiles)
#include "../include/tile_reset.glsl"

void publish(uint t, uint flag, uint value) {
    atomicMax(status[1 + 2 * t], flag << 16 | (value & 0xffffu), gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    atomicMax(status[2 + 2 * t], flag << 16 | (value >> 16), gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

// readStatus returns tile t's flag (NONE when its two words disagree) and
// value.
uvec2 readStatus(uint t) {
    uint lo = atomicLoad(status[1 + 2 * t], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    uint hi = atomicLoad(status[2 + 2 * t], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    uint flag = lo >> 16;
    if (flag != hi >> 16) {
        flag = NONE;
    }
    return uvec2(flag, (lo & 0xffffu) | hi << 16);
}

#ifdef SCAN_MINMAX
// loadKeys loads the unit whose first element is first (n elements in
// all) as keys (scan_ops.glsl).
uvec4 loadKeys(uint first, uint n) {
    uint avail = n - min(first, n);
    return opKeys(loadUnit(first, first + 4 <= n, avail), avail);
}

// loadK loads the lane's unit k of the tile starting at start (n elements
// in all) as keys.
uvec4 loadK(uint start, uint k, uint n) {
    return loadKeys(start + (k * WG + gl_LocalInvocationID.x) * 4, n);
}
#else
uint sum4(uvec4 v) {
    return (v.x + v.y) + (v.z + v.w);
}

// loadK loads the lane's unit k of the tile starting at start (n elements in all).
uvec4 loadK(uint start, uint k, uint n) {
    uint first = start + (k * WG + gl_LocalInvocationID.x) * 4;
    return loadUnit(first, first + 4 <= n, n - min(first, n));
}
#endif

// sumTile sums tile t with the calling subgroup alone: the fallback's
// work. Every lane gets the sum. elem0 is the first element bound, n the
// elements in all.
uint sumTile(uint t, uint elem0, uint n) {
    uint start = t * TILE - elem0;
    n -= elem0;
#ifdef SCAN_MINMAX
    uint s = opIdentity();
    for (uint u = gl_SubgroupInvocationID; u < WG * VECS; u += gl_SubgroupSize) {
        s = opCombine(s, opReduce4(loadKeys(start + u * 4, n)));
    }
    return opSubgroup(s);
#else
    uint s = 0;
    for (uint u = gl_SubgroupInvocationID; u < WG * VECS; u += gl_SubgroupSize) {
        uint first = start + u * 4;
        s += sum4(loadUnit(first, first + 4 <= n, n - min(first, n)));
    }
    return subgroupAdd(s);
#endif
}

void runTile() {
    uint lid = gl_LocalInvocationID.x;
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint sgid = gl_SubgroupID;
    uint nsg = gl_NumSubgroups;
    uint n = countedElems(pc.n, 0, pc.countOn, gpuCount[countWord(pc.countOn)]);
    uint lastTile = n == 0 ? 0 : (n - 1) / TILE;

    uint tile;
    if (TILE_BY_ID != 0) {
        tile = linearWorkgroup();
    } else {
        if (lid == 0) {
            sTile = atomicAdd(status[0], 1);
        }
        barrier();
        tile = sTile;
    }
    uint elem0 = 0, tileEnd = pc.tiles; // the first element bound; one past the dispatch's last tile
    if (WINDOWED != 0) {
        // One dispatch of several, each over the tiles of one window: its
        // predecessors' dispatches are over (a barrier lies between), so
        // its look-back meets an inclusive prefix by tile tile0 - 1, and
        // its fallback sums only tiles of its own window.
        tile = pc.tile0 + (TILE_BY_ID != 0 ? tile : tile - pc.wgBase);
        elem0 = pc.tile0 * TILE;
        tileEnd = pc.tileEnd;
    }
    if (tile > lastTile || tile >= tileEnd) {
        if (lid == 0) {
            countIn(); // it made no status access but the tile counter's
        }
        return; // past the count: no tile with elements waits on this one
    }
    uint start = tile * TILE - elem0; // from the first element bound
    uint nAt = n - elem0;

    // Load the tile once; sum each segment.
    uvec4 v[4];
    uint ex[4];
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            v[k] = loadK(start, k, nAt);
        }
    }
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
#ifdef SCAN_MINMAX
            uint s = opReduce4(v[k]);
            ex[k] = opSubgroupExclusive(s);
            uint segSum = opSubgroup(s);
#else
            uint s = sum4(v[k]);
            ex[k] = subgroupExclusiveAdd(s);
            uint segSum = subgroupAdd(s);
#endif
            if (subgroupElect()) {
                segSums[k * nsg + sgid] = segSum;
            }
        }
    }
    barrier();
    // Exclusive scan of the segment sums, in element order.
    if (sgid == 0) {
#ifdef SCAN_MINMAX
        uint carry = opIdentity();
        for (uint base = 0; base < VECS * nsg; base += sg) {
            uint i = base + lane;
            uint x = i < VECS * nsg ? segSums[i] : opIdentity();
            uint excl = opSubgroupExclusive(x);
            if (i < VECS * nsg) {
                segSums[i] = opCombine(carry, excl);
            }
            carry = opCombine(carry, opSubgroup(x));
        }
#else
        uint carry = 0;
        for (uint base = 0; base < VECS * nsg; base += sg) {
            uint i = base + lane;
            uint x = i < VECS * nsg ? segSums[i] : 0;
            uint incl = subgroupInclusiveAdd(x);
            if (i < VECS * nsg) {
                segSums[i] = carry + incl - x;
            }
            carry += subgroupAdd(x);
        }
#endif
        if (lane == 0) {
            sAggregate = carry;
        }
    }
    barrier();
    uint aggregate = sAggregate;

    // Publish the aggregate early, so successors can look past this tile.
    if (sgid == 0 && subgroupElect()) { // the invocation that makes every status access (tile_reset.glsl)
        publish(tile, tile == 0 ? INCL : AGG, aggregate);
    }

    // Look back for the exclusive prefix, with subgroup 0 alone: each
    // round reads sg predecessors' status (lane i: tile base - i), adds
    // the aggregates up to the nearest one that is not an aggregate, and
    // stops there if it is an inclusive prefix. At a predecessor that has
    // not published it re-reads, up to pc.spins times, then sums that
    // tile itself (the fallback) and goes on past it.
    if (sgid == 0) {
#ifdef SCAN_MINMAX
        uint prefix = opIdentity();
#else
        uint prefix = 0;
#endif
        int base = int(tile) - 1;
        uint spin = 0;
        while (tile > 0) {
            int t = base - int(lane);
#ifdef SCAN_MINMAX
            uvec2 st = t < 0 ? uvec2(INCL, opIdentity()) : readStatus(uint(t));
#else
            uvec2 st = t < 0 ? uvec2(INCL, 0) : readStatus(uint(t));
#endif
            uvec4 stops = subgroupBallot(st.x != AGG);
            if (stops == uvec4(0)) {
#ifdef SCAN_MINMAX
                prefix = opCombine(prefix, opSubgroup(st.y));
#else
                prefix += subgroupAdd(st.y);
#endif
                base -= int(sg);
                spin = 0;
                continue;
            }
            uint L = subgroupBallotFindLSB(stops); // the nearest predecessor not an aggregate
#ifdef SCAN_MINMAX
            prefix = opCombine(prefix, opSubgroup(lane < L ? st.y : opIdentity()));
#else
            prefix += subgroupAdd(lane < L ? st.y : 0);
#endif
            uint stopFlag = subgroupMax(lane == L ? st.x : 0);
            if (stopFlag == INCL) {
#ifdef SCAN_MINMAX
                prefix = opCombine(prefix, opSubgroup(lane == L ? st.y : opIdentity()));
#else
                prefix += subgroupAdd(lane == L ? st.y : 0);
#endif
                break;
            }
            // Tile base - L has not published: wait, or sum it.
            base -= int(L);
            spin = L > 0 ? 1 : spin + 1;
            if (spin > pc.spins) {
                uint agg = sumTile(uint(base), elem0, n);
                if (subgroupElect()) {
                    publish(uint(base), AGG, agg);
                }
#ifdef SCAN_MINMAX
                prefix = opCombine(prefix, agg);
#else
                prefix += agg;
#endif
                base--;
                spin = 0;
            }
        }
        if (subgroupElect()) {
            if (tile > 0) {
#ifdef SCAN_MINMAX
                publish(tile, INCL, opCombine(prefix, aggregate));
#else
                publish(tile, INCL, prefix + aggregate);
#endif
            }
            sPrefix = prefix;
            countIn(); // done with status
        }
    }
    barrier();
    uint prefix = sPrefix;

    // Write the sums.
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            uvec4 o;
#ifdef SCAN_MINMAX
            uint at = opCombine(opCombine(prefix, segSums[k * nsg + sgid]), ex[k]);
            [[unroll]] for (uint j = 0; j < 4; j++) {
                uint next = opCombine(at, v[k][j]);
                o[j] = opBits(INCLUSIVE ? next : at);
                at = next;
            }
#else
            uint at = prefix + segSums[k * nsg + sgid] + ex[k];
            [[unroll]] for (uint j = 0; j < 4; j++) {
                uint next = at + v[k][j];
                o[j] = INCLUSIVE ? next : at;
                at = next;
            }
#endif
            uint first = start + (k * WG + lid) * 4;
            if (first + 4 <= nAt) {
                dstVec[first / 4] = o;
            } else {
                [[unroll]] for (uint j = 0; j < 4; j++) {
                    if (first + j < nAt) {
                        dstWord[first + j] = o[j];
                    }
                }
            }
        }
    }

    if (tile == lastTile && lid == 0) {
#ifdef SCAN_MINMAX
        total[0] = opBits(opCombine(prefix, aggregate));
#else
        total[0] = prefix + aggregate;
#endif
    }
}

void main() {
    runTile();
    resetIfLast();
}
