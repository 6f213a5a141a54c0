#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_memory_scope_semantics : require
// select_onepass.glsl: the whole compaction in one pass over the input, as a
// chained scan with decoupled look-back (Merrill & Garland) made safe
// without forward-progress guarantees by decoupled fallback (Smith,
// Levien et al.).
//
// Each workgroup takes a tile number, from a counter (so every tile it
// waits on was taken earlier, by a workgroup already running) or, with
// TILE_BY_ID, its index in the dispatch (it loads at once; a predecessor
// not yet started costs only the fallback below), loads its tile once
// (TILE = workgroup size * VECS * EPV elements, in units of EPV elements,
// one uvec4 each; unitK says which lane loads which), ranks the kept
// elements of each segment (one load of one subgroup) with ballots (on the
// vector path with STAGE_UNITS, a GPU's, one unit at a time, read back
// from shared memory, where each lane first stores its units as loaded;
// without it from registers), stages them in the segment's own
// place, scans the segments' counts, and publishes its aggregate. It then
// looks back over its predecessors' status words to find its exclusive
// prefix P, publishes its inclusive prefix, and each subgroup writes its
// kept elements to P + (kept before them).. with contiguous word stores: a
// compaction one run per subgroup, a split one per segment. On the vector
// path with STAGE_UNITS the loaded elements leave registers before ranking: on the H100 the
// kernel's speed follows how many workgroups fit per processor, which its
// registers decide (74 when the whole tile was gathered in output order
// after the scan, 46 when each lane ranked its loads from registers, 37
// now, so 6 workgroups of 256 fit instead of 5; bench -kernel-stats shows
// them), and the compaction's writes are faster in runs of a subgroup's
// VECS segments (4 by default) than of one (2^28 uint32, keep 0.1: 0.546
// -> 0.508 ms; see BENCHMARKS.md). With SPLIT the rejected elements go to
// the back in reverse order (as CUB's DevicePartition does): the r-th
// rejected element overall goes to slot n - 1 - r, so no tile waits for
// the kept total.
//
// Status word of tile t (status[1 + t]): 0 not yet published; an
// aggregate A (at most a tile, below 2^20) as AGG + A = 2^30 + A; an
// inclusive prefix P as INCL + P = 2^30 + 2^20 + P, so P may reach
// 3 * 2^30 - 2^20 - 1 (vkcompact.MaxSinglePassElements, which the host
// keeps n to). A word only grows as its tile goes from one state to the
// next: it is written with atomicMax and read with atomic loads, and no
// other memory ordering is needed. status[0] is the tile counter (unused with TILE_BY_ID),
// status[1 + tiles] the count of finished workgroups. The last workgroup
// to finish sets them all back to zero (tile_reset.glsl) when built with
// SELF_RESET (select_onepass_reset.comp, for up to
// tiling.SelfResetMaxTiles tiles), so the host clears status only when it
// does not know it zero; without it (select_onepass.comp) the host clears
// status before every pass.
//
// Fallback: when the look-back meets a predecessor that has not published
// and it stays so for pc.spins re-reads, the looking subgroup counts that
// predecessor's tile itself (the input is still there: this pass never
// runs in place), publishes its aggregate, and goes on past it. A stalled
// or unscheduled predecessor therefore never blocks its successors.
//
// Bindings: 0 the elements as uvec4, 1 the same as uint, 2 the flags,
// 3 status (2 + tiles words), 4 the output as uvec4 (unused), 5 the output
// as uint, 6 the result block (12 words), 7 the GPU-side element count,
// 8 (11 with WINDOWS) with OUT_INDEX 2 and 3 the elements, 9 and 10 (not
// with WINDOWS) with VALUE_WORDS the values and the kept ones', 11 (not
// with WINDOWS) with OUT_INDEX 3 the tiles' records.
//
// OUT_INDEX (compact.Selection.Output): 0 writes the kept elements; 1
// their indices in the input instead (one word each, staged as such); 2
// the indices, and the elements to binding 8.
//
// VALUE_WORDS (compact.Selection.Values: unique by key) and OUT_INDEX 3
// (run lengths) are the neighbour modules' alone: onepass_runs.glsl.
//
// Past one binding (select_onepass_wide.comp, WINDOWS): the host records
// one dispatch per input window (the tiles whose elements and flags one
// binding holds), with a barrier between them, and binds the output as up
// to four windows of pc.winWords words (bindings 5, 8, 9 and 10), since a
// tile's kept elements may land anywhere before it (and a split's
// rejected ones anywhere after it).

