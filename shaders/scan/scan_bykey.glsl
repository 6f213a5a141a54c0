#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_memory_scope_semantics : require
// scan_bykey.glsl: a scan by key in one pass: the values (ELEM_TYPE)
// scanned with the op (scan_ops.glsl: keys of min and max, bits of sums),
// restarting at each run of equal consecutive keys (KEY_TYPE; floats
// compare as IEEE 754 does: a NaN equals nothing, -0.0 equals +0.0).
// Kernels: scan_bykey (sums of uint32 and int32 values), scan_bykey_f32
// (SCAN_F32: float32 sums), scan_bykey_minmax and scan_bykey_minmax_f32
// (SCAN_MINMAX: min and max, OP, of integers or float32). Every element
// is a pair (head, value), head set where the element's key differs from
// the one before (and at element 0); the scan is of those pairs under the
// segmented operator (a, b) -> (a.head | b.head, b.head ? b.value :
// a.value op b.value), which is associative, so the chained scan with
// decoupled look-back and fallback of scan_onepass carries it across
// tiles. Keys and values are read once, the values written once.
//
// A workgroup takes a tile (TILE_BY_ID ? its index : the tile counter's
// next) of TILE = workgroup size * ELEMS elements, ELEMS = 4 * VECS
// consecutive ones per invocation (invocation i of the tile is lane i %
// subgroup size of subgroup i / subgroup size). Each invocation finds its
// heads (the key before its first element read from memory) and folds its
// elements from its last head (laneAggregate); each subgroup scans its
// lanes' pairs (ksExclusive: Kogge and Stone's, through shared memory);
// subgroup 0 scans the subgroups' (scanGroups), which gives the tile's
// aggregate (whether it holds a head, and the values from its last head
// on, or all of them). A tile with a head publishes its aggregate as its
// inclusive prefix at once (the runs before it do not reach past its
// head); one without publishes it as an aggregate, looks back, and
// publishes the inclusive prefix. A tile whose first element is no head
// looks back for the value of the run in progress at its start (the
// exclusive prefix); every invocation then writes its elements' scans.
//
// Status of tile t: status[1 + 2t] and status[2 + 2t], as scan_onepass's
// (a flag in bits 16-17: 0 not yet, 1 aggregate, 2 inclusive prefix; a
// 16-bit half of the value in bits 0-15; published with atomicMax, read
// with atomic loads, a mixture of flags read as not published).
// status[0] is the tile counter, status[1 + 2 * tiles] the count of
// finished workgroups (tile_reset.glsl).
//
// Fallback: a predecessor unpublished after pc.spins re-reads has its
// aggregate computed by the looking subgroup (tileAggregate) with the
// very operations its own workgroup runs, lane for lane, so that an
// aggregate published twice is the same bits, float sums included.
//
// Float sums are the same bits on every run: every addition's operands
// are fixed by the input and the tuning. Within a tile the trees above
// are fixed; across tiles the value carried into tile t is the left fold
// ((v + a1) + a2) + ... of the value at the end of the run's first tile
// and the aggregates of the tiles after it, so the look-back of a float
// sum finds the nearest tile that ends a fold (an inclusive prefix or a
// head) and then folds forward from it, tile by tile (foldForward),
// rather than adding the aggregates as it meets them, as the exact ops
// do (integer sums, min and max do not depend on the order).
//
// Bindings: 0 the keys as uvec4, 1 the same as uint, 2 the values as
// uvec4, 3 the same as uint, 4 status (2 + 2 * tiles words), 5 the output
// as uvec4, 6 the same as uint, 7 the key before the first element bound
// (at word pc.keyBefore; with WINDOWED, for windows past the first),
// 8 the GPU-side element count.
//
// Past one binding (WINDOWED): one dispatch per window of tiles whose
// keys, values and output one binding each holds, with a barrier between
// them, as scan_onepass's.

#include "../include/common.glsl"
#include "../include/key_types.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ELEM_TYPE = 0;      // the values' KEY_* code (32-bit; read by integer min and max alone)
layout(constant_id = 2) const uint VECS = 4;           // uvec4 units of values per invocation
layout(constant_id = 3) const uint KEY_TYPE = 0;       // the keys' KEY_* code
layout(constant_id = 4) const bool INCLUSIVE = false;
layout(constant_id = 5) const uint MAX_SUBGROUPS = 64; // workgroup size / smallest subgroup size
layout(constant_id = 6) const uint TILE_BY_ID = 1;     // 1: tile = workgroup index; 0: from the tile counter
layout(constant_id = 7) const uint SELF_RESET = 0;     // 1: set status back to zero at the end (tile_reset.glsl)
layout(constant_id = 8) const uint WINDOWED = 0;       // 1: one dispatch of several, each over one window
#ifdef SCAN_MINMAX
layout(constant_id = 9) const uint OP = 1;             // OP_MIN or OP_MAX (scan_ops.glsl)
#endif

