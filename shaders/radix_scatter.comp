#version 450
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
// that stores coalesce instead of scattering one sector per key.
//
// Bindings: 0 keys in, 1 values in, 2 hist (scanned rows, then the digit
// totals), 3 keys out, 4 values out (without PAIRS, 1 and 4 are bound to
// anything and unused), 5 the GPU-side key count (common.glsl:
// countedElems).

#include "common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 5) const bool PAIRS = false;
layout(constant_id = 6) const uint MAX_SUBGROUPS = 8; // per workgroup, at the smallest subgroup size
layout(constant_id = 7) const uint ROUND = 1024;      // workgroup size * KPL: keys per round

layout(std430, binding = 0) readonly buffer KeysIn { uint keysIn[]; };
layout(std430, binding = 1) readonly buffer ValsIn { uint valsIn[]; };
layout(std430, binding = 2) readonly buffer Hist { uint hist[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keysOut[]; };
layout(std430, binding = 4) writeonly buffer ValsOut { uint valsOut[]; };
layout(std430, binding = 5) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;      // keys
    uint chunk;  // keys per processor
    uint nProcs; // processors
    uint shift;  // the digit's first bit
    uint width;  // the digit's bits
    uint countOn; // take the key count from gpuCount[0]
} pc;

// counts[s * BUCKETS + d]: keys of digit d so far in subgroup s's piece of
// the round; firsts: the same, scanned over subgroups into first slots.
shared uint counts[MAX_SUBGROUPS * BUCKETS];
shared uint firsts[MAX_SUBGROUPS * BUCKETS];
shared uint next[BUCKETS]; // each digit's next slot for this processor
shared uint runSlot[BUCKETS];  // the round's first output slot per digit
shared uint runStage[BUCKETS]; // the round's first stage index per digit
shared uint stageLo[ROUND];
shared uint stageHi[WIDE ? ROUND : 1];
shared uint stageVal[PAIRS ? ROUND : 1];

#define SCAN_DATA runStage
const bool SCAN_FLOAT = false;
#include "block_scan.glsl"

uint bits(uvec4 m) {
    uvec4 c = uvec4(bitCount(m));
    return c.x + c.y + c.z + c.w;
}

void main() {
    uint p = linearWorkgroup();
    if (p >= pc.nProcs) {
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
        next[d] += hist[d * pc.nProcs + p];
    }
    barrier();

    uint start = p * pc.chunk;
    uint end = min(start + pc.chunk, countedElems(pc.n, 0, pc.countOn, gpuCount[0]));
    for (uint base = start; base < end; base += wg * KPL) {
        uint piece = base + gl_SubgroupID * sgSize * KPL;
        uvec2 k[KPL];
        uint v[KPL], dig[KPL], rank[KPL];
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            uint i = piece + j * sgSize + lane;
            k[j] = uvec2(0);
            v[j] = 0;
            if (i < end) {
                k[j] = WIDE ? uvec2(keysIn[2 * i], keysIn[2 * i + 1]) : uvec2(keysIn[i], 0);
                if (PAIRS) {
                    v[j] = valsIn[i];
                }
            }
        }
        // Ranks inside the subgroup's piece, step by step.
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            bool ok = piece + j * sgSize + lane < end;
            dig[j] = ok ? digitOf(sortKey(k[j]), pc.shift, pc.width) : 0;
            uvec4 peers = subgroupBallot(ok);
            [[unroll]] for (uint b = 0; b < RADIX_BITS; b++) {
                bool set = ((dig[j] >> b) & 1u) != 0;
                uvec4 m = subgroupBallot(set);
                peers &= set ? m : ~m;
            }
            uint below = bits(peers & gl_SubgroupLtMask);
            uint before = ok ? counts[row + dig[j]] : 0;
            rank[j] = before + below;
            subgroupBarrier(); // every lane has read its count before the lowest peer adds
            if (ok && below == 0) {
                counts[row + dig[j]] = before + bits(peers);
            }
            subgroupBarrier();
        }
        barrier();
        // Per digit: each subgroup's first stage index inside the digit's
        // run, the run's length and its first output slot; counts are
        // cleared for the next round (which writes them only after the
        // scan's barriers and its own rank steps).
        for (uint d = lid; d < BUCKETS; d += wg) {
            uint run = 0;
            for (uint s = 0; s < gl_NumSubgroups; s++) {
                uint c = counts[s * BUCKETS + d];
                counts[s * BUCKETS + d] = 0;
                firsts[s * BUCKETS + d] = run;
                run += c;
            }
            runStage[d] = run;
            runSlot[d] = next[d];
            next[d] += run;
        }
        // The runs' first stage indices: an exclusive scan of their
        // lengths (with barriers before and after).
        uint roundLen = scanExclusive(0, BUCKETS);
        [[unroll]] for (uint j = 0; j < KPL; j++) {
            if (piece + j * sgSize + lane < end) {
                uint at = runStage[dig[j]] + firsts[row + dig[j]] + rank[j];
                stageLo[at] = k[j].x;
                if (WIDE) {
                    stageHi[at] = k[j].y;
                }
                if (PAIRS) {
                    stageVal[at] = v[j];
                }
            }
        }
        barrier();
        for (uint at = lid; at < roundLen; at += wg) {
            uvec2 key = uvec2(stageLo[at], WIDE ? stageHi[at] : 0);
            uint d = digitOf(sortKey(key), pc.shift, pc.width);
            uint slot = runSlot[d] + at - runStage[d];
            if (WIDE) {
                keysOut[2 * slot] = key.x;
                keysOut[2 * slot + 1] = key.y;
            } else {
                keysOut[slot] = key.x;
            }
            if (PAIRS) {
                valsOut[slot] = stageVal[at];
            }
        }
        barrier(); // the stage, runSlot and runStage are rewritten by the next round
    }
}