#include "../include/common.glsl"
#include "../include/select.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 8) const uint SPLIT = 0;      // 1: rejected elements to the back, reversed
layout(constant_id = 9) const uint STAGE_WORDS = 1; // TILE * STRIDE
layout(constant_id = 10) const uint MAX_SUBGROUPS = 64; // workgroup size / smallest subgroup size
layout(constant_id = 11) const uint TILE_BY_ID = 0; // 1: tile = workgroup index; 0: from the tile counter
layout(constant_id = 12) const uint OUT_INDEX = 0;  // 1: write each kept element's index (one word), not the element; 2: and the element to dstElems (no SPLIT)
// STAGE_UNITS (the vector path): each lane stores its loaded units in the
// stage and ranks them read back one at a time, so that one unit is in
// registers while ranking (a GPU: more workgroups fit, see the top). 0
// ranks them from registers: a CPU driver has no registers to save and
// runs each shared-memory store and load as a loop over the SIMD lanes
// (lavapipe select_if at 2^16: 1.05-1.55 -> 0.55-0.79 ms).
layout(constant_id = 13) const uint STAGE_UNITS = 1;
// STAGE_REJECTED: a compaction stages its rejected elements too, at the
// back of their segment as a split does (the write-out reads the kept
// ones alone), so that every lane stores: lavapipe runs a store as a loop
// over the SIMD lanes with a branch on each lane's mask, which a random
// half of the lanes kept mispredicts (lavapipe select_if at 2^16, keep
// 0.5: 1.06-1.66 -> 0.84-1.36 ms).
layout(constant_id = 14) const uint STAGE_REJECTED = 0;
layout(constant_id = 15) const uint VALUE_WORDS = 0; // 1 or 2: move each kept element's value too (the neighbour modules)
#ifdef NEIGHBOUR_PREDS
const uint VWORDS = VALUE_WORDS;
#else
const uint VWORDS = 0; // the values stream is unique by key's: the neighbour modules'
#endif
// STAGE_INDEX: the tile stages indices, and the elements and values are
// re-read at them.
const bool STAGE_INDEX = OUT_INDEX != 0 || VWORDS != 0;
const uint OSTRIDE = STAGE_INDEX ? 1 : STRIDE;   // words per staged element
#ifdef NEIGHBOUR_PREDS
const bool LENGTHS = OUT_INDEX == 3; // run lengths (onepass_runs.glsl)
#else
const bool LENGTHS = false;
#endif

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 3) buffer Status { uint status[]; };
layout(std430, binding = 4) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 5) writeonly buffer DstWord { uint dstWord[]; };
layout(std430, binding = 6) writeonly buffer Result { uint result[]; };
layout(std430, binding = 7) readonly buffer GpuCount { uint gpuCount[]; };
#ifdef WINDOWS
layout(std430, binding = 11) writeonly buffer DstElems { uint dstElems[]; }; // OUT_INDEX 2: the elements (unused: the host refuses windows)
#else
layout(std430, binding = 8) writeonly buffer DstElems { uint dstElems[]; }; // OUT_INDEX 2: the elements
layout(std430, binding = 9) readonly buffer Values { uint values[]; };       // VALUE_WORDS: every element's value
layout(std430, binding = 10) writeonly buffer ValuesOut { uint valuesOut[]; }; // VALUE_WORDS: the kept ones'
layout(std430, binding = 11) writeonly buffer RunRecords { uint runRecords[]; }; // OUT_INDEX 3: two words per tile
#endif
#ifdef WINDOWS
layout(std430, binding = 8) writeonly buffer DstWord1 { uint dstWord1[]; };
layout(std430, binding = 9) writeonly buffer DstWord2 { uint dstWord2[]; };
layout(std430, binding = 10) writeonly buffer DstWord3 { uint dstWord3[]; };
#endif