layout(std430, binding = 0) readonly buffer KeyVec { uvec4 keyVec[]; };
layout(std430, binding = 1) readonly buffer KeyWord { uint keyWord[]; };
layout(std430, binding = 2) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 3) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 4) buffer Status { uint status[]; };
layout(std430, binding = 5) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 6) writeonly buffer DstWord { uint dstWord[]; };
layout(std430, binding = 7) readonly buffer KeyBefore { uint keyBefore[]; };
layout(std430, binding = 8) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;         // elements (the capacity when countOn)
    uint tiles;     // tiles in all: status holds 2 + 2 * tiles words
    uint countOn;   // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
    uint spins;     // re-reads of an unpublished predecessor before the fallback
    // With WINDOWED (else unused): this dispatch's tiles are tile0 ..
    // tileEnd - 1, its keys, values and output bound from element
    // tile0 * TILE; wgBase workgroups took a number from the tile counter
    // before it; keyBefore is the word of key tile0 * TILE - 1 in the
    // KeyBefore binding.
    uint tile0;
    uint tileEnd;
    uint wgBase;
    uint keyBefore;
} pc;

#include "scan_ops.glsl"

const uint WG = gl_WorkGroupSize.x;
const uint ELEMS = VECS * 4; // elements per invocation
const uint TILE = WG * ELEMS;
const bool WIDE_KEY = KEY_TYPE == KEY_U64;
const uint KEY_WORDS = WIDE_KEY ? 2 : 1;
const uint NONE = 0, AGG = 1, INCL = 2;

shared uvec2 ksBuf[WG];                 // each subgroup's exchanges, (head, value) per lane
shared uvec2 grpAgg[2 * MAX_SUBGROUPS]; // per subgroup, then their exclusive scan; the fallback's from MAX_SUBGROUPS
shared uint sTile, sPrefix;
shared uvec2 sAggregate;

#define DONE_WORD (1 + 2 * pc.tiles)
#include "../include/tile_reset.glsl"

// A pair (head, value): x is 1 where a head is among its elements, y the
// value (a key of the op) from the last head on.
uvec2 pairIdentity() {
    return uvec2(0, opIdentity());
}

// segCombine is the segmented operator on pairs a (earlier) and b (later).
uvec2 segCombine(uvec2 a, uvec2 b) {
    return b.x != 0 ? b : uvec2(a.x, opCombine(a.y, b.y));
}

// keyEq is compact.EqualKeys: integers by value, floats as IEEE 754.
bool keyEq(uvec2 a, uvec2 b) {
    if (KEY_TYPE == KEY_F32) {
        if ((a.x & 0x7fffffffu) > 0x7f800000u || (b.x & 0x7fffffffu) > 0x7f800000u) {
            return false;
        }
        return a.x == b.x || ((a.x | b.x) & 0x7fffffffu) == 0;
    }
    return a == b;
}

// keyAt is the key of element e of the window.
uvec2 keyAt(uint e) {
    return WIDE_KEY ? uvec2(keyWord[2 * e], keyWord[2 * e + 1]) : uvec2(keyWord[e], 0);
}

// keyBeforeAt is the key before element e of the window (e > 0, or e == 0
// of a window past the first).
uvec2 keyBeforeAt(uint e) {
    if (e > 0) {
        return keyAt(e - 1);
    }
    return WIDE_KEY ? uvec2(keyBefore[pc.keyBefore], keyBefore[pc.keyBefore + 1]) : uvec2(keyBefore[pc.keyBefore], 0);
}

// valueAt is element e's value as a key of the op.
uint valueAt(uint e) {
    return opKey(srcWord[e]);
}

// isHead says whether element e of the window is a head: the first of
// all (elem0 is the window's first element in the input), or its key k
// unlike the one before, prev.
bool isHead(uint elem0, uint e, uvec2 prev, uvec2 k) {
    return elem0 + e == 0 || !keyEq(prev, k);
}

