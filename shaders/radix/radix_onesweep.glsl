#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_memory_scope_semantics : require
// radix_onesweep: one digit pass of the single-pass radix sort, reading
// the keys once (Onesweep, Adinets & Merrill 2022): a chained scan over
// tiles with decoupled look-back (Merrill & Garland), one status word per
// (tile, digit), made safe without forward-progress guarantees by
// decoupled fallback (Smith, Levien et al.).
//
// Each workgroup takes a tile number from the pass's counter (so every
// tile it waits on was taken earlier, by a workgroup already running) and
// loads its tile of TILE = workgroup size * KPL keys once: subgroup s takes
// the s-th piece of subgroup size * KPL consecutive keys, KPL steps of one
// key per lane. It counts each piece's digits (shared atomics), publishes
// each digit's tile count at once, scans the counts into each piece's
// first tile position per digit, ranks every key inside its subgroup's
// piece with RADIX_BITS ballots (radix_scatter explains) from there, so
// that the rank is the key's place in the tile, stages the tile in shared
// memory in output order (by digit, stable inside a digit), and then
// looks back: invocation d (one per digit; the workgroup has at least
// BUCKETS) walks back over the predecessors' status words of digit d,
// adding aggregates until it meets an inclusive prefix. A digit's first
// slot in this tile is its first slot overall plus that exclusive prefix;
// the first slots are the exclusive scan of the pass's row of digit counts
// (hist: radix_histogram, before the passes): with SELF_RESET (up to 512
// tiles of keys, 256 of pairs) every workgroup scans the row itself, which saves a dispatch
// (after a barrier about 2 us on the H100); without, radix_scan has
// scanned it in place before the passes (with more tiles the workgroups'
// own scans cost more: pairs at 2^21 to 2^25 took 0.7 to 1.1% longer).
// The tile then writes its runs with consecutive invocations on
// consecutive slots.
//
// Status word (tile t, digit d) at status[cur + t * BUCKETS + d]: 0 not
// yet, FLAG_AGG + the tile's count of digit d, or FLAG_INCL + the count of
// digit d in tiles 0..t (the host keeps n below 2^31). Flag and value
// share one word, written with atomicMax (every word published exceeds
// every earlier one) and read with atomic loads, so no other memory
// ordering is needed. A pass zeroes the next pass's status region, tile by tile (the
// host zeroes the first pass's): the regions alternate.
//
// With SELF_RESET the passes also leave zero what the next run needs zero
// (the histogram's rows, the tile counters and the first pass's status
// region), so that no clear dispatch comes before it: pass i > 0 zeroes
// pass i - 1's row of counts and tile counter (tile 0's workgroup), the
// last pass zeroes region 0 as the next pass's (the host takes this only
// for an even number of passes), and the last pass's workgroups count
// themselves in (status[pc.done], once each, with release semantics,
// after their last use of the row and the counter: their values fed the
// runSlot and tile they had before the barrier), so that the one whose
// count completes the dispatch's zeroes the last row, the last counter
// and the count (the acquire of tile_reset.glsl). The host records a
// clear only where it does not know the range zero (vk.Range.KnownZero),
// and takes SELF_RESET up to 512 tiles of keys, 256 of pairs (radix's
// selfResetMaxTiles: past them it costs more than it saves).
//
// Fallback: when some digit's look-back meets a predecessor that has not
// published, and it stays so for pc.spins re-reads, the workgroup counts
// that predecessor's tile itself (the input is still there: a pass never
// writes the keys it reads) and publishes its counts, for every digit,
// then every digit goes on. A stalled or unscheduled predecessor therefore
// never blocks its successors. Counts are exact, so a tile's counts
// published twice (by itself and by a successor's fallback) are the same
// word.
//
// Past one binding (radix_onesweep_wide.comp, WINDOWS) a pass is one
// dispatch per window of whole tiles of the keys (and values) in: tiles
// [tile0, tiles), the keys bound from key tile0 * TILE, each window with
// its own tile counter; the tile numbers, the status words and the
// look-back carry over from window to window (every tile of an earlier
// window has published its inclusive prefix before the next window's
// dispatch begins, so a look-back never waits on one, and the fallback
// only ever counts a tile of its own window). The outputs are bound as
// up to four windows of winSlots slots each, since a tile's keys land
// anywhere.
//
// Bindings: 0 keys in, 1 values in, 2 hist (a row of BUCKETS per pass:
// the digit counts with SELF_RESET, else their exclusive scans), 3 status
// (the tile counters, then two regions of tiles * BUCKETS words), 4 keys
// out, 5 values out (without PAIRS, 1 and 5 are bound to anything and
// unused), 6 the GPU-side key count (common.glsl: countedElems); with
// WINDOWS, 4 and 5 are the outputs' first windows, 7 to 9 the keys' next
// three and 10 to 12 the values' (windows past the outputs' end are bound
// to anything and unused).

