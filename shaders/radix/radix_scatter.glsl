#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// radix_scatter: the third phase of a radix sort pass, Billeter's split
// generalised to BUCKETS buckets. Each workgroup walks its chunk again in
// rounds of workgroup size * KPL keys; subgroup s takes the round's s-th
// piece of subgroup size * KPL consecutive keys, KPL steps of one key per
// lane. Every key's slot is
//
//   digit start (scan of the digit totals)
//   + the processor's first slot in the digit (radix_scan)
//   + keys of the digit in the chunk's earlier rounds
//   + keys of the digit in earlier subgroups' pieces of this round
//   + keys of the digit earlier in this subgroup's piece,
//
// the last from RADIX_BITS ballots (a mask of the lanes holding the same
// digit, a "match" built from one ballot per bit) and a per-subgroup count
// in shared memory. Equal digits keep their input order: the sort is
// stable.
//
// The round's keys are then staged in shared memory in slot order (by
// digit, stable inside a digit), and the workgroup writes them out with
// consecutive invocations on consecutive slots of each digit's run, so
// that stores coalesce instead of scattering one sector per key. Before
// the write-out, each lane loads its keys of the next round into the
// registers the staged ones held.
//
// With NEXT, the scatter also counts the next pass's digits, so that the
// next pass needs no count phase of its own. The next pass's processor q
// owns output slots [q * chunk, (q+1) * chunk); this processor's keys of
// digit d land in one run of slots, which (no longer than a chunk) meets
// at most two of those chunks. Each key written adds one to a shared
// counter per (digit d, next digit e), which stands for the chunk of the
// run's slots written so far. In the round where digit d's run first
// reaches the chunk boundary bound[d], the keys at or past it are not
// counted in the write-out; after it, the workgroup adds row d to the
// next pass's hist (zeroed before) with atomics, zeroes it, counts that
// round's keys past the boundary from the stage, and moves the row on
// to the next chunk. At the end, every nonzero counter is added the same
// way: at most 2 * BUCKETS^2 atomics per processor.
//
// With CARRY (radix_scatter_carry.comp), a round writes each digit's run
// only up to the last boundary of SECTOR slots; the keys past it (fewer
// than SECTOR) wait in shared memory and are staged at the head of the
// digit's run in the next round. The chunk's last round writes all. So a
// 32-byte sector of keys (or values) is written by one round, never half
// by one and half by the next: on the H100, partly written sectors at
// the ends of each round's runs cost about 0.3 ms of a 2 ms pass of pairs
// (BENCHMARKS.md, stop 21). With NEXT, a key is counted for the next pass
// in the round that writes it.
//
// Processors [proc0, procEnd) run in one dispatch: every processor at
// once, or past one binding (radix_scatter_wide.comp and
// radix_scatter_carry_wide.comp, WINDOWS) those whose chunks lie in one
// window of the keys (and values) in, which then starts at key proc0 *
// chunk; the outputs are then bound as up to four windows of winSlots
// slots each, since a processor's keys land anywhere.
//
// Bindings: 0 keys in, 1 values in, 2 hist (scanned rows, then the digit
// totals), 3 keys out, 4 values out (without PAIRS, 1 and 4 are bound to
// anything and unused), 5 the GPU-side key count (common.glsl:
// countedElems), 6 the next pass's hist (without NEXT bound to anything
// and unused); with WINDOWS, 3 and 4 are the outputs' first windows, 7 to
// 9 the keys' next three and 10 to 12 the values' (windows past the
// outputs' end are bound to anything and unused).

#include "../include/common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 5) const bool PAIRS = false;
layout(constant_id = 6) const uint MAX_SUBGROUPS = 8; // per workgroup, at the smallest subgroup size
layout(constant_id = 7) const uint ROUND = 1024;      // workgroup size * KPL: keys per round
layout(constant_id = 8) const bool NEXT = false;      // count the next pass's digits
#ifdef CARRY
layout(constant_id = 9) const uint SECTOR = 8;        // keys per carried block: 8, 16 or 32 (a power of two)
#endif