// laneAggregate folds the first valid elements of vals, whose heads are
// the bits of heads, from the last head on, in element order.
uvec2 laneAggregate(uint vals[16], uint heads, uint valid) {
    uvec2 a = pairIdentity();
    [[unroll]] for (uint j = 0; j < 16; j++) {
        if (j < ELEMS && j < valid) {
            a = ((heads >> j) & 1u) != 0 ? uvec2(1, vals[j]) : uvec2(a.x, opCombine(a.y, vals[j]));
        }
    }
    return a;
}

// ksExclusive is the exclusive scan of the subgroup's lanes' pairs x under
// the segmented operator, in lane order (the pair identity in lane 0),
// and in total the subgroup's: Kogge and Stone's, each round an exchange
// through the subgroup's part of ksBuf. Every lane of the subgroup calls
// it.
uvec2 ksExclusive(uvec2 x, out uvec2 total) {
    uint lane = gl_SubgroupInvocationID;
    uint at = gl_SubgroupID * gl_SubgroupSize;
    for (uint d = 1; d < gl_SubgroupSize; d <<= 1) {
        ksBuf[at + lane] = x;
        subgroupBarrier();
        uvec2 p = lane >= d ? ksBuf[at + lane - d] : pairIdentity();
        subgroupBarrier();
        if (lane >= d) {
            x = segCombine(p, x);
        }
    }
    ksBuf[at + lane] = x;
    subgroupBarrier();
    uvec2 ex = lane > 0 ? ksBuf[at + lane - 1] : pairIdentity();
    total = ksBuf[at + gl_SubgroupSize - 1];
    subgroupBarrier();
    return ex;
}

// scanGroups replaces grpAgg[base .. base + count) by its exclusive scan
// under the segmented operator, in order, a subgroup's width at a time,
// and returns the total, with the calling subgroup alone.
uvec2 scanGroups(uint base, uint count) {
    uint lane = gl_SubgroupInvocationID;
    uvec2 run = pairIdentity();
    for (uint c0 = 0; c0 < count; c0 += gl_SubgroupSize) {
        uint i = c0 + lane;
        uvec2 x = i < count ? grpAgg[base + i] : pairIdentity();
        uvec2 total;
        uvec2 ex = ksExclusive(x, total);
        if (i < count) {
            grpAgg[base + i] = segCombine(run, ex);
        }
        run = segCombine(run, total);
    }
    subgroupBarrier();
    return run;
}

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

// tileAggregate is tile t's aggregate pair computed by the calling
// subgroup alone (the fallback's work), with the operations the tile's
// own workgroup runs: invocation i's lane aggregate (a serial fold, here
// one element at a time), each subgroup's ksExclusive, and scanGroups
// over the subgroups, in the fallback's half of grpAgg. elem0 is the
// window's first element in the input, n the elements of the window.
// Every lane gets it.
uvec2 tileAggregate(uint t, uint elem0, uint n) {
    uint lane = gl_SubgroupInvocationID;
    uint ts = t * TILE - elem0;
    for (uint s = 0; s < gl_NumSubgroups; s++) {
        uint e0 = ts + (s * gl_SubgroupSize + lane) * ELEMS;
        uint valid = e0 < n ? min(ELEMS, n - e0) : 0;
        uvec2 a = pairIdentity();
        uvec2 prev = valid > 0 && elem0 + e0 > 0 ? keyBeforeAt(e0) : uvec2(0);
        for (uint j = 0; j < valid; j++) {
            uvec2 k = keyAt(e0 + j);
            uint v = valueAt(e0 + j);
            a = isHead(elem0, e0 + j, prev, k) ? uvec2(1, v) : uvec2(a.x, opCombine(a.y, v));
            prev = k;
        }
        uvec2 total;
        ksExclusive(a, total);
        if (lane == 0) {
            grpAgg[MAX_SUBGROUPS + s] = total;
        }
    }
    subgroupBarrier();
    return scanGroups(MAX_SUBGROUPS, gl_NumSubgroups);
}

// fallback computes tile t's aggregate and publishes it: as the inclusive
// prefix where the tile holds a head, else as its aggregate.
uvec2 fallback(uint t, uint elem0, uint n) {
    uvec2 agg = tileAggregate(t, elem0, n);
    if (subgroupElect()) {
        publish(t, agg.x != 0 ? INCL : AGG, agg.y);
    }
    return agg;
}

