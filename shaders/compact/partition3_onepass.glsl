#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_memory_scope_semantics : require
// partition3_onepass.glsl: a three-way partition in one pass over the
// input (compact.Partition3Plan). Each element goes to the first output
// when the first predicate (PRED, constant c1) holds, else to the second
// when the second (PRED2, constant c2) holds, else to the third (the
// rest); each output holds its group in input order (stable), so none is
// reversed. It is select_onepass.glsl's chained scan with decoupled
// look-back and decoupled fallback, carrying two counts per tile instead
// of one: the rest's offset before a tile is its first element less the
// first and second groups' prefixes.
//
// Each workgroup takes a tile number (from the counter, or with
// TILE_BY_ID its index in the dispatch), loads its tile once (TILE =
// workgroup size * VECS * EPV elements, in units of EPV elements; load k
// of subgroup s is segment k * subgroups + s, sg units), ranks each
// segment's elements by group with ballots and stages them in the
// segment's own place in shared memory ordered first | second | rest,
// scans the segments' two counts, publishes its aggregate, looks back for
// its exclusive prefixes, publishes its inclusive ones, and each subgroup
// writes its segments' three runs.
//
// Status of tile t, three words from status[1 + 3t], each written once
// (0 until then) with atomicMax and read with relaxed atomic loads, so a
// reader sees each word either 0 or its one value and needs no other
// memory ordering: AGG | first | second << 15 (the tile's aggregate: a
// tile holds at most 2^15 - 1 elements, which the host checks), then the
// inclusive prefixes of the first and second groups plus one. A reader
// takes a tile's inclusive prefixes when both are set, else its aggregate
// when set (the aggregate is published first but may be seen later),
// else waits or counts the tile itself (the fallback); the fallback's
// aggregate is the same word. status[0] is the tile counter (unused with
// TILE_BY_ID), status[1 + 3 * tiles] the count of workgroups done with
// status. Built with SELF_RESET (partition3_onepass_reset.comp, up to
// tiling.SelfResetMaxTiles tiles) the last workgroup to finish sets them
// all back to zero (tile_reset.glsl), so the host clears status only when
// it does not know it zero; otherwise the host clears it before every
// pass.
//
// Bindings: 0 the elements as uvec4, 1 the same as uint, 2 status
// (2 + 3 * tiles words), 3 to 5 the first, second and rest outputs as
// uint, 6 the result block (compact.Partition3ResultSize), 7 the GPU-side
// element count. Past one binding (partition3_onepass_wide.comp, WINDOWS)
// the host records one dispatch per input window, a barrier between
// them, and binds each output as up to four windows of pc.winWords words
// (bindings 3, 8, 9, 10 for the first; 4, 11, 12, 13 the second; 5, 14,
// 15, 16 the rest).

#include "../include/common.glsl"
#include "../include/select.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 8) const uint PRED2 = 0;          // the second predicate (PRED_*)
layout(constant_id = 9) const uint STAGE_WORDS = 1;    // TILE * STRIDE
layout(constant_id = 10) const uint MAX_SUBGROUPS = 64; // workgroup size / smallest subgroup size
layout(constant_id = 11) const uint TILE_BY_ID = 0;    // 1: tile = workgroup index; 0: from the tile counter

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) buffer Status { uint status[]; };
layout(std430, binding = 3) writeonly buffer DstFirst { uint dstFirst[]; };
layout(std430, binding = 4) writeonly buffer DstSecond { uint dstSecond[]; };
layout(std430, binding = 5) writeonly buffer DstRest { uint dstRest[]; };
layout(std430, binding = 6) writeonly buffer Result { uint result[]; };
layout(std430, binding = 7) readonly buffer GpuCount { uint gpuCount[]; };
#ifdef WINDOWS
layout(std430, binding = 8) writeonly buffer DstFirst1 { uint dstFirst1[]; };
layout(std430, binding = 9) writeonly buffer DstFirst2 { uint dstFirst2[]; };
layout(std430, binding = 10) writeonly buffer DstFirst3 { uint dstFirst3[]; };
layout(std430, binding = 11) writeonly buffer DstSecond1 { uint dstSecond1[]; };
layout(std430, binding = 12) writeonly buffer DstSecond2 { uint dstSecond2[]; };
layout(std430, binding = 13) writeonly buffer DstSecond3 { uint dstSecond3[]; };
layout(std430, binding = 14) writeonly buffer DstRest1 { uint dstRest1[]; };
layout(std430, binding = 15) writeonly buffer DstRest2 { uint dstRest2[]; };
layout(std430, binding = 16) writeonly buffer DstRest3 { uint dstRest3[]; };
#endif

