#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// scan_apply.glsl: phase 3 of the prefix scan. Each subgroup walks its
// chunk again, step by step, and writes the running sum (for min and max,
// of keys): per uvec4 of four elements, a serial prefix inside the lane,
// then subgroupExclusiveAdd of the lane totals and the running value of
// the chunk so far (which starts at the chunk's scanned sum). The
// destination may be the source (in place): every lane reads its elements
// before it writes them, and no other lane touches them. Kernels:
// scan_apply, sums; scan_apply_minmax and scan_apply_minmax_f32, which
// define SCAN_MINMAX (and SCAN_F32), min and max (OP, scan_ops.glsl).
//
// Bindings: 0 the segment's elements as uvec4, 1 the same as uint,
// 2 sums (scanned: each chunk's starting value), 3 the segment's output
// as uvec4, 4 the same as uint, 5 the GPU-side element count
// (common.glsl: countedElems).

#include "../include/common.glsl"
#include "../include/select.glsl"

layout(local_size_x_id = 0) in;
#ifdef SCAN_MINMAX
layout(constant_id = 8) const uint OP = 1; // OP_MIN or OP_MAX (scan_ops.glsl) of elements of KEY_TYPE
#else
layout(constant_id = 8) const bool FLOAT_SUM = false; // float32 adds; wrapping uint32 otherwise
#endif
layout(constant_id = 9) const bool INCLUSIVE = false;

// Not readonly/writeonly: in place, the source and destination bindings
// alias the same memory.
layout(std430, binding = 0) buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) readonly buffer Sums { uint sums[]; };
layout(std430, binding = 3) buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 4) buffer DstWord { uint dstWord[]; };
layout(std430, binding = 5) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint c0;    // the segment's first chunk
    uint nc;    // chunks in the segment
    uint chunk; // elements per chunk
    uint n;     // elements in the segment
    uint countOn; // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
} pc;

const bool LOAD_DATA = true;
#define LOAD_ONLY
#include "../include/select_load.glsl"
#ifdef SCAN_MINMAX
const uint ELEM_TYPE = KEY_TYPE;
#include "scan_ops.glsl"
#else
#include "../include/float_sum.glsl"
#endif

// scanUnit writes the scan of unit v (elements e .. e+3 of the segment,
// avail of them real) given the running value before it, and returns the
// running value after the subgroup's units at this load slot.
uint scanUnit(uvec4 v, uint e, uint avail, uint run) {
    uvec4 out4;
    uint after;
#ifdef SCAN_MINMAX
    uvec4 k = opKeys(v, avail);
    uint t = opReduce4(k);
    uint at = opCombine(run, opSubgroupExclusive(t));
    [[unroll]] for (uint j = 0; j < 4; j++) {
        uint next = opCombine(at, k[j]);
        out4[j] = opBits(INCLUSIVE ? next : at);
        at = next;
    }
    after = opCombine(run, opSubgroup(t));
#else
    if (FLOAT_SUM) {
        vec4 f = negZeroPad(v, avail);
        float t = (f.x + f.y) + (f.z + f.w);
        float at = uintBitsToFloat(run) + signedExclusiveAdd(t);
        vec4 o;
        [[unroll]] for (uint j = 0; j < 4; j++) {
            float next = at + f[j];
            // The first element's exclusive sum is the sum of nothing:
            // +0.0, not the identity -0.0 the sums start from.
            o[j] = INCLUSIVE ? next : (pc.c0 == 0 && e + j == 0 ? 0.0 : at);
            at = next;
        }
        out4 = floatBitsToUint(o);
        after = floatBitsToUint(uintBitsToFloat(run) + signedAdd(t));
    } else {
        uint t = (v.x + v.y) + (v.z + v.w);
        uint at = run + subgroupExclusiveAdd(t);
        [[unroll]] for (uint j = 0; j < 4; j++) {
            uint next = at + v[j];
            out4[j] = INCLUSIVE ? next : at;
            at = next;
        }
        after = run + subgroupAdd(t);
    }
#endif
    if (avail >= 4) {
        dstVec[e / 4] = out4;
    } else {
        [[unroll]] for (uint j = 0; j < 4; j++) {
            if (j < avail) {
                dstWord[e + j] = out4[j];
            }
        }
    }
    return after;
}

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint stride = gl_NumSubgroups * gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint n = countedElems(pc.n, pc.c0 * pc.chunk, pc.countOn, gpuCount[countWord(pc.countOn)]);
    for (uint ch = linearWorkgroup() * gl_NumSubgroups + gl_SubgroupID; ch < pc.nc; ch += stride) {
        uint start = ch * pc.chunk;
        uint len = start < n ? min(pc.chunk, n - start) : 0;
        uint run = sums[pc.c0 + ch];
        uint step = stepElems();
        for (uint s = 0; s < len; s += step) {
            bool full = len - s >= step;
            uint f0 = s + lane * 4, f1 = f0 + sg * 4, f2 = f1 + sg * 4, f3 = f2 + sg * 4;
            uint a0 = len - min(f0, len), a1 = len - min(f1, len), a2 = len - min(f2, len), a3 = len - min(f3, len);
            uvec4 v0 = loadUnit(start + f0, full || a0 >= 4, a0);
            uvec4 v1 = uvec4(0), v2 = uvec4(0), v3 = uvec4(0);
            if (VECS > 1) {
                v1 = loadUnit(start + f1, full || a1 >= 4, a1);
            }
            if (VECS > 2) {
                v2 = loadUnit(start + f2, full || a2 >= 4, a2);
            }
            if (VECS > 3) {
                v3 = loadUnit(start + f3, full || a3 >= 4, a3);
            }
            run = scanUnit(v0, start + f0, full ? 4 : a0, run);
            if (VECS > 1) {
                run = scanUnit(v1, start + f1, full ? 4 : a1, run);
            }
            if (VECS > 2) {
                run = scanUnit(v2, start + f2, full ? 4 : a2, run);
            }
            if (VECS > 3) {
                run = scanUnit(v3, start + f3, full ? 4 : a3, run);
            }
        }
    }
}
