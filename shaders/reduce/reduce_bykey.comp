#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_memory_scope_semantics : require
// reduce_bykey: the first of a reduction by key's two dispatches. The
// runs are the stretches of equal consecutive keys (KEY_TYPE; floats
// compare as IEEE 754 does: a NaN equals nothing, -0.0 equals +0.0); each
// run's first key and the reduction of its values (TYPE) are written at
// the run's index, and the runs' count to the result block.
//
// Workgroup by workgroup, a tile of keys and values (reduce_runs.glsl):
// each invocation finds its heads (keys unlike the one before; the key
// before its first and the one after its last are loaded from memory),
// the workgroup counts them, and the tile finds the runs before it by
// scan_onepass's chained scan with decoupled look-back and decoupled
// fallback over integer counts (which do not depend on the order they
// are added in): status of tile t is two words, status[1 + 2t] and
// status[2 + 2t], each a flag in bits 16-17 (0 not yet, 1 the tile's head
// count, 2 the heads up to and including the tile) and one 16-bit half
// of the count; a predecessor that stays unpublished for pc.spins
// re-reads has its heads counted by the looking subgroup from its keys.
// status[0] is the tile counter, status[1 + 2 * tiles] the count of
// finished workgroups (tile_reset.glsl). The values are never carried
// by the look-back: runs that begin and end in the tile are written
// here, those that cross its edges leave their parts in the tile record
// (P, Q, the flags and the runs before the tile) for
// reduce_bykey_fixup, which combines them in tile order. So a float sum
// is the same bits on every run.
//
// Bindings: 0 the keys as uvec4, 1 the same as uint, 2 the values as
// uvec4, 3 the same as uint, 4 status, 5 the tile records, 6 the unique
// keys out, 7 the values out, 8 the result block (result_block.glsl),
// 9 the GPU-side element count.

#include "../include/common.glsl"
#include "../include/float_sum.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0;             // OP_SUM, OP_MIN or OP_MAX (reduce_ops.glsl)
layout(constant_id = 2) const uint TYPE = 0;           // the values' KEY_* code (32-bit)
layout(constant_id = 3) const uint VECS = 4;           // uvec4 units of values per invocation
layout(constant_id = 4) const uint KEY_TYPE = 0;       // the keys' KEY_* code
layout(constant_id = 5) const uint MAX_SUBGROUPS = 64; // workgroup size / smallest subgroup size
layout(constant_id = 6) const uint TILE_BY_ID = 1;     // 1: tile = workgroup index; 0: from the tile counter
layout(constant_id = 7) const uint SELF_RESET = 0;     // 1: set status back to zero at the end (tile_reset.glsl)

layout(std430, binding = 0) readonly buffer KeyVec { uvec4 keyVec[]; };
layout(std430, binding = 1) readonly buffer KeyWord { uint keyWord[]; };
layout(std430, binding = 2) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 3) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 4) buffer Status { uint status[]; };
layout(std430, binding = 5) writeonly buffer Tiles { uint tiles[]; };
layout(std430, binding = 6) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 7) writeonly buffer ValuesOut { uint valuesOut[]; };
layout(std430, binding = 8) writeonly buffer Result { uint result[]; };
layout(std430, binding = 9) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;         // elements (the capacity when countOn)
    uint tiles;     // tiles dispatched: status holds 2 + 2 * tiles words
    uint countOn;   // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
    uint spins;     // re-reads of an unpublished predecessor before the fallback
    uint groupSize; // the result block's dispatch arguments' workgroup size
    uint maxX;      // maxComputeWorkGroupCount[0], for those arguments
} pc;

#include "reduce_ops.glsl"
#include "reduce_load.glsl"
#include "reduce_runs.glsl"
#include "../include/result_block.glsl"

const uint NONE = 0, AGG = 1, INCL = 2;
const bool WIDE_KEY = KEY_TYPE == KEY_U64;
const uint KEY_WORDS = WIDE_KEY ? 2 : 1;

shared uint headSums[MAX_SUBGROUPS]; // per subgroup, then their exclusive scan
shared uint sTile, sAggregate, sPrefix;

#define DONE_WORD (1 + 2 * pc.tiles)
#include "../include/tile_reset.glsl"