layout(push_constant) uniform Push {
    uint n;         // elements (the capacity when countOn)
    uint tiles;     // tiles dispatched: status holds 2 + tiles words
    uint cLo;       // the constant's words
    uint cHi;
    uint countOn;   // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
    uint groupSize; // the caller's invocations per workgroup, for result[4..6]
    uint maxX;      // maxComputeWorkGroupCount[0]
    uint spins;     // re-reads of an unpublished predecessor before the fallback
    // With WINDOWS (else unused): this dispatch's tiles are tile0 ..
    // tileEnd - 1, its elements bound from element tile0 * TILE; wgBase
    // workgroups took a number from the tile counter before it; the
    // output's windows hold winWords words each.
    uint tile0;
    uint tileEnd;
    uint wgBase;
    uint winWords;
} pc;

const bool LOAD_DATA = true;
#include "../include/select_load.glsl"

// Status words (see the top): AGG + aggregate, INCL + inclusive prefix.
const uint AGG = 1u << 30, INCL = AGG + (1u << 20);
const uint WG = gl_WorkGroupSize.x;
const uint TILE = WG * VECS * EPV;
// Status words per lane per look-back round. One: on the H100 the kernel
// is bound by how many workgroups fit per processor, which its registers
// decide, and the look-back's words were the peak (2^28 uint32 keep 0.5,
// 256 x 4 loads: 4 words 51 registers, 0.771 ms; 2 words 46, 0.684 ms;
// 1 word 46, 0.662 ms; 8 words 67, 0.970 ms). A look-back by the whole
// workgroup (256 words a round, a barrier each) took 0.856 ms.
const uint LOOKBACK = 1;

shared uint stage[STAGE_WORDS];
shared uint sgCounts[VECS * MAX_SUBGROUPS]; // kept per segment (segK), then their exclusive scan
#ifdef NEIGHBOUR_PREDS
shared uint sgPrev[VECS * MAX_SUBGROUPS]; // LENGTHS: 1 + the tile's last kept index before each segment (0: none)
#endif
shared uint sTile, sAggregate, sPrefix;