layout(push_constant) uniform Push {
    uint n;         // elements (the capacity when countOn)
    uint tiles;     // tiles dispatched: status holds 1 + 3 * tiles words
    uint c1Lo;      // the first predicate's constant words
    uint c1Hi;
    uint c2Lo;      // the second's
    uint c2Hi;
    uint countOn;   // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
    uint groupSize; // the caller's invocations per workgroup, for the dispatch arguments
    uint maxX;      // maxComputeWorkGroupCount[0]
    uint spins;     // re-reads of an unpublished predecessor before the fallback
    // With WINDOWS (else unused): this dispatch's tiles are tile0 ..
    // tileEnd - 1, its elements bound from element tile0 * TILE; wgBase
    // workgroups took a number from the tile counter before it; each
    // output window holds winWords words.
    uint tile0;
    uint tileEnd;
    uint wgBase;
    uint winWords;
} pc;

const bool LOAD_DATA = true;
#define LOAD_ONLY 1 // the predicates are this file's (classify)
#include "../include/select_load.glsl"
#include "../include/result_block.glsl"

const uint AGG = 1u << 31;
const uint WG = gl_WorkGroupSize.x;
const uint TILE = WG * VECS * EPV;

shared uint stage[STAGE_WORDS];
shared uint segFirst[VECS * MAX_SUBGROUPS];  // first-group elements per segment, then their exclusive scan
shared uint segSecond[VECS * MAX_SUBGROUPS]; // the same for the second group
shared uint sTile, sAggFirst, sAggSecond, sPrefFirst, sPrefSecond;

// keepKey2 evaluates the second predicate, PRED2, as select.glsl's keepKey
// the first.
#define KEEP_KEY_FN keepKey2
#define KEEP_KEY_PRED PRED2
#include "../include/keep_key.glsl"
#undef KEEP_KEY_FN
#undef KEEP_KEY_PRED

// classify returns the groups of unit v's elements, the first of which is
// element first of n: bit j of .x says element j is in the first group,
// bit j of .y in the second. Elements at or past n are in neither (nor in
// the rest: the callers bound them by n).
uvec2 classify(uvec4 v, uint first, uint n, uvec2 c1, uvec2 c2) {
    uvec2 m = uvec2(0);
    [[unroll]] for (uint j = 0; j < 4; j++) {
        if (j < EPV && first + j < n) {
            uint lo, hi;
            if (VEC_PATH) {
                uint w = j * STRIDE + KEY_WORD;
                lo = v[w];
                hi = WIDE ? v[w + 1] : 0;
            } else {
                lo = v.x;
                hi = v.y;
            }
            if (keepKey(lo, hi, c1)) {
                m.x |= 1u << j;
            } else if (keepKey2(lo, hi, c2)) {
                m.y |= 1u << j;
            }
        }
    }
    return m;
}

// segK is the segment of the calling subgroup's load k; unitK the tile
// position (in units) of the calling lane's unit k.
uint segK(uint k) {
    return k * gl_NumSubgroups + gl_SubgroupID;
}

uint unitK(uint k) {
    return segK(k) * gl_SubgroupSize + gl_SubgroupInvocationID;
}

uvec4 loadAt(uint first, uint n) {
    return loadUnit(first, first + EPV <= n, n - min(first, n));
}

// countTile counts the first and second groups of tile t with the calling
// subgroup alone: the fallback's work. Every lane gets the counts. elem0
// is the first element bound, n the elements in all.
uvec2 countTile(uint t, uint elem0, uint n, uvec2 c1, uvec2 c2) {
    uint start = t * TILE - elem0;
    n -= elem0;
    uvec2 cnt = uvec2(0);
    for (uint u = gl_SubgroupInvocationID; u < WG * VECS; u += gl_SubgroupSize) {
        uint first = start + u * EPV;
        uvec2 m = classify(loadAt(first, n), first, n, c1, c2);
        cnt += uvec2(bitCount(m.x), bitCount(m.y));
    }
    return uvec2(subgroupAdd(cnt.x), subgroupAdd(cnt.y));
}