#include "../include/common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 5) const bool PAIRS = false;
layout(constant_id = 6) const uint MAX_SUBGROUPS = 8; // per workgroup, at the smallest subgroup size
layout(constant_id = 7) const uint TILE = 1024;       // workgroup size * KPL: keys per tile
layout(constant_id = 8) const bool SELF_RESET = false; // leave the next run's scratch zero (above)

layout(std430, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 1) readonly buffer ValsIn { uint valsIn[]; };
layout(std430, binding = 2) buffer Hist { uint hist[]; };
layout(std430, binding = 3) buffer Status { uint status[]; };
layout(std430, binding = 4) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 5) writeonly buffer ValsOut { uint valsOut[]; };
layout(std430, binding = 6) readonly buffer GpuCount { uint gpuCount[]; };
#ifdef WINDOWS
layout(std430, binding = 7) writeonly buffer KeysOut1 { uint keysOut1[]; };
layout(std430, binding = 8) writeonly buffer KeysOut2 { uint keysOut2[]; };
layout(std430, binding = 9) writeonly buffer KeysOut3 { uint keysOut3[]; };
layout(std430, binding = 10) writeonly buffer ValsOut1 { uint valsOut1[]; };
layout(std430, binding = 11) writeonly buffer ValsOut2 { uint valsOut2[]; };
layout(std430, binding = 12) writeonly buffer ValsOut3 { uint valsOut3[]; };
#endif

layout(push_constant) uniform Push {
    uint n;       // keys
    uint tiles;   // the tile after the dispatch's last
    uint shift;   // the digit's first bit
    uint width;   // the digit's bits
    uint countOn; // 1 + the word of gpuCount that holds the key count; 0: no count
    uint spins;   // re-reads of an unpublished predecessor before the fallback
    uint counter; // the pass's tile counter: status[counter]
    uint cur;     // the pass's status region: status[cur ..]
    uint next;    // the next pass's status region, zeroed here
    uint first;   // the pass's row of digit counts: hist[first ..]
    uint done;    // SELF_RESET, the last pass: the count of workgroups done, status[done]; else 0
    uint tile0;   // the dispatch's first tile: its keys (and values) in are bound from key tile0 * TILE
    uint winSlots; // with WINDOWS: the slots of each output window
} pc;

// A status word is 0 (not yet), FLAG_AGG + the tile's count (at most
// TILE), or FLAG_INCL + the inclusive prefix (below 2^31: the host keeps n
// there), so that every published word exceeds every earlier one.
const uint FLAG_AGG = 1u << 30, FLAG_INCL = 1u << 31;
// Status words each digit's invocation reads per look-back round. On the
// H100 (2^28 keys, 6-bit digits) 4 took 14.7 ms, 1 17.4 ms, 8 15.2 ms.
// Two other look-backs were slower: a subgroup per digit reading a window
// of 32 tiles (56 ms: 32 cache lines per digit and round), and the same
// with the status stored digit-major (24.9 ms).
const uint LOOKBACK = 4;