layout(std430, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 1) readonly buffer ValsIn { uint valsIn[]; };
layout(std430, binding = 2) readonly buffer Hist { uint hist[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 4) writeonly buffer ValsOut { uint valsOut[]; };
layout(std430, binding = 5) readonly buffer GpuCount { uint gpuCount[]; };
layout(std430, binding = 6) buffer HistNext { uint histNext[]; };
#ifdef WINDOWS
layout(std430, binding = 7) writeonly buffer KeysOut1 { uint keysOut1[]; };
layout(std430, binding = 8) writeonly buffer KeysOut2 { uint keysOut2[]; };
layout(std430, binding = 9) writeonly buffer KeysOut3 { uint keysOut3[]; };
layout(std430, binding = 10) writeonly buffer ValsOut1 { uint valsOut1[]; };
layout(std430, binding = 11) writeonly buffer ValsOut2 { uint valsOut2[]; };
layout(std430, binding = 12) writeonly buffer ValsOut3 { uint valsOut3[]; };
#endif

layout(push_constant) uniform Push {
    uint n;      // keys
    uint chunk;  // keys per processor
    uint nProcs; // processors
    uint shift;  // the digit's first bit
    uint width;  // the digit's bits
    uint countOn; // 1 + the word of gpuCount that holds the key count; 0: no count
    uint proc0;   // the dispatch's first processor
    uint procEnd; // the processor after its last
    uint nextShift; // with NEXT: the next pass's digit
    uint nextWidth;
    uint winSlots; // with WINDOWS: the slots of each output window
} pc;

// counts[s * BUCKETS + d]: keys of digit d so far in subgroup s's piece of
// the round; firsts: the same, scanned over subgroups into first indices
// inside the digit's run.
shared uint counts[MAX_SUBGROUPS * BUCKETS];
shared uint firsts[MAX_SUBGROUPS * BUCKETS];
shared uint next[BUCKETS]; // each digit's next slot for this processor
shared uint runSlot[BUCKETS];  // the round's first output slot per digit
shared uint runStage[BUCKETS]; // the round's first stage index per digit
shared uint sgSums[MAX_SUBGROUPS]; // run lengths of each subgroup's digits
#ifdef CARRY
// The stage holds a round's keys and the ones carried into it (fewer than
// SECTOR per digit).
const uint STAGE = ROUND + BUCKETS * (SECTOR - 1);
shared uint stageLo[STAGE];
shared uint stageHi[WIDE ? STAGE : 1];
shared uint stageVal[PAIRS ? STAGE : 1];
// A digit's slots from writeEnd[d] on (fewer than SECTOR) wait in carry*
// for the next round, so that every round writes whole blocks of SECTOR
// slots but for the run's first and the chunk's last: partly written
// sectors at the ends of each round's runs cost the H100 about 0.3 ms of
// a 2 ms pass of pairs (BENCHMARKS.md). newStart[d] is the stage index of
// the round's first new key of digit d, after the nCarried[d] carried in.
shared uint writeEnd[BUCKETS];
shared uint newStart[BUCKETS];
shared uint nCarried[BUCKETS];
shared uint carryLo[BUCKETS * SECTOR];
shared uint carryHi[WIDE ? BUCKETS * SECTOR : 1];
shared uint carryVal[PAIRS ? BUCKETS * SECTOR : 1];
#else
shared uint stageLo[ROUND];
shared uint stageHi[WIDE ? ROUND : 1];
shared uint stageVal[PAIRS ? ROUND : 1];
#endif
// With NEXT: nextCounts[d * BUCKETS + e] counts this processor's keys of
// digit d and next digit e written to chunk rowChunk[d]; bound[d] is the
// first slot past that chunk, or 2^32 - 1 once the run has crossed it
// (no slot reaches 2^32 - 1); crossed[d] is set in the round that crosses.
const uint NEXT_WORDS = NEXT ? BUCKETS * BUCKETS : 1;
shared uint nextCounts[NEXT_WORDS];
shared uint bound[NEXT ? BUCKETS : 1];
shared uint rowChunk[NEXT ? BUCKETS : 1];
shared bool crossed[NEXT ? BUCKETS : 1];
shared bool sgCrossed[MAX_SUBGROUPS]; // a digit of the subgroup's invocations crossed

// Digits per invocation in the round's scan of run lengths: invocation i
// owns digits [i * DPI, i * DPI + DPI).
const uint DPI = (BUCKETS + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;

// STORE_SLOT writes key (and val) to slot s of the outputs K and V.
#define STORE_SLOT(K, V, s, key, val) \
    if (WIDE) {                         \
        K[2 * (s)] = key.x;             \
        K[2 * (s) + 1] = key.y;         \
    } else {                            \
        K[s] = key.x;                   \
    }                                   \
    if (PAIRS) {                        \
        V[s] = val;                     \
    }

// storeSlot writes output slot `slot`: with WINDOWS it lies in window
// slot / pc.winSlots.
void storeSlot(uint slot, uvec2 key, uint val) {
#ifdef WINDOWS
    uint w = pc.winSlots;
    if (slot < w) {
        STORE_SLOT(keysOut, valsOut, slot, key, val)
    } else if (slot - w < w) {
        STORE_SLOT(keysOut1, valsOut1, slot - w, key, val)
    } else if (slot - 2 * w < w) {
        STORE_SLOT(keysOut2, valsOut2, slot - 2 * w, key, val)
    } else {
        STORE_SLOT(keysOut3, valsOut3, slot - 3 * w, key, val)
    }
#else
    STORE_SLOT(keysOut, valsOut, slot, key, val)
#endif
}

uint bits(uvec4 m) {
    uvec4 c = uvec4(bitCount(m));
    return c.x + c.y + c.z + c.w;
}

void main() {
    uint p = pc.proc0 + linearWorkgroup();
    if (p >= pc.procEnd) {
        return; // a surplus workgroup of a 2D grid: the whole workgroup leaves
    }
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint lane = gl_SubgroupInvocationID;
    uint sgSize = gl_SubgroupSize;
    uint row = gl_SubgroupID * BUCKETS;
    uint totals = BUCKETS * pc.nProcs;

    // Each digit's first slot: the exclusive scan of the digit totals,
    // by the first subgroup.
    for (uint d = lid; d < BUCKETS; d += wg) {
        next[d] = hist[totals + d];
    }
    for (uint w = lid; w < gl_NumSubgroups * BUCKETS; w += wg) {
        counts[w] = 0;
    }
    if (NEXT) {
        for (uint w = lid; w < NEXT_WORDS; w += wg) {
            nextCounts[w] = 0;
        }
    }
    barrier();
    if (gl_SubgroupID == 0) {
        uint run = 0;
        for (uint d0 = 0; d0 < BUCKETS; d0 += sgSize) {
            uint d = d0 + lane;
            uint v = d < BUCKETS ? next[d] : 0;
            uint ex = subgroupExclusiveAdd(v);
            if (d < BUCKETS) {
                next[d] = run + ex;
            }
            run += subgroupAdd(v);
        }
    }
    barrier();
    for (uint d = lid; d < BUCKETS; d += wg) {
        uint first = next[d] + hist[d * pc.nProcs + p];
        next[d] = first;
#ifdef CARRY
        writeEnd[d] = first;
#endif
        if (NEXT) {
            // No slot reaches a boundary past 2^32 - 1: saturate.
            uint q = first / pc.chunk;
            uint b = q * pc.chunk;
            rowChunk[d] = q;
            bound[d] = b > 0xffffffffu - pc.chunk ? 0xffffffffu : b + pc.chunk;
            crossed[d] = false;
        }
    }
    // (The first round's rank steps are ordered after this by its first
    // barrier: next is next read after it.)

    // The chunk in the coordinates of the keys' binding, whose first key
    // is proc0 * chunk (a window of them, or all).
    uint inBase = pc.proc0 * pc.chunk;
    uint start = p * pc.chunk;
    uint end = max(min(start + pc.chunk, countedElems(pc.n, 0, pc.countOn, gpuCount[countWord(pc.countOn)])), start) - inBase;
    start -= inBase;
    uint sgPiece = gl_SubgroupID * sgSize * KPL; // the subgroup's piece in a round
    uvec2 k[KPL];
    uint v[KPL];
    // The first round's keys; each round loads the next one's.
    [[unroll]] for (uint j = 0; j < KPL; j++) {
        uint i = start + sgPiece + j * sgSize + lane;
        k[j] = uvec2(0);
        v[j] = 0;
        if (i < end) {
            k[j] = WIDE ? uvec2(keysIn[2 * i], keysIn[2 * i + 1]) : uvec2(keysIn[i], 0);
            if (PAIRS) {
                v[j] = valsIn[i];
            }
        }
    }
    for (uint base = start; base < end; base += wg * KPL) {
        uint piece = base + sgPiece;
        uint rank[KPL];
        // Ranks inside the subgroup's piece, step by step.
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            bool ok = piece + j * sgSize + lane < end;
            uint dig = ok ? digitOf(sortKey(k[j]), pc.shift, pc.width) : 0;
            uvec4 peers = subgroupBallot(ok);
            [[unroll]] for (uint b = 0; b < RADIX_BITS; b++) {
                bool set = ((dig >> b) & 1u) != 0;
                uvec4 m = subgroupBallot(set);
                peers &= set ? m : ~m;
            }
            uint below = bits(peers & gl_SubgroupLtMask);
            uint before = ok ? counts[row + dig] : 0;
            rank[j] = before + below;
            subgroupBarrier(); // every lane has read its count before the lowest peer adds
            if (ok && below == 0) {
                counts[row + dig] = before + bits(peers);
            }
            subgroupBarrier();
        }
        barrier();
        // Per digit (DPI of them per invocation): each subgroup's first
        // index inside the digit's run, over the subgroups unrolled; the
        // counts are cleared for the next round, whose rank steps come
        // after this round's next two barriers.
        uint d0 = lid * DPI;
        uint mine = 0; // run lengths of this invocation's digits
        bool cross = false; // one of them reaches its chunk boundary
        [[unroll]] for (uint e = 0; e < DPI; e++) {
            uint d = d0 + e;
            if (d < BUCKETS) {
                uint run = 0;
                [[unroll]] for (uint s = 0; s < MAX_SUBGROUPS; s++) {
                    if (s < gl_NumSubgroups) {
                        uint c = counts[s * BUCKETS + d];
                        counts[s * BUCKETS + d] = 0;
                        firsts[s * BUCKETS + d] = run;
                        run += c;
                    }
                }
                runStage[d] = run; // the run's length, for now
                mine += run;
#ifdef CARRY
                mine += next[d] - writeEnd[d]; // and the keys carried in
#endif
            }
        }
        // The runs' first stage indices: an exclusive scan of their
        // lengths, in digit order, over the invocations: subgroup scans,
        // then each invocation adds the earlier subgroups' sums.
        uint ex = subgroupExclusiveAdd(mine);
        if (lane == sgSize - 1) {
            sgSums[gl_SubgroupID] = ex + mine;
        }
        barrier();
        uint roundLen = 0, before = 0;
        [[unroll]] for (uint s = 0; s < MAX_SUBGROUPS; s++) {
            if (s < gl_NumSubgroups) {
                uint t = sgSums[s];
                before += s < gl_SubgroupID ? t : 0;
                roundLen += t;
            }
        }
        uint at0 = before + ex;
        [[unroll]] for (uint e = 0; e < DPI; e++) {
            uint d = d0 + e;
            if (d < BUCKETS) {
                uint len = runStage[d];
                runStage[d] = at0;
#ifdef CARRY
                // The carried keys first; every block of SECTOR slots but
                // the run's last is whole, and the last waits for the next
                // round unless this round is the chunk's last.
                uint carried = next[d] - writeEnd[d];
                nCarried[d] = carried;
                newStart[d] = at0 + carried;
                runSlot[d] = writeEnd[d];
                uint wEnd = next[d] + len;
                if (end - base > wg * KPL) {
                    wEnd = max(wEnd & ~(SECTOR - 1), writeEnd[d]);
                }
                writeEnd[d] = wEnd;
                at0 += carried;
                if (NEXT) {
                    bool c = wEnd > bound[d];
#else
                runSlot[d] = next[d];
                if (NEXT) {
                    bool c = next[d] + len > bound[d];
#endif
                    crossed[d] = c;
                    cross = cross || c;
                }
                next[d] += len;
                at0 += len;
            }
        }
        bool anyCross = false;
        if (NEXT) {
            bool sgCross = any(notEqual(subgroupBallot(cross), uvec4(0)));
            if (subgroupElect()) {
                sgCrossed[gl_SubgroupID] = sgCross;
            }
        }
        barrier();
        if (NEXT) {
            [[unroll]] for (uint s = 0; s < MAX_SUBGROUPS; s++) {
                anyCross = anyCross || s < gl_NumSubgroups && sgCrossed[s];
            }
        }
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            if (piece + j * sgSize + lane < end) {
                uint dig = digitOf(sortKey(k[j]), pc.shift, pc.width);
#ifdef CARRY
                uint at = newStart[dig] + firsts[row + dig] + rank[j];
#else
                uint at = runStage[dig] + firsts[row + dig] + rank[j];
#endif
                stageLo[at] = k[j].x;
                if (WIDE) {
                    stageHi[at] = k[j].y;
                }
                if (PAIRS) {
                    stageVal[at] = v[j];
                }
            }
        }
#ifdef CARRY
        // The carried keys (and values) at the heads of their runs.
        for (uint w = lid; w < BUCKETS * SECTOR; w += wg) {
            uint d = w / SECTOR, i = w % SECTOR;
            if (i < nCarried[d]) {
                stageLo[runStage[d] + i] = carryLo[w];
                if (WIDE) {
                    stageHi[runStage[d] + i] = carryHi[w];
                }
                if (PAIRS) {
                    stageVal[runStage[d] + i] = carryVal[w];
                }
            }
        }
#endif
        barrier();
        if (end - base > wg * KPL) {
            // The round's keys are staged: their registers take the next
            // round's, whose loads are in flight through the write-out
            // (on the H100 at 2^28 keys with fused counts, 5-bit digits
            // and 16 keys per lane, 8.49 ms against 9.27 loading each
            // round's keys at its start).
            uint nextPiece = piece + wg * KPL;
            [[unroll]] for (uint j = 0; j < KPL; j++) {
                uint i = nextPiece + j * sgSize + lane;
                k[j] = uvec2(0);
                v[j] = 0;
                if (i < end) {
                    k[j] = WIDE ? uvec2(keysIn[2 * i], keysIn[2 * i + 1]) : uvec2(keysIn[i], 0);
                    if (PAIRS) {
                        v[j] = valsIn[i];
                    }
                }
            }
        }
        // The next round writes the stage, runStage, runSlot and sgSums
        // only after its first barrier, which every invocation reaches
        // after this loop: no barrier is needed at the end of the round.
        for (uint at = lid; at < roundLen; at += wg) {
            uvec2 key = uvec2(stageLo[at], WIDE ? stageHi[at] : 0);
            uint d = digitOf(sortKey(key), pc.shift, pc.width);
            uint slot = runSlot[d] + at - runStage[d];
#ifdef CARRY
            if (slot >= writeEnd[d]) {
                // The run's last, partial block: the next round's.
                uint w = d * SECTOR + slot - writeEnd[d];
                carryLo[w] = key.x;
                if (WIDE) {
                    carryHi[w] = key.y;
                }
                if (PAIRS) {
                    carryVal[w] = stageVal[at];
                }
                continue;
            }
#endif
            storeSlot(slot, key, stageVal[PAIRS ? at : 0]);
            if (NEXT && slot < bound[d]) {
                uint e = digitOf(sortKey(key), pc.nextShift, pc.nextWidth);
                atomicAdd(nextCounts[d * BUCKETS + e], 1u);
            }
        }
        if (NEXT && anyCross) {
            // Rare (each digit's run crosses at most once): the crossing
            // rows go to their chunk, then count the keys past it.
            barrier(); // the write-out's counts are in
            for (uint w = lid; w < NEXT_WORDS; w += wg) {
                uint d = w / BUCKETS;
                uint c = crossed[d] ? nextCounts[w] : 0;
                if (c != 0) {
                    atomicAdd(histNext[(w % BUCKETS) * pc.nProcs + rowChunk[d]], c);
                    nextCounts[w] = 0;
                }
            }
            barrier();
            for (uint at = lid; at < roundLen; at += wg) {
                uvec2 key = uvec2(stageLo[at], WIDE ? stageHi[at] : 0);
                uint d = digitOf(sortKey(key), pc.shift, pc.width);
#ifdef CARRY
                uint slot = runSlot[d] + at - runStage[d];
                if (crossed[d] && slot >= bound[d] && slot < writeEnd[d]) { // carried ones count when written
#else
                if (crossed[d] && runSlot[d] + at - runStage[d] >= bound[d]) {
#endif
                    atomicAdd(nextCounts[d * BUCKETS + digitOf(sortKey(key), pc.nextShift, pc.nextWidth)], 1u);
                }
            }
            barrier();
            for (uint d = lid; d < BUCKETS; d += wg) {
                if (crossed[d]) {
                    bound[d] = 0xffffffffu;
                    rowChunk[d]++;
                }
            }
            // (The next round's write-out reads these after its barriers.)
        }
    }
    if (NEXT) {
        barrier();
        for (uint w = lid; w < NEXT_WORDS; w += wg) {
            uint c = nextCounts[w];
            if (c != 0) {
                atomicAdd(histNext[(w % BUCKETS) * pc.nProcs + rowChunk[w / BUCKETS]], c);
            }
        }
    }
}
