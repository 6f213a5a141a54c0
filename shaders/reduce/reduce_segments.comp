#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// reduce_segments: the first of a segmented reduction's two dispatches.
// Segment s is elements [offsets[s], offsets[s+1]), the offsets read as
// uint32 and clamped to n (bound). Workgroup t reduces tile t
// (reduce_runs.glsl): the elements' runs are the segments met in it, and
// the stretches before the first offset and from the last on, which
// belong to no segment and are never written.
//
// A segment's code is its index + 1; code 0 is the stretch before the
// first offset, segments + 1 the one after the last. An element's code
// is the number of bounds at or below it (codeOf: a binary search, the
// offsets not decreasing), so empty segments are skipped however many
// there are. Invocations 0 and 1 find the codes of the tile's first and
// last elements; each invocation then finds its first element's code
// among those, and walks its elements' boundaries: the next bound after
// the current code, its code found at once where the next segment is
// not empty, by a binary search where it is. Each head's code is left in
// shared memory for the second walk, which writes dst[code - 1] for every
// segment that begins and ends in the tile, and the tile record's P and
// Q for those that cross its edges (reduce_segments_fixup completes
// them, and writes the empty segments).
//
// Offsets that decrease make the output unspecified, but every loop stays
// bounded and nothing is written outside dst and the tile records.
//
// Bindings: 0 the elements as uvec4, 1 the same as uint, 2 the offsets
// (segments + 1 words), 3 dst (a value per segment), 4 the tile records.

#include "../include/common.glsl"
#include "../include/float_sum.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0;   // OP_SUM, OP_MIN or OP_MAX (reduce_ops.glsl)
layout(constant_id = 2) const uint TYPE = 0; // the elements' KEY_* code
layout(constant_id = 3) const uint VECS = 4; // uvec4 units per invocation

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer Dst { uint dst[]; };
layout(std430, binding = 4) writeonly buffer Tiles { uint tiles[]; };

layout(push_constant) uniform Push {
    uint n;        // elements
    uint segments; // offsets holds segments + 1 words
} pc;

#include "reduce_ops.glsl"
#include "reduce_load.glsl"
#include "reduce_runs.glsl"

shared uint headCode[TILE];
shared uint sLo, sHi;

// bound is offset k (0 <= k <= segments) clamped to n.
uint bound(uint k) {
    return min(offsets[k], pc.n);
}

// codeOf is element e's code, known to lie in [lo, hi]: the largest c
// there with c == 0 or bound(c - 1) <= e.
uint codeOf(uint e, uint lo, uint hi) {
    while (lo < hi) {
        uint mid = lo + (hi - lo + 1) / 2;
        if (bound(mid - 1) <= e) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

// nextBound is where the run of code c ends: bound(c), or n after the last.
uint nextBound(uint c) {
    return c <= pc.segments ? bound(c) : pc.n;
}

void writeValue(uint i, uvec2 v) {
    if (WIDE) {
        dst[2 * i] = v.x;
        dst[2 * i + 1] = v.y;
    } else {
        dst[i] = v.x;
    }
}

void writeRecord(uint t, uint word, uvec2 v) {
    tiles[t * TILE_WORDS + word] = v.x;
    tiles[t * TILE_WORDS + word + 1] = v.y;
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint t = linearWorkgroup();
    uint ts = t * TILE;
    if (ts >= pc.n) {
        return; // the grid's spare workgroups
    }
    uint te = min(ts + TILE, pc.n);
    uint e0 = ts + lid * ELEMS;
    uint valid = e0 < te ? min(ELEMS, te - e0) : 0;
    uvec2 v[16];
    loadElems(e0, valid, v);
    if (lid == 0) {
        sLo = codeOf(ts, 0, pc.segments + 1);
    } else if (lid == 1) {
        sHi = codeOf(te - 1, 0, pc.segments + 1);
    }
    barrier();
    uint lo = sLo, hi = max(sLo, sHi);

    // The first walk: heads, their codes, and whether the run in progress
    // at the last valid element ends there.
    uint heads = 0, c0 = 0;
    bool lastEnds = false;
    if (valid > 0) {
        uint c = codeOf(e0, lo, hi);
        c0 = c;
        if (e0 == 0 || c > 0 && bound(c - 1) == e0) {
            heads = 1;
            headCode[e0 - ts] = c;
        }
        uint pos = e0, nb = nextBound(c);
        for (uint i = 0; i < ELEMS; i++) {
            if (nb <= pos || nb >= e0 + valid) {
                break; // past the invocation's elements (or offsets that decrease)
            }
            pos = nb;
            uint next = c + 1;
            c = next > pc.segments || bound(next) > pos ? next : codeOf(pos, next, max(next, hi));
            heads |= 1u << (pos - e0);
            headCode[pos - ts] = c;
            nb = nextBound(c);
        }
        lastEnds = e0 + valid == pc.n || nb == e0 + valid;
    }

    bool cFlag;
    uvec2 cVal;
    runCarry(heads != 0, runTail(v, heads, valid), cFlag, cVal);

    // The second walk: write each run as it ends.
    uvec2 cur = cVal;
    bool started = cFlag;
    uint code = c0;
    [[unroll]] for (uint j = 0; j < 16; j++) {
        if (j < ELEMS && j < valid) {
            if (((heads >> j) & 1u) != 0) {
                cur = v[j];
                started = true;
                code = headCode[e0 + j - ts];
            } else {
                cur = valCombine(cur, v[j]);
            }
            bool ends = j + 1 < valid ? ((heads >> (j + 1)) & 1u) != 0 : lastEnds;
            if (ends) {
                if (!started) {
                    writeRecord(t, REC_P, cur); // the tile's first run, begun before it
                } else if (code >= 1 && code <= pc.segments) {
                    writeValue(code - 1, cur);
                }
            } else if (e0 + j + 1 == te) {
                writeRecord(t, started ? REC_Q : REC_P, cur); // the tile's last run goes on
            }
        }
    }
}
