#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
// histogram: counts a segment's samples into BINS bins. Each workgroup
// keeps REPLICAS sub-histograms in shared memory (subgroup s adds to
// replica s % REPLICAS, so that subgroups seldom contend for one count),
// walks the segment a tile of VECS uvec4 loads per lane at a time with a
// grid stride (the loads issued before any sample is binned), and at the
// end adds each bin's sum over the replicas, where it is not zero, to
// counts[bin] with one atomic. The host clears counts first (or leaves
// them, to accumulate).
//
// Samples are compared as ordered words (ordered(): u32 as they are, i32
// with the sign bit flipped, f32 mapped so that unsigned order is numeric
// order, -0.0 folded onto +0.0); NaN samples count nowhere.
//
// Even bins (EDGES false) cover [lower, upper); with INCLUDE_UPPER a
// sample equal to upper counts in the last bin. Integer samples take bin
// floor((x - lower) * BINS / (upper - lower)), exactly: an estimate in
// float (scale is about BINS / (upper - lower)) corrected against the
// 64-bit products. f32 samples take CUB's bin, uint((x - lower) * scale)
// in float32 arithmetic with scale = BINS / (upper - lower) rounded to
// float32 by the host, at most BINS - 1.
//
// Bins by edges (EDGES true): BINS + 1 ascending edges; a sample x counts
// in bin i where edges[i] <= x < edges[i + 1] (upper_bound - 1, by binary
// search), and with INCLUDE_UPPER x == edges[BINS] counts in the last bin.
// With SHARED_EDGES the workgroup copies the edges (ordered) to shared
// memory first; otherwise it searches the buffer.
//
// Bindings: 0 the segment's samples as uvec4, 1 the same as uint, 2 the
// edges (bound to any range when EDGES is false), 3 the counts, 4 the
// GPU-side sample count (common.glsl: countedElems).

#include "../include/common.glsl"
#include "../include/key_types.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BINS = 256;
layout(constant_id = 2) const uint REPLICAS = 1;      // sub-histograms per workgroup
layout(constant_id = 3) const uint KEY_TYPE = 0;      // KEY_U32, KEY_I32 or KEY_F32
layout(constant_id = 4) const bool EDGES = false;     // bins by edges, not even
layout(constant_id = 5) const bool SHARED_EDGES = false; // the edges copied to shared memory
layout(constant_id = 6) const bool INCLUDE_UPPER = false; // the upper edge counts in the last bin
layout(constant_id = 7) const uint VECS = 4;          // uvec4 loads per lane per step, 1 to 4

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) readonly buffer Edges { uint edges[]; };
layout(std430, binding = 3) buffer Counts { uint counts[]; };
layout(std430, binding = 4) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;       // samples in the segment (the capacity with a GPU count)
    uint first;   // the segment's first sample in the whole input
    uint countOn; // 0, or 1 + the word of the sample count in gpuCount (common.glsl: countWord)
    uint lower;   // even bins: the lower bound's bits
    uint upper;   // even bins: the upper bound's bits
    float scale;  // even bins: BINS / (upper - lower) as float32
} pc;

shared uint hist[REPLICAS * BINS];
shared uint sharedEdges[SHARED_EDGES ? BINS + 1 : 1];

// ordered maps a sample's bits so that unsigned order is numeric order.
uint ordered(uint x) {
    if (KEY_TYPE == KEY_I32) {
        return x ^ 0x80000000u;
    } else if (KEY_TYPE == KEY_F32) {
        if ((x & 0x7fffffffu) == 0) {
            return 0x80000000u;
        }
        return (x >> 31) != 0 ? ~x : x | 0x80000000u;
    }
    return x;
}

uint edgeAt(uint i) {
    return SHARED_EDGES ? sharedEdges[i] : ordered(edges[i]);
}

// searchStep takes step more edges into the count lo of edges <= x where
// they exist and the last of them is <= x (the edges ascend). The edge
// read is clamped to the last: SwiftShader reads it even where the step
// is too long, and shared memory has no bounds checks.
uint searchStep(uint lo, uint step, uint x) {
    bool fits = step <= BINS + 1 - lo;
    uint e = edgeAt(min(lo + step, BINS + 1) - 1);
    return fits && e <= x ? lo + step : lo;
}

// exactBin is floor(d * BINS / range) for d < range, from a float
// estimate off by at most one (d and scale carry 2^-24 relative errors
// each, the estimate below 4096), corrected with 64-bit products.
uint exactBin(uint d, uint range) {
    uint q = min(uint(float(d) * pc.scale), BINS - 1);
    uint pHi, pLo, tHi, tLo;
    umulExtended(d, BINS, pHi, pLo);
    umulExtended(q, range, tHi, tLo);
    if (tHi > pHi || (tHi == pHi && tLo > pLo)) {
        return q - 1; // q * range > d * BINS
    }
    uint carry;
    uint sLo = uaddCarry(tLo, range, carry);
    uint sHi = tHi + carry;
    if (sHi < pHi || (sHi == pHi && sLo <= pLo)) {
        return q + 1; // (q + 1) * range <= d * BINS
    }
    return q;
}