// pool is one union over the tile's life: first, at s * BUCKETS + d, the
// count of digit d in subgroup s's piece (then, in place, the tile
// position of that subgroup's first key of digit d, then its next); once every key has
// its tile position, the stage of the tile's keys in output order (low
// words, then the high words of 64-bit keys); once the keys are written,
// the stage of the values (PAIRS). So only keys and ranks live in
// registers during ranking, and the values are loaded after the keys are
// staged (CUB's Onesweep moves them so too).
const uint COUNT_WORDS = MAX_SUBGROUPS * BUCKETS;
const uint STAGE_WORDS = WIDE ? 2 * TILE : TILE;
shared uint pool[COUNT_WORDS > STAGE_WORDS ? COUNT_WORDS : STAGE_WORDS];
shared uint runSlot[BUCKETS];    // a digit's first output slot minus its first tile position
shared uint lateCounts[BUCKETS]; // the fallback's count of a predecessor's tile
shared uint sgSums[MAX_SUBGROUPS]; // the digit scan's sum per subgroup
shared uint sTile, sStuck, sLast;
shared uint rowSums[SELF_RESET ? MAX_SUBGROUPS : 1]; // each subgroup's sum of the row's counts

// The key (and value) at index i of the whole input: the dispatch's
// window of the inputs starts at key pc.tile0 * TILE.
uvec2 loadKey(uint i) {
    uint at = i - pc.tile0 * TILE;
    return WIDE ? uvec2(keysIn[2 * at], keysIn[2 * at + 1]) : uvec2(keysIn[at], 0);
}

uint loadValue(uint i) {
    return valsIn[i - pc.tile0 * TILE];
}

// storeKey and storeValue write output slot `slot`: with WINDOWS it lies
// in window slot / pc.winSlots.
#ifdef WINDOWS
#define STORE_KEY(K, s, key) \
    if (WIDE) {              \
        K[2 * (s)] = key.x;  \
        K[2 * (s) + 1] = key.y; \
    } else {                 \
        K[s] = key.x;        \
    }
void storeKey(uint slot, uvec2 key) {
    uint w = pc.winSlots;
    if (slot < w) {
        STORE_KEY(keysOut, slot, key)
    } else if (slot - w < w) {
        STORE_KEY(keysOut1, slot - w, key)
    } else if (slot - 2 * w < w) {
        STORE_KEY(keysOut2, slot - 2 * w, key)
    } else {
        STORE_KEY(keysOut3, slot - 3 * w, key)
    }
}

void storeValue(uint slot, uint v) {
    uint w = pc.winSlots;
    if (slot < w) {
        valsOut[slot] = v;
    } else if (slot - w < w) {
        valsOut1[slot - w] = v;
    } else if (slot - 2 * w < w) {
        valsOut2[slot - 2 * w] = v;
    } else {
        valsOut3[slot - 3 * w] = v;
    }
}
#else
void storeKey(uint slot, uvec2 key) {
    if (WIDE) {
        keysOut[2 * slot] = key.x;
        keysOut[2 * slot + 1] = key.y;
    } else {
        keysOut[slot] = key.x;
    }
}

void storeValue(uint slot, uint v) {
    valsOut[slot] = v;
}
#endif

uint bits(uvec4 m) {
    uvec4 c = uvec4(bitCount(m));
    return c.x + c.y + c.z + c.w;
}