uint loadStatus(uint i) {
    return atomicLoad(status[i], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

void publish(uint i, uint word) {
    atomicMax(status[i], word, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

void publishAggregate(uint t, uvec2 agg) {
    publish(1 + 3 * t, AGG | agg.x | (agg.y << 15));
}

#ifdef SELF_RESET
#define DONE_WORD (1 + 3 * pc.tiles)
#include "../include/tile_reset.glsl"
#endif

// storeWord writes word i of output g (0 first, 1 second, 2 rest): with
// WINDOWS, i lies in window i / pc.winWords of that output.
void storeWord(uint g, uint i, uint v) {
#ifdef WINDOWS
    uint w = pc.winWords;
    uint win = i / w;
    uint at = i - win * w;
    if (g == 0) {
        if (win == 0) dstFirst[at] = v;
        else if (win == 1) dstFirst1[at] = v;
        else if (win == 2) dstFirst2[at] = v;
        else dstFirst3[at] = v;
    } else if (g == 1) {
        if (win == 0) dstSecond[at] = v;
        else if (win == 1) dstSecond1[at] = v;
        else if (win == 2) dstSecond2[at] = v;
        else dstSecond3[at] = v;
    } else {
        if (win == 0) dstRest[at] = v;
        else if (win == 1) dstRest1[at] = v;
        else if (win == 2) dstRest2[at] = v;
        else dstRest3[at] = v;
    }
#else
    if (g == 0) {
        dstFirst[i] = v;
    } else if (g == 1) {
        dstSecond[i] = v;
    } else {
        dstRest[i] = v;
    }
#endif
}

// writeResults writes the result block: the three counts and the total,
// then for each group a VkDispatchIndirectCommand in workgroups of
// groupSize and a VkDrawIndirectCommand.
void writeResults(uint first, uint second, uint n) {
    uint counts[3] = uint[3](first, second, n - first - second);
    [[unroll]] for (uint g = 0; g < 3; g++) {
        uint k = counts[g];
        result[g] = k;
        uvec3 d = gridFor(k == 0 ? 0 : (k - 1) / pc.groupSize + 1, pc.maxX);
        result[4 + 4 * g] = d.x;
        result[5 + 4 * g] = d.y;
        result[6 + 4 * g] = d.z;
        result[7 + 4 * g] = 0;
        result[16 + 4 * g] = k; // vertexCount
        result[17 + 4 * g] = 1; // instanceCount
        result[18 + 4 * g] = 0;
        result[19 + 4 * g] = 0;
    }
    result[3] = n;
}

#ifdef SELF_RESET
void runTile() {
#else
void main() {
#endif
    uint lid = gl_LocalInvocationID.x;
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint sgid = gl_SubgroupID;
    uint nsg = gl_NumSubgroups;
    uvec2 c1 = uvec2(pc.c1Lo, pc.c1Hi);
    uvec2 c2 = uvec2(pc.c2Lo, pc.c2Hi);
    uint n = countedElems(pc.n, 0, pc.countOn, gpuCount[countWord(pc.countOn)]);
    uint lastTile = n == 0 ? 0 : (n - 1) / TILE;

    uint tile;
    if (TILE_BY_ID != 0) {
        tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    } else {
        if (lid == 0) {
            sTile = atomicAdd(status[0], 1);
        }
        barrier();
        tile = sTile;
    }
#ifdef WINDOWS
    // One dispatch of several, each over the tiles of one input window:
    // its predecessors' dispatches are over (a barrier lies between), so
    // its look-back meets inclusive prefixes by tile tile0 - 1, and its
    // fallback counts only tiles of its own window.
    tile = pc.tile0 + (TILE_BY_ID != 0 ? tile : tile - pc.wgBase);
    uint elem0 = pc.tile0 * TILE;
    uint tileEnd = pc.tileEnd;
#else
    const uint elem0 = 0;
    uint tileEnd = pc.tiles;
#endif
    if (tile > lastTile || tile >= tileEnd) {
#ifdef SELF_RESET
        if (lid == 0) {
            countIn(); // it made no status access but the tile counter's
        }
#endif
        return; // past the count: no tile with elements waits on this one
    }
    uint start = tile * TILE;
    uint m = min(TILE, n - min(start, n)); // elements in the tile
    uint tileAt = start - elem0, nAt = n - elem0;

    // Load the tile once, then rank each segment's elements by group and
    // stage them in the segment's place: first, second, rest, each in
    // input order.
    uvec4 v[4];
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            v[k] = loadAt(tileAt + unitK(k) * EPV, nAt);
        }
    }
    uint seg = sg * EPV;
    if (VEC_PATH) {
        // As select_onepass.glsl does: each lane first stores its units as
        // loaded in their own places of the stage (unit u at words
        // 4u..4u+3, inside its segment) and ranks them one at a time, read
        // back from there, so that only one unit is in registers while
        // ranking (on the H100 the single pass's speed follows the
        // workgroups that fit per processor, which registers decide). The
        // barrier keeps the compiler from forwarding the stored values.
        [[unroll]] for (uint k = 0; k < 4; k++) {
            if (k < VECS) {
                uint u = unitK(k);
                [[unroll]] for (uint w = 0; w < 4; w++) {
                    stage[u * 4 + w] = v[k][w];
                }
            }
        }
        subgroupBarrier();
    }
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            uint segBase = segK(k) * seg;
            uint pos = lane * EPV; // the unit's position in the segment
            uvec4 x = v[k];
            if (VEC_PATH) {
                uint u = unitK(k);
                x = uvec4(stage[u * 4], stage[u * 4 + 1], stage[u * 4 + 2], stage[u * 4 + 3]);
                subgroupBarrier(); // the segment's units are read before any is overwritten
            }
            uvec2 g = classify(x, tileAt + segBase + pos, nAt, c1, c2);
            uint own1 = 0, own2 = 0, tot1 = 0, tot2 = 0;
            [[unroll]] for (uint j = 0; j < 4; j++) {
                if (j < EPV) {
                    uvec4 b1 = subgroupBallot((g.x & (1u << j)) != 0);
                    uvec4 b2 = subgroupBallot((g.y & (1u << j)) != 0);
                    own1 += subgroupBallotExclusiveBitCount(b1);
                    own2 += subgroupBallotExclusiveBitCount(b2);
                    tot1 += subgroupBallotBitCount(b1);
                    tot2 += subgroupBallotBitCount(b2);
                }
            }
            if (subgroupElect()) {
                segFirst[segK(k)] = tot1;
                segSecond[segK(k)] = tot2;
            }
            uint segLen = min(seg, m - min(segBase, m));
            [[unroll]] for (uint j = 0; j < 4; j++) {
                if (j < EPV && pos + j < segLen) {
                    bool in1 = (g.x & (1u << j)) != 0;
                    bool in2 = (g.y & (1u << j)) != 0;
                    // The elements before this one in the segment: own1
                    // of the first group, own2 of the second, the rest
                    // of the third.
                    uint at = segBase + (in1 ? own1 : (in2 ? tot1 + own2 : tot1 + tot2 + (pos + j - own1 - own2)));
                    uint e = tileAt + segBase + pos + j;
                    [[unroll]] for (uint w = 0; w < STRIDE; w++) {
                        stage[at * STRIDE + w] = VEC_PATH ? x[j * STRIDE + w] : srcWord[e * STRIDE + w];
                    }
                    own1 += in1 ? 1 : 0;
                    own2 += in2 ? 1 : 0;
                }
            }
        }
    }
    barrier();
    // Exclusive scans of the segments' two counts, in element order.
    if (sgid == 0) {
        uvec2 carry = uvec2(0);
        for (uint base = 0; base < VECS * nsg; base += sg) {
            uint i = base + lane;
            uvec2 x = i < VECS * nsg ? uvec2(segFirst[i], segSecond[i]) : uvec2(0);
            uvec2 incl = uvec2(subgroupInclusiveAdd(x.x), subgroupInclusiveAdd(x.y));
            if (i < VECS * nsg) {
                segFirst[i] = carry.x + incl.x - x.x;
                segSecond[i] = carry.y + incl.y - x.y;
            }
            carry += uvec2(subgroupAdd(x.x), subgroupAdd(x.y));
        }
        if (lane == 0) {
            sAggFirst = carry.x;
            sAggSecond = carry.y;
        }
    }
    barrier();
    uvec2 agg = uvec2(sAggFirst, sAggSecond);

    // Publish: tile 0 its inclusive prefixes at once, any other its
    // aggregate, so successors can look past it. Subgroup 0's elected
    // invocation makes every status write of the workgroup (tile_reset.glsl
    // counts it in after its last).
    if (sgid == 0 && subgroupElect()) {
        if (tile == 0) {
            publish(2, agg.x + 1);
            publish(3, agg.y + 1);
        } else {
            publishAggregate(tile, agg);
        }
    }

    // Look back for the exclusive prefixes, with subgroup 0 alone: each
    // round reads one predecessor per lane (lane i: tile base - i), adds
    // the aggregates up to the nearest tile whose inclusive prefixes are
    // not both set, and stops there if that tile has them. At a tile with
    // neither it re-reads, up to pc.spins times, then counts that tile
    // itself (the fallback) and goes on past it.
    if (sgid == 0) {
        uvec2 prefix = uvec2(0);
        int base = int(tile) - 1;
        uint spin = 0;
        while (tile > 0) {
            int t = base - int(lane);
            uint state = 2; // 2 inclusive, 1 aggregate, 0 neither
            uvec2 val = uvec2(0);
            if (t >= 0) {
                uint i1 = loadStatus(2 + 3 * uint(t));
                uint i2 = loadStatus(3 + 3 * uint(t));
                if (i1 != 0 && i2 != 0) {
                    val = uvec2(i1 - 1, i2 - 1);
                } else {
                    uint a = loadStatus(1 + 3 * uint(t));
                    state = a != 0 ? 1 : 0;
                    val = uvec2(a & 0x7fffu, (a >> 15) & 0x7fffu);
                }
            }
            uvec4 stops = subgroupBallot(state != 1);
            if (stops == uvec4(0)) {
                prefix += uvec2(subgroupAdd(val.x), subgroupAdd(val.y));
                base -= int(sg);
                spin = 0;
                continue;
            }
            uint L = subgroupBallotFindLSB(stops); // the nearest tile without an aggregate alone
            prefix += uvec2(subgroupAdd(lane < L ? val.x : 0), subgroupAdd(lane < L ? val.y : 0));
            uint stopState = subgroupAdd(lane == L ? state : 0);
            if (stopState == 2) {
                prefix += uvec2(subgroupAdd(lane == L ? val.x : 0), subgroupAdd(lane == L ? val.y : 0));
                break;
            }
            // Tile base - L has published nothing: wait, or count it.
            base -= int(L);
            spin = L > 0 ? 1 : spin + 1;
            if (spin > pc.spins) {
                uvec2 cnt = countTile(uint(base), elem0, n, c1, c2);
                if (subgroupElect()) {
                    publishAggregate(uint(base), cnt);
                }
                prefix += cnt;
                base--;
                spin = 0;
            }
        }
        if (subgroupElect()) {
            if (tile > 0) {
                publish(2 + 3 * tile, prefix.x + agg.x + 1);
                publish(3 + 3 * tile, prefix.y + agg.y + 1);
            }
            sPrefFirst = prefix.x;
            sPrefSecond = prefix.y;
#ifdef SELF_RESET
            countIn(); // done with status
#endif
        }
    }
    barrier(); // the stage and the prefixes are complete
    uint pre1 = sPrefFirst, pre2 = sPrefSecond;
    uint preRest = start - pre1 - pre2;

    // Write out, each subgroup its own segments' three runs.
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            uint i = segK(k);
            uint segBase = i * seg;
            uint segLen = min(seg, m - min(segBase, m));
            uint b1 = segFirst[i], b2 = segSecond[i]; // before the segment, in the tile
            bool last = i + 1 == VECS * nsg;
            uint k1 = (last ? agg.x : segFirst[i + 1]) - b1;
            uint k2 = (last ? agg.y : segSecond[i + 1]) - b2;
            uint at1 = pre1 + b1, at2 = pre2 + b2 - k1, at3 = preRest + (segBase - b1 - b2) - k1 - k2;
            for (uint t = lane; t < segLen * STRIDE; t += sg) {
                uint q = t / STRIDE;
                uint w = t - q * STRIDE;
                uint g = q < k1 ? 0 : (q < k1 + k2 ? 1 : 2);
                uint slot = (g == 0 ? at1 : (g == 1 ? at2 : at3)) + q;
                storeWord(g, slot * STRIDE + w, stage[segBase * STRIDE + t]);
            }
        }
    }

    if (tile == lastTile && lid == 0) {
        writeResults(pre1 + agg.x, pre2 + agg.y, n);
    }
}

#ifdef SELF_RESET
void main() {
    runTile();
    resetIfLast();
}
#endif