uvec2 keyAt(uint e) {
    return WIDE_KEY ? uvec2(keyWord[2 * e], keyWord[2 * e + 1]) : uvec2(keyWord[e], 0);
}

// keyEq is compact.EqualKeys: integers by value, floats as IEEE 754.
bool keyEq(uvec2 a, uvec2 b) {
    if (KEY_TYPE == KEY_F32) {
        if (isNaN32(a.x) || isNaN32(b.x)) {
            return false;
        }
        return a.x == b.x || ((a.x | b.x) & 0x7fffffffu) == 0;
    }
    return a == b;
}

// loadKeys loads the invocation's valid keys from element e0 into k.
void loadKeys(uint e0, uint valid, out uvec2 k[16]) {
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
    [[unroll]] for (uint j = 0; j < 16; j++) {
        k[j] = uvec2(0);
        if (j < ELEMS) {
            k[j] = WIDE_KEY ? uvec2(u[j / 2][2 * (j % 2)], u[j / 2][2 * (j % 2) + 1]) : uvec2(u[j / 4][j % 4], 0);
        }
    }
}

void writeKey(uint i, uvec2 k) {
    if (WIDE_KEY) {
        keysOut[2 * i] = k.x;
        keysOut[2 * i + 1] = k.y;
    } else {
        keysOut[i] = k.x;
    }
}

void writeRecord(uint t, uint word, uvec2 v) {
    tiles[t * TILE_WORDS + word] = v.x;
}