// foldForward returns, for a float sum, the value of the run in progress
// at tile's start: v, the value at the end of tile from (an inclusive
// prefix, or the aggregate of a tile with a head), then the aggregates of
// tiles from + 1 .. tile - 1 added in that order. Each of those was read
// as an aggregate, or computed as one by the fallback; one that has
// published its inclusive prefix since gives that, which is the fold up
// to it bit for bit; one caught between its two words is re-read, and
// computed by the fallback past pc.spins re-reads.
uint foldForward(uint from, uint v, uint tile, uint elem0, uint n) {
    uint lane = gl_SubgroupInvocationID;
    uint fold = v;
    for (uint j0 = from + 1; j0 < tile; j0 += gl_SubgroupSize) {
        uint j = j0 + lane;
        uvec2 st = j < tile ? readStatus(j) : uvec2(AGG, opIdentity());
        uint spin = 0;
        uvec4 late = subgroupBallot(st.x == NONE);
        while (late != uvec4(0)) {
            if (++spin > pc.spins) {
                while (late != uvec4(0)) {
                    uint l = subgroupBallotFindLSB(late);
                    late[l / 32] &= ~(1u << (l % 32));
                    uvec2 agg = tileAggregate(j0 + l, elem0, n);
                    if (lane == l) {
                        st = uvec2(AGG, agg.y);
                    }
                }
                break;
            }
            if (st.x == NONE) {
                st = readStatus(j);
            }
            late = subgroupBallot(st.x == NONE);
        }
        ksBuf[lane] = st; // subgroup 0's part
        subgroupBarrier();
        uint count = min(gl_SubgroupSize, tile - j0);
        for (uint i = 0; i < count; i++) {
            uvec2 e = ksBuf[i];
            fold = e.x == INCL ? e.y : opCombine(fold, e.y);
        }
        subgroupBarrier();
    }
    return fold;
}

// lookBack returns, in subgroup 0, the value of the run in progress at
// tile's start, the tile's first element no head: scan_onepass's
// look-back and fallback over the predecessors' status, from the nearest
// back to one that ends a fold (an inclusive prefix, or a tile with a
// head that the fallback computed). The exact ops combine the aggregates
// on the way; a float sum folds forward from that tile (foldForward).
uint lookBack(uint tile, uint elem0, uint n) {
    uint lane = gl_SubgroupInvocationID;
    uint prefix = opIdentity();
    int base = int(tile) - 1;
    uint spin = 0;
    while (true) {
        int t = base - int(lane);
        uvec2 st = t < 0 ? uvec2(INCL, opIdentity()) : readStatus(uint(t));
        uvec4 stops = subgroupBallot(st.x != AGG);
        if (stops == uvec4(0)) {
            if (!FLOAT_OP_SUM) {
                prefix = opCombine(opSubgroup(st.y), prefix);
            }
            base -= int(gl_SubgroupSize);
            spin = 0;
            continue;
        }
        uint L = subgroupBallotFindLSB(stops); // the nearest predecessor not an aggregate
        if (!FLOAT_OP_SUM) {
            prefix = opCombine(opSubgroup(lane < L ? st.y : opIdentity()), prefix);
        }
        if (subgroupMax(lane == L ? st.x : 0) == INCL) {
            uint v = subgroupMax(lane == L ? st.y : 0);
            if (FLOAT_OP_SUM) {
                return foldForward(uint(base) - L, v, tile, elem0, n);
            }
            return opCombine(v, prefix);
        }
        // Tile base - L has not published: wait, or compute it.
        base -= int(L);
        spin = L > 0 ? 1 : spin + 1;
        if (spin > pc.spins) {
            uvec2 agg = fallback(uint(base), elem0, n);
            if (agg.x != 0) {
                if (FLOAT_OP_SUM) {
                    return foldForward(uint(base), agg.y, tile, elem0, n);
                }
                return opCombine(agg.y, prefix);
            }
            if (!FLOAT_OP_SUM) {
                prefix = opCombine(agg.y, prefix);
            }
            base--;
            spin = 0;
        }
    }
    return prefix;
}