// binOf finds the bin of a sample's bits; false where it counts in none.
bool binOf(uint bits, out uint bin) {
    bin = 0;
    if (KEY_TYPE == KEY_F32 && (bits & 0x7fffffffu) > 0x7f800000u) {
        return false; // NaN
    }
    uint x = ordered(bits);
    if (EDGES) {
        // upper_bound: lo counts the edges <= x, found in steps of
        // 4096, 2048, ... 1 edges (BINS + 1 <= 4097 edges), written out
        // rather than looped: lavapipe counts a loop's iterations against
        // its limit of 65535 across the loops around it too.
        uint lo = 0;
        lo = searchStep(lo, 4096, x);
        lo = searchStep(lo, 2048, x);
        lo = searchStep(lo, 1024, x);
        lo = searchStep(lo, 512, x);
        lo = searchStep(lo, 256, x);
        lo = searchStep(lo, 128, x);
        lo = searchStep(lo, 64, x);
        lo = searchStep(lo, 32, x);
        lo = searchStep(lo, 16, x);
        lo = searchStep(lo, 8, x);
        lo = searchStep(lo, 4, x);
        lo = searchStep(lo, 2, x);
        lo = searchStep(lo, 1, x);
        if (lo == 0) {
            return false;
        }
        if (lo > BINS) {
            bin = BINS - 1;
            return INCLUDE_UPPER && x == edgeAt(BINS);
        }
        bin = lo - 1;
        return true;
    }
    uint lower = ordered(pc.lower), upper = ordered(pc.upper);
    if (x < lower || x > upper) {
        return false;
    }
    if (x == upper) {
        bin = BINS - 1;
        return INCLUDE_UPPER;
    }
    if (KEY_TYPE == KEY_F32) {
        precise float d = uintBitsToFloat(bits) - uintBitsToFloat(pc.lower);
        precise float f = d * pc.scale;
        bin = min(uint(f), BINS - 1);
    } else {
        bin = exactBin(x - lower, upper - lower);
    }
    return true;
}

void addSample(uint bits, uint base) {
    uint bin;
    if (binOf(bits, bin)) {
        atomicAdd(hist[base + bin], 1);
    }
}

void addUnit(uvec4 v, uint base) {
    addSample(v.x, base);
    addSample(v.y, base);
    addSample(v.z, base);
    addSample(v.w, base);
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    for (uint i = lid; i < REPLICAS * BINS; i += wg) {
        hist[i] = 0;
    }
    if (SHARED_EDGES) {
        for (uint i = lid; i <= BINS; i += wg) {
            sharedEdges[i] = ordered(edges[i]);
        }
    }
    barrier();

    uint n = countedElems(pc.n, pc.first, pc.countOn, gpuCount[countWord(pc.countOn)]);
    uint units = n / 4;
    uint base = (gl_SubgroupID % REPLICAS) * BINS;
    uint tile = wg * VECS;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    for (uint t = linearWorkgroup() * tile; t < units; t += groups * tile) {
        uint u0 = t + lid, u1 = u0 + wg, u2 = u1 + wg, u3 = u2 + wg;
        uvec4 v0 = uvec4(0), v1 = uvec4(0), v2 = uvec4(0), v3 = uvec4(0);
        bool full = t + tile <= units;
        if (full || u0 < units) {
            v0 = srcVec[u0];
        }
        if (VECS > 1 && (full || u1 < units)) {
            v1 = srcVec[u1];
        }
        if (VECS > 2 && (full || u2 < units)) {
            v2 = srcVec[u2];
        }
        if (VECS > 3 && (full || u3 < units)) {
            v3 = srcVec[u3];
        }
        if (full || u0 < units) {
            addUnit(v0, base);
        }
        if (VECS > 1 && (full || u1 < units)) {
            addUnit(v1, base);
        }
        if (VECS > 2 && (full || u2 < units)) {
            addUnit(v2, base);
        }
        if (VECS > 3 && (full || u3 < units)) {
            addUnit(v3, base);
        }
    }
    // The last n % 4 samples, which no uvec4 holds whole.
    if (linearWorkgroup() == 0 && lid < n % 4) {
        addSample(srcWord[4 * units + lid], base);
    }
    barrier();

    for (uint b = lid; b < BINS; b += wg) {
        uint sum = 0;
        for (uint r = 0; r < REPLICAS; r++) {
            sum += hist[r * BINS + b];
        }
        if (sum != 0) {
            atomicAdd(counts[b], sum);
        }
    }
}