uint loadStatus(uint t) {
    return atomicLoad(status[1 + t], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

#ifdef SELF_RESET
#define DONE_WORD (1 + pc.tiles)
#include "../include/tile_reset.glsl"
#endif

void publish(uint t, uint word) {
    atomicMax(status[1 + t], word, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

// unitK is the tile position (in units) of the calling lane's unit k.
// Segment i is the sg units from i*sg, all loaded by one subgroup s with
// one load k. A compaction gives each subgroup consecutive segments
// (i = s*VECS + k), so it writes its kept elements as one run; a split
// interleaves them (i = k*subgroups + s), which needed fewer registers
// on the H100 (39 against 42: 6 workgroups of 256 per processor, not 5).
uint unitK(uint k) {
    uint i = SPLIT != 0 ? k * gl_NumSubgroups + gl_SubgroupID : gl_SubgroupID * VECS + k;
    return i * gl_SubgroupSize + gl_SubgroupInvocationID;
}

// segK is the segment of the calling subgroup's load k.
uint segK(uint k) {
    return SPLIT != 0 ? k * gl_NumSubgroups + gl_SubgroupID : gl_SubgroupID * VECS + k;
}

// loadK loads the lane's unit k of the tile starting at start (n elements in all).
uvec4 loadK(uint start, uint k, uint n) {
    uint first = start + unitK(k) * EPV;
    return loadUnit(first, first + EPV <= n, n - min(first, n));
}

// keepMask says which elements of unit v (first element first) are kept.
uint keepMask(uvec4 v, uint first, uint n, uvec2 c) {
    uint m = 0;
    [[unroll]] for (uint j = 0; j < 4; j++) {
        if (j < EPV && first + j < n && keepUnit(v, j, first + j, c)) {
            m |= 1u << j;
        }
    }
    return m;
}

// countTile counts the kept elements of tile t with the calling subgroup
// alone: the fallback's work. Every lane gets the count. elem0 is the
// first element bound, n the elements in all.
uint countTile(uint t, uint elem0, uint n, uvec2 c) {
    uint start = t * TILE - elem0;
    n -= elem0;
    uint kept = 0;
    for (uint u = gl_SubgroupInvocationID; u < WG * VECS; u += gl_SubgroupSize) {
        uint first = start + u * EPV;
        kept += bitCount(keepMask(loadUnit(first, first + EPV <= n, n - min(first, n)), first, n, c));
    }
    return subgroupAdd(kept);
}

#include "../include/result_block.glsl"

// runStage is the stage position, from the subgroup's first segment, of
// the index of element q of a subgroup's run of kept elements, which
// spans its segments (VECS of seg elements each; e1, e2 and e3 the run
// elements before segments 1, 2 and 3): in the last segment k with at
// most q of them before it.
uint runStage(uint q, uint e1, uint e2, uint e3, uint seg) {
    uint k = 0, ek = 0;
    if (VECS > 1 && q >= e1) { k = 1; ek = e1; }
    if (VECS > 2 && q >= e2) { k = 2; ek = e2; }
    if (VECS > 3 && q >= e3) { k = 3; ek = e3; }
    return k * seg * STRIDE + (q - ek);
}

#ifdef NEIGHBOUR_PREDS
#include "onepass_runs.glsl"
#endif

// storeWord writes word i of the output: with WINDOWS, i lies in window
// i / pc.winWords (bindings 5, 8, 9, 10).
void storeWord(uint i, uint v) {
#ifdef WINDOWS
    uint w = pc.winWords;
    if (i < w) {
        dstWord[i] = v;
    } else if (i - w < w) {
        dstWord1[i - w] = v;
    } else if (i - 2 * w < w) {
        dstWord2[i - 2 * w] = v;
    } else {
        dstWord3[i - 3 * w] = v;
    }
#else
    dstWord[i] = v;
#endif
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
    uvec2 c = uvec2(pc.cLo, pc.cHi);
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
    // its look-back meets an inclusive prefix by tile tile0 - 1, and its
    // fallback counts only tiles of its own window.
    tile = pc.tile0 + (TILE_BY_ID != 0 ? tile : tile - pc.wgBase);
    uint elem0 = pc.tile0 * TILE; // the first element bound
    uint tileEnd = pc.tileEnd;
#else
    const uint elem0 = 0;
    uint tileEnd = pc.tiles;
#endif
    if (tile > lastTile || tile >= tileEnd) {
#ifdef NEIGHBOUR_PREDS
        if (LENGTHS && lid == 0 && tile < pc.tiles) {
            runRecords[2 * tile] = 0; // past the count: no runs (select_lengths reads every tile's record)
            runRecords[2 * tile + 1] = 0;
        }
#endif
#ifdef SELF_RESET
        if (lid == 0) {
            countIn(); // it made no status access but the tile counter's
        }
#endif
        return; // past the count: no tile with elements waits on this one
    }
    uint start = tile * TILE;
    uint m = min(TILE, n - min(start, n)); // elements in the tile
    uint tileAt = start - elem0, nAt = n - elem0; // the same, from the first element bound
#ifdef NEIGHBOUR_PREDS
    selN = nAt; // the neighbour predicates' bound
#endif

    // Load the tile once. Each subgroup ranks the kept elements of its
    // segments, segment segK(k) being the elements of the subgroup's load
    // k (seg = sg * EPV elements from tile position segBase), and stages
    // them in the segment's own place in shared memory: kept ones from
    // the front in order, rejected ones (SPLIT) from the back, reversed.
    // So the loaded elements leave registers at once (the kernel needs
    // few registers, and more workgroups fit per processor), and each
    // subgroup later writes out its own segments.
    uvec4 v[4];
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            v[k] = loadK(tileAt, k, nAt);
        }
    }
    uint seg = sg * EPV;
    if (VEC_PATH && STAGE_UNITS != 0) {
        // Each lane first stores its units as loaded in their own places
        // of the stage (unit u at words 4u..4u+3, inside its segment) and
        // ranks them one at a time, read back from there: only one unit
        // is in registers while ranking (H100: registers 46 -> 37 for a
        // compaction, 48 -> 39 for a split, with the layouts of unitK).
        [[unroll]] for (uint k = 0; k < 4; k++) {
            if (k < VECS) {
                uint u = unitK(k);
                [[unroll]] for (uint w = 0; w < 4; w++) {
                    stage[u * 4 + w] = v[k][w];
                }
            }
        }
        // Each lane reads back only what it stored, so program order would
        // do; the barrier (acquire and release on shared memory) keeps the
        // compiler from forwarding the stored values, which would keep
        // them in registers.
        subgroupBarrier();
    }
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            uint u = unitK(k);
            uint segBase = (u - lane) * EPV;              // the segment's tile position
            uint segLen = min(seg, m - min(segBase, m));  // its elements
            uint pos = lane * EPV;                        // the unit's position in the segment
            uvec4 x = v[k];
            if (VEC_PATH && STAGE_UNITS != 0) {
                x = uvec4(stage[u * 4], stage[u * 4 + 1], stage[u * 4 + 2], stage[u * 4 + 3]);
                subgroupBarrier(); // the segment's units are read before any is overwritten
            }
            uint keep = keepMask(x, tileAt + segBase + pos, nAt, c);
            uint own = 0, total = 0;
            [[unroll]] for (uint j = 0; j < 4; j++) {
                if (j < EPV) {
                    uvec4 bal = subgroupBallot((keep & (1u << j)) != 0);
                    own += subgroupBallotExclusiveBitCount(bal);
                    total += subgroupBallotBitCount(bal);
                }
            }
            if (subgroupElect()) {
                sgCounts[segK(k)] = total;
            }
            [[unroll]] for (uint j = 0; j < 4; j++) {
                if (j < EPV && pos + j < segLen) {
                    bool kj = (keep & (1u << j)) != 0;
                    if (kj || SPLIT != 0 || STAGE_REJECTED != 0) {
                        uint at = segBase + (kj ? own : segLen - 1 - (pos + j - own));
                        uint e = tileAt + segBase + pos + j;
                        if (STAGE_INDEX) {
                            // In the segment's own place: its words from segBase * STRIDE.
                            stage[segBase * STRIDE + (at - segBase)] = elem0 + e;
                        } else {
                            [[unroll]] for (uint w = 0; w < STRIDE; w++) {
                                stage[at * STRIDE + w] = VEC_PATH ? x[j * STRIDE + w] : srcWord[e * STRIDE + w];
                            }
                        }
                    }
                    if (kj) {
                        own++;
                    }
                }
            }
        }
    }
    barrier();
    // Exclusive scan of the per-segment counts, in element order.
    // LENGTHS: with it, the last kept index before each segment (1 + it,
    // 0 for none), an exclusive max scan of each segment's last kept
    // index + 1 (indices grow along the tile).
    if (sgid == 0) {
        uint carry = 0;
        uint lastCarry = 0;
        for (uint base = 0; base < VECS * nsg; base += sg) {
            uint i = base + lane;
            uint x = i < VECS * nsg ? sgCounts[i] : 0;
            uint incl = subgroupInclusiveAdd(x);
#ifdef NEIGHBOUR_PREDS
            if (LENGTHS) {
                uint last1 = x > 0 ? stage[i * seg * STRIDE + x - 1] + 1 : 0;
                uint prev1 = max(lastCarry, subgroupExclusiveMax(last1));
                if (i < VECS * nsg) {
                    sgPrev[i] = prev1;
                }
                lastCarry = max(lastCarry, subgroupMax(last1));
            }
#endif
            if (i < VECS * nsg) {
                sgCounts[i] = carry + incl - x;
            }
            carry += subgroupAdd(x);
        }
        if (lane == 0) {
            sAggregate = carry;
        }
    }
    barrier();
    uint aggregate = sAggregate;

    // Publish the aggregate early, so successors can look past this tile.
#ifdef SELF_RESET
    if (sgid == 0 && subgroupElect()) { // the invocation that makes every status access (tile_reset.glsl)
#else
    if (lid == 0) {
#endif
        publish(tile, (tile == 0 ? INCL : AGG) + aggregate);
    }

    // Look back for the exclusive prefix, with subgroup 0 alone and no
    // barrier in the loop: each round reads WINDOW = LOOKBACK * sg
    // predecessors' status words at once (word k of lane i: tile
    // base - k*sg - i), adds the aggregates up to the nearest word that is
    // not one, and stops there if it is an inclusive prefix. At a
    // predecessor that has not published it re-reads, up to pc.spins
    // times, then counts that tile itself (the fallback) and goes on past
    // it. The other subgroups wait at the barrier below.
    if (sgid == 0) {
        uint prefix = 0;
        int base = int(tile) - 1;
        uint spin = 0;
        while (tile > 0) {
            uint st[LOOKBACK];
            [[unroll]] for (uint k = 0; k < LOOKBACK; k++) {
                int t = base - int(k * sg + lane);
                st[k] = t < 0 ? INCL : loadStatus(uint(t));
            }
            bool found = false;
            uint stopWord = 0, stopAt = 0;
            [[unroll]] for (uint k = 0; k < LOOKBACK; k++) {
                if (!found) {
                    uvec4 stops = subgroupBallot(st[k] - AGG >= INCL - AGG); // not an aggregate (0 wraps past INCL)
                    if (stops != uvec4(0)) {
                        uint L = subgroupBallotFindLSB(stops); // the nearest word not an aggregate
                        prefix += subgroupAdd(lane < L ? st[k] - AGG : 0);
                        stopWord = subgroupAdd(lane == L ? st[k] : 0);
                        stopAt = k * sg + L;
                        found = true;
                    } else {
                        prefix += subgroupAdd(st[k] - AGG);
                    }
                }
            }
            if (!found) {
                base -= int(LOOKBACK * sg);
                spin = 0;
            } else if (stopWord >= INCL) {
                prefix += stopWord - INCL;
                break;
            } else {
                // Tile base - stopAt has not published: wait, or count it.
                base -= int(stopAt);
                spin = stopAt > 0 ? 1 : spin + 1;
                if (spin > pc.spins) {
                    uint agg = countTile(uint(base), elem0, n, c);
                    if (subgroupElect()) {
                        publish(uint(base), AGG + agg);
                    }
                    prefix += agg;
                    base--;
                    spin = 0;
                }
            }
        }
        if (subgroupElect()) {
            if (tile > 0) {
                publish(tile, INCL + (prefix + aggregate));
            }
            sPrefix = prefix;
#ifdef SELF_RESET
            countIn(); // done with status
#endif
        }
    }
    barrier(); // the stage and sPrefix are complete
    uint prefix = sPrefix;

    if (SPLIT == 0) {
        // Write out, each subgroup the kept elements of its segments as
        // one run, to prefix + (kept before the subgroup)..: run element q
        // lies in the subgroup's last segment k with at most q kept
        // elements before it in the run.
        uint first = sgid * VECS; // the subgroup's first segment
        uint before = sgCounts[first];
        uint e1 = VECS > 1 ? sgCounts[first + 1] - before : 0;
        uint e2 = VECS > 2 ? sgCounts[first + 2] - before : 0;
        uint e3 = VECS > 3 ? sgCounts[first + 3] - before : 0;
        uint kept = (first + VECS < VECS * nsg ? sgCounts[first + VECS] : aggregate) - before;
        uint runAt = (prefix + before) * OSTRIDE;
        uint stageAt = first * sg * EPV * STRIDE; // the subgroup's first segment in the stage
        // The stage holds the elements, or their indices (OUT_INDEX 1
        // and 2: the output; with values or run lengths, not).
        uint words = !STAGE_INDEX || OUT_INDEX == 1 || OUT_INDEX == 2 ? kept * OSTRIDE : 0;
        for (uint t = lane; t < words; t += sg) {
            uint q = t / OSTRIDE;
            uint w = t - q * OSTRIDE;
            uint k = 0, ek = 0;
            if (VECS > 1 && q >= e1) { k = 1; ek = e1; }
            if (VECS > 2 && q >= e2) { k = 2; ek = e2; }
            if (VECS > 3 && q >= e3) { k = 3; ek = e3; }
            storeWord(runAt + t, stage[stageAt + k * seg * STRIDE + (q - ek) * OSTRIDE + w]);
        }
        if (STAGE_INDEX && OUT_INDEX != 1) {
            // The kept elements themselves, each re-read at its index
            // (this workgroup loaded them just now: a cache hit).
            for (uint t = lane; t < kept * STRIDE; t += sg) {
                uint q = t / STRIDE;
                uint w = t - q * STRIDE;
                uint e = stage[stageAt + runStage(q, e1, e2, e3, seg)] - elem0;
                uint v = srcWord[e * STRIDE + w];
                if (OUT_INDEX == 0) {
                    storeWord((prefix + before + q) * STRIDE + w, v);
                } else {
                    dstElems[(prefix + before + q) * STRIDE + w] = v;
                }
            }
        }
#ifdef NEIGHBOUR_PREDS
        if (LENGTHS) {
            writeRunLengths(tile, prefix, before, kept, aggregate, sgPrev[first], stageAt, e1, e2, e3, seg);
        }
        if (VWORDS != 0) {
            writeValues(prefix + before, kept, stageAt, e1, e2, e3, seg);
        }
#endif
    } else {
        // Write out, each subgroup its own segments: the kept elements to
        // prefix + (kept before the segment).., the rejected ones to their
        // reversed slots at the back, which are contiguous and ascending in
        // stage order.
        [[unroll]] for (uint k = 0; k < 4; k++) {
            if (k < VECS) {
                uint i = segK(k);
                uint segBase = i * seg;
                uint segLen = min(seg, m - min(segBase, m));
                uint before = sgCounts[i];                                     // kept before the segment
                uint kept = (i + 1 < VECS * nsg ? sgCounts[i + 1] : aggregate) - before;
                uint keptAt = prefix + before;                                 // slot of the segment's first kept element
                uint rejAt = n - (start - prefix) - (segBase - before) - segLen; // slot of stage index 0 on the rejected side
                for (uint t = lane; t < segLen * STRIDE; t += sg) {
                    uint q = t / STRIDE;
                    uint w = t - q * STRIDE;
                    uint slot = q < kept ? keptAt + q : rejAt + q;
                    storeWord(slot * STRIDE + w, stage[segBase * STRIDE + t]);
                }
            }
        }
    }

    if (tile == lastTile && lid == 0) {
        uint kept = prefix + aggregate;
        writeResult(kept, n, pc.groupSize, pc.maxX);
    }
}

#ifdef SELF_RESET
void main() {
    runTile();
    resetIfLast();
}
#endif