void publish(uint t, uint flag, uint value) {
    atomicMax(status[1 + 2 * t], flag << 16 | (value & 0xffffu), gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    atomicMax(status[2 + 2 * t], flag << 16 | (value >> 16), gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

// readStatus returns tile t's flag (NONE when its two words disagree) and
// count.
uvec2 readStatus(uint t) {
    uint lo = atomicLoad(status[1 + 2 * t], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    uint hi = atomicLoad(status[2 + 2 * t], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
    uint flag = lo >> 16;
    if (flag != hi >> 16) {
        flag = NONE;
    }
    return uvec2(flag, (lo & 0xffffu) | hi << 16);
}

// countHeads counts tile t's heads with the calling subgroup alone: the
// fallback's work. Every lane gets the count.
uint countHeads(uint t, uint n) {
    uint c = 0;
    for (uint u = gl_SubgroupInvocationID; u < TILE; u += gl_SubgroupSize) {
        uint e = t * TILE + u;
        if (e < n && (e == 0 || !keyEq(keyAt(e - 1), keyAt(e)))) {
            c++;
        }
    }
    return subgroupAdd(c);
}

// lookBack returns, in subgroup 0, the runs that begin before tile
// (scan_onepass's look-back and fallback).
uint lookBack(uint tile, uint n) {
    uint lane = gl_SubgroupInvocationID;
    uint prefix = 0;
    int base = int(tile) - 1;
    uint spin = 0;
    while (tile > 0) {
        int t = base - int(lane);
        uvec2 st = t < 0 ? uvec2(INCL, 0) : readStatus(uint(t));
        uvec4 stops = subgroupBallot(st.x != AGG);
        if (stops == uvec4(0)) {
            prefix += subgroupAdd(st.y);
            base -= int(gl_SubgroupSize);
            spin = 0;
            continue;
        }
        uint L = subgroupBallotFindLSB(stops); // the nearest predecessor not an aggregate
        prefix += subgroupAdd(lane < L ? st.y : 0);
        if (subgroupMax(lane == L ? st.x : 0) == INCL) {
            prefix += subgroupAdd(lane == L ? st.y : 0);
            break;
        }
        base -= int(L);
        spin = L > 0 ? 1 : spin + 1;
        if (spin > pc.spins) {
            uint agg = countHeads(uint(base), n);
            if (subgroupElect()) {
                publish(uint(base), AGG, agg);
            }
            prefix += agg;
            base--;
            spin = 0;
        }
    }
    return prefix;
}

// countTile scans the invocations' head counts hc over the workgroup: it
// returns the heads before the invocation in the tile; the tile's total
// is left in sAggregate.
uint countTile(uint hc) {
    uint lane = gl_SubgroupInvocationID;
    uint ex = subgroupExclusiveAdd(hc);
    uint total = subgroupAdd(hc);
    if (subgroupElect()) {
        headSums[gl_SubgroupID] = total;
    }
    barrier();
    if (gl_SubgroupID == 0) {
        uint carry = 0;
        for (uint base = 0; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            uint i = base + lane;
            uint x = i < gl_NumSubgroups ? headSums[i] : 0;
            uint incl = subgroupInclusiveAdd(x);
            if (i < gl_NumSubgroups) {
                headSums[i] = carry + incl - x;
            }
            carry += subgroupAdd(x);
        }
        if (subgroupElect()) {
            sAggregate = carry;
        }
    }
    barrier();
    return headSums[gl_SubgroupID] + ex;
}

void runTile() {
    uint lid = gl_LocalInvocationID.x;
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
    if (tile > lastTile || tile >= pc.tiles) {
        if (lid == 0) {
            countIn(); // it made no status access but the tile counter's
        }
        return;
    }
    uint ts = tile * TILE, te = min(ts + TILE, n);
    uint e0 = ts + lid * ELEMS;
    uint valid = e0 < te ? min(ELEMS, te - e0) : 0;
    uvec2 k[16], v[16];
    loadKeys(e0, valid, k);
    loadElems(e0, valid, v);
    uvec2 prev = valid > 0 && e0 > 0 ? keyAt(e0 - 1) : uvec2(0);
    uvec2 next = valid > 0 && e0 + valid < n ? keyAt(e0 + valid) : uvec2(0);
    uint heads = 0;
    bool lastEnds = false;
    [[unroll]] for (uint j = 0; j < 16; j++) {
        if (j < ELEMS && j < valid) {
            if (e0 + j == 0 || !keyEq(j == 0 ? prev : k[max(j, 1) - 1], k[j])) {
                heads |= 1u << j;
            }
            if (j + 1 == valid) {
                lastEnds = e0 + valid == n || !keyEq(k[j], next);
            }
        }
    }

    // The runs before this invocation: in the tile, and before the tile.
    uint before = countTile(bitCount(heads));
    uint aggregate = sAggregate;
    if (gl_SubgroupID == 0 && subgroupElect()) { // the invocation that makes every status write (tile_reset.glsl)
        publish(tile, tile == 0 ? INCL : AGG, aggregate);
    }
    if (gl_SubgroupID == 0) {
        uint prefix = lookBack(tile, n);
        if (subgroupElect()) {
            if (tile > 0) {
                publish(tile, INCL, prefix + aggregate);
            }
            sPrefix = prefix;
            countIn(); // done with status
        }
    }
    barrier();
    uint runs = sPrefix;
    before += runs;

    // Each run's first key, at its index.
    [[unroll]] for (uint j = 0; j < 16; j++) {
        if (j < ELEMS && ((heads >> j) & 1u) != 0) {
            writeKey(before + bitCount(heads & ((1u << j) - 1u)), k[j]);
        }
    }

    // The values: each run that begins and ends in the tile, at its index.
    bool cFlag;
    uvec2 cVal;
    runCarry(heads != 0, runTail(v, heads, valid), cFlag, cVal);
    uvec2 cur = cVal;
    bool started = cFlag;
    uint idx = before - 1; // the run in progress at e0, begun before it
    [[unroll]] for (uint j = 0; j < 16; j++) {
        if (j < ELEMS && j < valid) {
            if (((heads >> j) & 1u) != 0) {
                idx++;
                cur = v[j];
                started = true;
            } else {
                cur = valCombine(cur, v[j]);
            }
            bool ends = j + 1 < valid ? ((heads >> (j + 1)) & 1u) != 0 : lastEnds;
            if (ends) {
                if (started) {
                    valuesOut[idx] = cur.x;
                } else {
                    writeRecord(tile, REC_P, cur); // the tile's first run, begun before it
                }
            } else if (e0 + j + 1 == te) {
                writeRecord(tile, started ? REC_Q : REC_P, cur); // the tile's last run goes on
            }
        }
    }
    if (lid == 0) {
        tiles[tile * TILE_WORDS + REC_FLAGS] = (heads & 1u) * FIRST_HEAD | (aggregate > 0 ? HAS_HEAD : 0u);
        tiles[tile * TILE_WORDS + REC_RUNS] = runs;
        if (tile == lastTile) {
            writeResult(runs + aggregate, n, pc.groupSize, pc.maxX);
        }
    }
}

void main() {
    runTile();
    resetIfLast();
}
