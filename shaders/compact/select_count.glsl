// select_count.glsl: the body of select_count.comp and select_count_runs.comp (the
// neighbour predicates, NEIGHBOUR_PREDS), which include it.
// select_count: phase 1 of the compaction. Each subgroup is a processor:
// it walks its chunk of the segment one step at a time (VECS loads per
// lane, issued before any is used), counts the elements to keep, and
// writes the count to counts[c0 + chunk]. For flagged selections only the
// flags are read.
//
// Bindings: 0 the segment's elements as uvec4, 1 the same as uint, 2 the
// segment's flags as uint (bound to something else when unused), 3 counts,
// 4 the GPU-side element count (common.glsl: countedElems).

#include "../include/common.glsl"
#include "../include/select.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 3) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 4) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint c0;    // the segment's first chunk
    uint nc;    // chunks in the segment
    uint chunk; // elements per chunk
    uint n;     // elements in the segment
    uint cLo;   // the constant's words
    uint cHi;
    uint countOn; // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
} pc;

const bool LOAD_DATA = false;
#include "../include/select_load.glsl"

// countUnit counts the kept elements of unit v, whose first element is at
// position first of the chunk starting at start (len elements).
uint countUnit(uvec4 v, uint start, uint first, uint len, bool full, uvec2 c) {
    uint kept = 0;
    [[unroll]] for (uint j = 0; j < 4; j++) {
        if (j < EPV && (full || first + j < len) && keepUnit(v, j, start + first + j, c)) {
            kept++;
        }
    }
    return kept;
}

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint stride = gl_NumSubgroups * gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uvec2 c = uvec2(pc.cLo, pc.cHi);
    uint n = countedElems(pc.n, pc.c0 * pc.chunk, pc.countOn, gpuCount[countWord(pc.countOn)]);
#ifdef NEIGHBOUR_PREDS
    selN = n; // the neighbour predicates' bound
#endif
    for (uint ch = linearWorkgroup() * gl_NumSubgroups + gl_SubgroupID; ch < pc.nc; ch += stride) {
        uint start = ch * pc.chunk;
        uint len = start < n ? min(pc.chunk, n - start) : 0;
        uint kept = 0;
        uint step = stepElems();
        for (uint s = 0; s < len; s += step) {
            bool full = len - s >= step;
            // Every load of the step is issued before any is used; each
            // stays in its own variable (no array a compiler might spill).
            uint f0 = s + lane * EPV, f1 = f0 + sg * EPV, f2 = f1 + sg * EPV, f3 = f2 + sg * EPV;
            uvec4 v0 = loadUnit(start + f0, full || f0 + EPV <= len, len - min(f0, len));
            uvec4 v1 = uvec4(0), v2 = uvec4(0), v3 = uvec4(0);
            if (VECS > 1) {
                v1 = loadUnit(start + f1, full || f1 + EPV <= len, len - min(f1, len));
            }
            if (VECS > 2) {
                v2 = loadUnit(start + f2, full || f2 + EPV <= len, len - min(f2, len));
            }
            if (VECS > 3) {
                v3 = loadUnit(start + f3, full || f3 + EPV <= len, len - min(f3, len));
            }
            kept += countUnit(v0, start, f0, len, full, c);
            if (VECS > 1) {
                kept += countUnit(v1, start, f1, len, full, c);
            }
            if (VECS > 2) {
                kept += countUnit(v2, start, f2, len, full, c);
            }
            if (VECS > 3) {
                kept += countUnit(v3, start, f3, len, full, c);
            }
        }
        kept = subgroupAdd(kept);
        if (subgroupElect()) {
            counts[pc.c0 + ch] = kept;
        }
    }
}
