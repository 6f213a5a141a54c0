#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// permute: a gather (dst[i] = src[idx[i]]) or, with SCATTER, a scatter
// (dst[idx[i]] = src[i]) of elements of WORDS 32-bit words, over the n
// positions i of a segment (the indices, and the side read or written in
// order). The other side, the indexed one, is bound whole: pc.bound
// elements. An index at or past pc.bound is skipped (its element neither
// read nor written) and, with a status word, atomicMin records the first
// such position there.
//
// The positions are cut into units, UNITS per lane a workgroup apart,
// all loads of a lane issued before its stores:
//  - elements of 1 or 2 words (PACKED): a unit is 4 positions, their
//    indices one uvec4 and the in-order side one or two uvec4s; the last
//    n % 4 positions go word by word;
//  - larger elements: a unit is VW words (4, 2 or 1: the widest that
//    divides WORDS) of one element, PER units to an element, so that the
//    in-order side moves in whole uvec4s (uvec2s, words) in order and the
//    indexed side in whole vectors of one element.
//
// Bindings: 0-1 the segment's indices as uvec4 and uint; 2-4 the source
// as uvec4, uvec2 and uint; 5-7 the destination likewise; 8 the status
// word (bound to any range without one); 9 the GPU-side position count
// (common.glsl: countedElems).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint WORDS = 1;       // words per element, 1 to 64
layout(constant_id = 2) const bool SCATTER = false; // dst[idx[i]] = src[i]; else a gather
layout(constant_id = 3) const uint UNITS = 1;       // units per lane, 1 to 4

const bool PACKED = WORDS <= 2;
const uint VW = WORDS % 4 == 0 ? 4 : (WORDS % 2 == 0 ? 2 : 1); // words per unit of a larger element
const uint PER = WORDS / VW;                                     // units per larger element

layout(std430, binding = 0) readonly buffer IdxVec { uvec4 idxVec[]; };
layout(std430, binding = 1) readonly buffer IdxWord { uint idxWord[]; };
layout(std430, binding = 2) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 3) readonly buffer SrcPair { uvec2 srcPair[]; };
layout(std430, binding = 4) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 5) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 6) writeonly buffer DstPair { uvec2 dstPair[]; };
layout(std430, binding = 7) writeonly buffer DstWord { uint dstWord[]; };
layout(std430, binding = 8) buffer Status { uint status[]; };
layout(std430, binding = 9) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;        // positions in the segment (the capacity with a GPU count)
    uint first;    // the segment's first position in the whole input
    uint countOn;  // 0, or 1 + the word of the position count in gpuCount (common.glsl: countWord)
    uint bound;    // elements of the indexed side
    uint statusOn; // 0, or 1 + the status word's index in status
} pc;

// flag records position i (in the segment) as holding a bad index.
void flag(uint i) {
    if (pc.statusOn != 0) {
        atomicMin(status[pc.statusOn - 1], pc.first + i);
    }
}

// moveOne moves the element of position i, whose index is idx, word by
// word (the last positions of a packed segment).
void moveOne(uint i, uint idx) {
    if (idx >= pc.bound) {
        flag(i);
        return;
    }
    uint from = SCATTER ? i : idx, to = SCATTER ? idx : i;
    if (WORDS == 2) {
        dstPair[to] = srcPair[from];
    } else {
        dstWord[to] = srcWord[from];
    }
}

// packed moves unit u of a packed segment: positions 4u to 4u+3.
void packed(uint u) {
    uvec4 idx = idxVec[u];
    bvec4 ok = lessThan(idx, uvec4(pc.bound));
    uint i = 4 * u;
    if (SCATTER) {
        uvec4 a = srcVec[WORDS * u];
        uvec4 b = WORDS == 2 ? srcVec[2 * u + 1] : uvec4(0);
        [[unroll]] for (uint k = 0; k < 4; k++) {
            if (!ok[k]) {
                flag(i + k);
            } else if (WORDS == 2) {
                dstPair[idx[k]] = k < 2 ? (k == 0 ? a.xy : a.zw) : (k == 2 ? b.xy : b.zw);
            } else {
                dstWord[idx[k]] = a[k];
            }
        }
        return;
    }
    uvec2 v[4];
    [[unroll]] for (uint k = 0; k < 4; k++) {
        v[k] = uvec2(0);
        if (ok[k]) {
            v[k] = WORDS == 2 ? srcPair[idx[k]] : uvec2(srcWord[idx[k]], 0);
        }
    }
    if (all(ok)) {
        if (WORDS == 2) {
            dstVec[2 * u] = uvec4(v[0], v[1]);
            dstVec[2 * u + 1] = uvec4(v[2], v[3]);
        } else {
            dstVec[u] = uvec4(v[0].x, v[1].x, v[2].x, v[3].x);
        }
        return;
    }
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (!ok[k]) {
            flag(i + k);
        } else if (WORDS == 2) {
            dstPair[i + k] = v[k];
        } else {
            dstWord[i + k] = v[k].x;
        }
    }
}

// load reads unit w (VW words) of the source.
uvec4 load(uint w) {
    if (VW == 4) {
        return srcVec[w];
    } else if (VW == 2) {
        return uvec4(srcPair[w], 0, 0);
    }
    return uvec4(srcWord[w], 0, 0, 0);
}

// store writes unit w (VW words) of the destination.
void store(uint w, uvec4 v) {
    if (VW == 4) {
        dstVec[w] = v;
    } else if (VW == 2) {
        dstPair[w] = v.xy;
    } else {
        dstWord[w] = v.x;
    }
}

void main() {
    uint n = countedElems(pc.n, pc.first, pc.countOn, gpuCount[countWord(pc.countOn)]);
    uint wg = gl_WorkGroupSize.x;
    uint base = linearWorkgroup() * wg * UNITS + gl_LocalInvocationID.x;
    if (PACKED) {
        uint units = n / 4;
        [[unroll]] for (uint k = 0; k < UNITS; k++) {
            uint u = base + k * wg;
            if (u < units) {
                packed(u);
            } else if (u == units) {
                for (uint i = 4 * units; i < n; i++) {
                    moveOne(i, idxWord[i]);
                }
            }
        }
        return;
    }
    // Larger elements: unit u is vector u % PER of position u / PER.
    uint units = n * PER;
    uvec4 v[UNITS];
    uint to[UNITS];
    [[unroll]] for (uint k = 0; k < UNITS; k++) {
        uint u = base + k * wg;
        to[k] = 0xffffffffu;
        if (u < units) {
            uint i = u / PER, part = u % PER;
            uint idx = idxWord[i];
            if (idx >= pc.bound) {
                if (part == 0) {
                    flag(i);
                }
                continue;
            }
            v[k] = load(SCATTER ? u : idx * PER + part);
            to[k] = SCATTER ? idx * PER + part : u;
        }
    }
    [[unroll]] for (uint k = 0; k < UNITS; k++) {
        if (to[k] != 0xffffffffu) {
            store(to[k], v[k]);
        }
    }
}