uint loadStatus(uint at) {
    return atomicLoad(status[at], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

void publish(uint at, uint word) {
    atomicMax(status[at], word, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
}

// With SELF_RESET, in the last pass: countIn counts the workgroup in,
// once it is done with the row of counts and the tile counter (called by
// one invocation); resetIfLast, called by every invocation in uniform
// control flow at the workgroup's end, zeroes the last row, the last
// counter and the count, for the next run, in the workgroup whose count
// completed the dispatch's.
bool counted = false;
uint doneBefore;

void countIn() {
    doneBefore = atomicAdd(status[pc.done], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                           gl_SemanticsRelease);
    counted = true;
}

void resetIfLast() {
    if (counted) {
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
        sLast = doneBefore + 1 == groups ? 1u : 0u;
    }
    barrier();
    if (sLast != 0) {
        memoryBarrierBuffer(); // acquire: every workgroup's uses before the reset
        for (uint d = gl_LocalInvocationID.x; d < BUCKETS; d += gl_WorkGroupSize.x) {
            hist[pc.first + d] = 0;
        }
        if (gl_LocalInvocationID.x == 0) {
            status[pc.counter] = 0;
            status[pc.done] = 0;
        }
    }
}

// digitCounts, called by every invocation once pool holds each
// subgroup's count of each digit (after a barrier): per digit (invocation
// d) the tile's count of the digit (mine), published at once so that
// successors can look past this tile (tile 0's count is its inclusive
// prefix); the digits' first tile positions (stageFirst), an exclusive
// scan of the counts over the workgroup; then, in place of each
// subgroup's count, the tile position of its first key of the digit.
// Ends with a barrier.
uint mine = 0, stageFirst = 0;

void digitCounts(uint tile) {
    uint lid = gl_LocalInvocationID.x;
    bool digitLane = lid < BUCKETS;
    if (digitLane) {
        for (uint s = 0; s < gl_NumSubgroups; s++) {
            mine += pool[s * BUCKETS + lid];
        }
        publish(pc.cur + tile * BUCKETS + lid, (tile == 0 ? FLAG_INCL : FLAG_AGG) | mine);
    }
    stageFirst = subgroupExclusiveAdd(mine); // 0 past the digit lanes
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
        sgSums[gl_SubgroupID] = stageFirst + mine;
    }
    barrier();
    if (digitLane) {
        for (uint s = 0; s < gl_SubgroupID; s++) {
            stageFirst += sgSums[s];
        }
        uint at = stageFirst;
        for (uint s = 0; s < gl_NumSubgroups; s++) {
            uint c = pool[s * BUCKETS + lid];
            pool[s * BUCKETS + lid] = at;
            at += c;
        }
    }
    barrier();
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint lane = gl_SubgroupInvocationID;
    uint sgSize = gl_SubgroupSize;
    uint row = gl_SubgroupID * BUCKETS;

    if (lid == 0) {
        sTile = pc.tile0 + atomicAdd(status[pc.counter], 1u);
        sStuck = 0;
    }
    for (uint w = lid; w < gl_NumSubgroups * BUCKETS; w += wg) {
        pool[w] = 0;
    }
    barrier();
    uint tile = sTile;
    if (tile >= pc.tiles) {
        if (SELF_RESET && pc.done != 0) {
            if (lid == 0) {
                countIn(); // its one use of the counter is over
            }
            resetIfLast();
        }
        return; // a surplus workgroup of a 2D grid: the whole workgroup leaves
    }
    // The next pass's status words of this tile: zero (the previous pass,
    // which used them, is complete; the next pass runs after this one).
    for (uint d = lid; d < BUCKETS; d += wg) {
        status[pc.next + tile * BUCKETS + d] = 0;
    }
    if (SELF_RESET && tile == 0 && pc.first != 0) {
        // The previous pass's row of counts and tile counter, done with.
        for (uint d = lid; d < BUCKETS; d += wg) {
            hist[pc.first - BUCKETS + d] = 0;
        }
        if (lid == 0) {
            status[pc.counter - 1] = 0;
        }
    }
    uint n = countedElems(pc.n, 0, pc.countOn, gpuCount[countWord(pc.countOn)]);
    uint start = tile * TILE;
    if (start >= n) {
        if (SELF_RESET && pc.done != 0) {
            if (lid == 0) {
                countIn(); // its one use of the counter is over
            }
            resetIfLast();
        }
        return; // past the count: no tile with keys waits on this one
    }
    bool digitLane = lid < BUCKETS;
    // With SELF_RESET the row holds the pass's digit counts, and digit d
    // starts at the row's exclusive scan at d (plus the tiles before):
    // each subgroup's part here, the subgroups' sums added after the
    // barrier below. Without, it holds the first slots (radix_scan), read
    // here, long before the look-back needs them.
    uint rowBefore = 0;
    if (SELF_RESET) {
        uint rowCount = digitLane ? hist[pc.first + lid] : 0;
        rowBefore = subgroupExclusiveAdd(rowCount);
        uint rowSum = subgroupAdd(rowCount);
        if (subgroupElect()) {
            rowSums[gl_SubgroupID] = rowSum;
        }
    } else if (digitLane) {
        rowBefore = hist[pc.first + lid];
    }
    uint end = min(start + TILE, n);
    uint tileLen = end - start;
    bool full = tileLen == TILE;

    uint piece = start + gl_SubgroupID * sgSize * KPL;
    uvec2 k[KPL];
    [[unroll]] for (uint j = 0; j < KPL; j++) {
        uint i = piece + j * sgSize + lane;
        k[j] = uvec2(0);
        if (full || i < end) {
            k[j] = loadKey(i);
        }
    }
    // Each subgroup's count of each digit first (one shared atomic a key),
    // so that the tile publishes its counts before it ranks (CUB's
    // Onesweep does so: on the H100 0.5 to 2% faster than counts taken out
    // of the ranking, 2^20 to 2^28 keys).
    [[unroll]] for (uint j = 0; j < KPL; j++) {
        if (full || piece + j * sgSize + lane < end) {
            atomicAdd(pool[row + digitOf(sortKey(k[j]), pc.shift, pc.width)], 1u);
        }
    }
    barrier();
    digitCounts(tile);
    // Ranks inside the subgroup's piece, step by step (digits recomputed
    // from the keys where needed, not held), from the subgroup's first
    // tile position of the digit: the rank is the key's tile position.
    uvec4 live = subgroupBallot(true);
    uint rank[KPL];
    [[unroll]] for (uint j = 0; j < KPL; j++) {
        bool ok = full || piece + j * sgSize + lane < end;
        uint dig = ok ? digitOf(sortKey(k[j]), pc.shift, pc.width) : 0;
        uvec4 peers = full ? live : subgroupBallot(ok);
        [[unroll]] for (uint b = 0; b < RADIX_BITS; b++) {
            bool set = ((dig >> b) & 1u) != 0;
            uvec4 m = subgroupBallot(set);
            peers &= set ? m : ~m;
        }
        uint below = bits(peers & gl_SubgroupLtMask);
        uint before = ok ? pool[row + dig] : 0;
        rank[j] = before + below;
        subgroupBarrier(); // every lane has read its count before the lowest peer adds
        if (ok && below == 0) {
            pool[row + dig] = before + bits(peers);
        }
        subgroupBarrier();
    }
    // Once every invocation has read its positions (the barrier), the
    // keys go to the stage.
    barrier();
    [[unroll]] for (uint j = 0; j < KPL; j++) {
        if (full || piece + j * sgSize + lane < end) {
            pool[rank[j]] = k[j].x;
            if (WIDE) {
                pool[TILE + rank[j]] = k[j].y;
            }
        }
    }
    // The values, loaded now (their loads overlap the look-back) and
    // staged after the keys are written.
    uint v[PAIRS ? KPL : 1];
    if (PAIRS) {
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            uint i = piece + j * sgSize + lane;
            v[j] = full || i < end ? loadValue(i) : 0;
        }
    }

    // Look back, invocation d for digit d, each on its own until it meets
    // an inclusive prefix or a predecessor that stays unpublished for
    // pc.spins re-reads, reading LOOKBACK predecessors' words at once
    // (the walk back passes every tile still looking back itself: one
    // dependent load per tile when read one at a time). Then the workgroup
    // meets: if some digit is stuck, it counts the latest tile any digit
    // is stuck on (the fallback), publishes that tile's counts, and every
    // digit goes on.
    uint prefix = 0;
    int t = int(tile) - 1;
    bool done = !digitLane || tile == 0;
    uint spin = 0;
    for (;;) {
        bool stuck = false;
        while (!done && !stuck) {
            uint w[LOOKBACK];
            [[unroll]] for (uint q = 0; q < LOOKBACK; q++) {
                int at = t - int(q);
                w[q] = at < 0 ? FLAG_INCL : loadStatus(pc.cur + uint(at) * BUCKETS + lid);
            }
            bool waiting = false;
            [[unroll]] for (uint q = 0; q < LOOKBACK; q++) {
                if (!done && !waiting) {
                    if (w[q] >= FLAG_INCL) {
                        prefix += w[q] - FLAG_INCL;
                        done = true;
                    } else if (w[q] >= FLAG_AGG) {
                        prefix += w[q] - FLAG_AGG;
                        t--; // tile 0 only ever publishes inclusive prefixes: t stays >= 0
                        spin = 0;
                    } else {
                        waiting = true;
                    }
                }
            }
            if (waiting && spin++ >= pc.spins) {
                stuck = true;
            }
        }
        if (stuck) {
            atomicMax(sStuck, uint(t) + 1);
        }
        barrier();
        uint late = sStuck; // 1 + the tile to count, or 0: every digit is done
        if (late == 0) {
            break;
        }
        for (uint d = lid; d < BUCKETS; d += wg) {
            lateCounts[d] = 0;
        }
        barrier(); // every invocation has read sStuck
        if (lid == 0) {
            sStuck = 0;
        }
        uint ft = late - 1;
        uint fEnd = min(ft * TILE + TILE, n);
        for (uint i = ft * TILE + lid; i < fEnd; i += wg) {
            uvec2 key = loadKey(i);
            atomicAdd(lateCounts[digitOf(sortKey(key), pc.shift, pc.width)], 1u);
        }
        barrier();
        if (digitLane) {
            publish(pc.cur + ft * BUCKETS + lid, (ft == 0 ? FLAG_INCL : FLAG_AGG) | lateCounts[lid]);
            spin = 0;
        }
        barrier(); // lateCounts are read before the next fallback clears them
    }
    if (digitLane) {
        if (tile > 0) {
            publish(pc.cur + tile * BUCKETS + lid, FLAG_INCL | (prefix + mine));
        }
        if (SELF_RESET) {
            for (uint s = 0; s < gl_SubgroupID; s++) {
                rowBefore += rowSums[s];
            }
        }
        // Wrapping: the key at tile position p of digit d goes to
        // runSlot[d] + p.
        runSlot[lid] = rowBefore + prefix - stageFirst;
    }
    barrier(); // the stage and runSlot are complete
    if (SELF_RESET && pc.done != 0 && lid == 0) {
        // Every use of the row and the counter is over: the values read
        // are in runSlot and tile, written before the barrier above. (The
        // atomic's round trip overlaps the write-out below.)
        countIn();
    }

    // The tile's runs, consecutive invocations on consecutive slots; with
    // PAIRS each invocation keeps its slots for the values.
    uint slots[PAIRS ? KPL : 1];
    [[unroll]] for (uint m = 0; m < KPL; m++) {
        uint at = lid + m * wg;
        if (full || at < tileLen) {
            uvec2 key = uvec2(pool[at], WIDE ? pool[TILE + at] : 0);
            uint slot = runSlot[digitOf(sortKey(key), pc.shift, pc.width)] + at;
            storeKey(slot, key);
            if (PAIRS) {
                slots[m] = slot;
            }
        }
    }
    if (PAIRS) {
        barrier(); // every key is read from the stage
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            if (full || piece + j * sgSize + lane < end) {
                pool[rank[j]] = v[j];
            }
        }
        barrier();
        [[unroll]] for (uint m = 0; m < KPL; m++) {
            uint at = lid + m * wg;
            if (full || at < tileLen) {
                storeValue(slots[m], pool[at]);
            }
        }
    }
    if (SELF_RESET && pc.done != 0) {
        resetIfLast();
    }
}