void runTile() {
    uint lid = gl_LocalInvocationID.x;
    uint lane = gl_SubgroupInvocationID;
    uint sgid = gl_SubgroupID;
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
        // As scan_onepass's windows: the look-back meets an inclusive
        // prefix by tile tile0 - 1, the fallback computes tiles of this
        // window only.
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
    uint nAt = n - elem0; // elements from the first bound

    // The invocation's elements: keys (for the heads only) and values.
    uint e0 = tile * TILE - elem0 + (sgid * gl_SubgroupSize + lane) * ELEMS;
    uint valid = e0 < nAt ? min(ELEMS, nAt - e0) : 0;
    uint vals[16];
    uint heads = 0;
    {
        uvec4 u[8];
        uint words = valid * KEY_WORDS;
        [[unroll]] for (uint q = 0; q < 8; q++) {
            u[q] = uvec4(0);
            if (q < VECS * KEY_WORDS) {
                uint w0 = e0 * KEY_WORDS + 4 * q;
                if (4 * q + 4 <= words) {
                    u[q] = keyVec[w0 / 4];
                } else {
                    [[unroll]] for (uint w = 0; w < 4; w++) {
                        if (4 * q + w < words) {
                            u[q][w] = keyWord[w0 + w];
                        }
                    }
                }
            }
        }
        uvec4 vu[4];
        [[unroll]] for (uint q = 0; q < 4; q++) {
            vu[q] = uvec4(0);
            if (q < VECS) {
                if (4 * q + 4 <= valid) {
                    vu[q] = srcVec[e0 / 4 + q];
                } else {
                    [[unroll]] for (uint w = 0; w < 4; w++) {
                        if (4 * q + w < valid) {
                            vu[q][w] = srcWord[e0 + 4 * q + w];
                        }
                    }
                }
            }
        }
        uvec2 prev = valid > 0 && elem0 + e0 > 0 ? keyBeforeAt(e0) : uvec2(0);
        [[unroll]] for (uint j = 0; j < 16; j++) {
            vals[j] = opIdentity();
            if (j < ELEMS && j < valid) {
                uvec2 k = WIDE_KEY ? uvec2(u[j / 2][2 * (j % 2)], u[j / 2][2 * (j % 2) + 1]) : uvec2(u[j / 4][j % 4], 0);
                if (isHead(elem0, e0 + j, prev, k)) {
                    heads |= 1u << j;
                }
                prev = k;
                vals[j] = opKey(vu[j / 4][j % 4]);
            }
        }
    }

    // The scan of the invocations' pairs: in the subgroup, then of the
    // subgroups (subgroup 0), which gives the tile's aggregate.
    uvec2 total;
    uvec2 laneEx = ksExclusive(laneAggregate(vals, heads, valid), total);
    if (lane == 0) {
        grpAgg[sgid] = total;
    }
    barrier();
    if (sgid == 0) {
        uvec2 agg = scanGroups(0, gl_NumSubgroups);
        if (lane == 0) {
            sAggregate = agg;
        }
    }
    barrier();
    uvec2 aggregate = sAggregate;

    // Publish, look back where the tile's first element is no head, and
    // publish the inclusive prefix, with subgroup 0 alone (its lane 0
    // holds the tile's first element).
    if (sgid == 0) {
        bool firstHead = subgroupBroadcastFirst(heads & 1u) != 0;
        bool ends = tile == 0 || aggregate.x != 0; // the tile's end does not depend on its predecessors
        if (subgroupElect()) { // the invocation that makes every status write (tile_reset.glsl)
            publish(tile, ends ? INCL : AGG, aggregate.y);
        }
        uint prefix = opIdentity();
        if (tile > 0 && !firstHead) {
            prefix = lookBack(tile, elem0, nAt);
        }
        if (subgroupElect()) {
            if (!ends) {
                publish(tile, INCL, opCombine(prefix, aggregate.y));
            }
            sPrefix = prefix;
            countIn(); // done with status
        }
    }
    barrier();

    // Write the scans: from the value of the run in progress at the
    // invocation's first element.
    uvec2 inTile = segCombine(grpAgg[sgid], laneEx);
    uint run = inTile.x != 0 ? inTile.y : opCombine(sPrefix, inTile.y);
    // An exclusive scan's value at a head: the identity (+0.0, the sum of
    // nothing, for float sums).
    uint empty = FLOAT_OP_SUM ? 0u : opBits(opIdentity());
    uvec4 o[4];
    [[unroll]] for (uint j = 0; j < 16; j++) {
        if (j < ELEMS) {
            bool head = ((heads >> j) & 1u) != 0;
            uint next = head ? vals[j] : opCombine(run, vals[j]);
            o[j / 4][j % 4] = INCLUSIVE ? opBits(next) : (head ? empty : opBits(run));
            run = next;
        }
    }
    [[unroll]] for (uint q = 0; q < 4; q++) {
        if (q < VECS) {
            if (4 * q + 4 <= valid) {
                dstVec[e0 / 4 + q] = o[q];
            } else {
                [[unroll]] for (uint w = 0; w < 4; w++) {
                    if (4 * q + w < valid) {
                        dstWord[e0 + 4 * q + w] = o[q][w];
                    }
                }
            }
        }
    }
}

void main() {
    runTile();
    resetIfLast();
}
