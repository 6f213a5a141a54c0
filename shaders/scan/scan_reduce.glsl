#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// scan_reduce.glsl: phase 1 of the prefix scan. Each subgroup is a
// processor: it walks its chunk of the segment one step at a time (VECS
// uvec4 loads per lane, issued before any is used), sums the elements (or,
// for min and max, combines their keys), and writes the sum to
// sums[c0 + chunk]. The chunking is the compaction's (select.glsl, with
// STRIDE 1). Kernels: scan_reduce, sums; scan_reduce_minmax and
// scan_reduce_minmax_f32, which define SCAN_MINMAX (and SCAN_F32), min
// and max (OP, scan_ops.glsl).
//
// Bindings: 0 the segment's elements as uvec4, 1 the same as uint,
// 2 sums (one word per chunk), 3 the GPU-side element count
// (common.glsl: countedElems).

#include "../include/common.glsl"
#include "../include/select.glsl"

layout(local_size_x_id = 0) in;
#ifdef SCAN_MINMAX
layout(constant_id = 8) const uint OP = 1; // OP_MIN or OP_MAX (scan_ops.glsl) of elements of KEY_TYPE
#else
layout(constant_id = 8) const bool FLOAT_SUM = false; // float32 adds; wrapping uint32 otherwise
#endif

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) writeonly buffer Sums { uint sums[]; };
layout(std430, binding = 3) readonly buffer GpuCount { uint gpuCount[]; };

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

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint stride = gl_NumSubgroups * gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint n = countedElems(pc.n, pc.c0 * pc.chunk, pc.countOn, gpuCount[countWord(pc.countOn)]);
    for (uint ch = linearWorkgroup() * gl_NumSubgroups + gl_SubgroupID; ch < pc.nc; ch += stride) {
        uint start = ch * pc.chunk;
        uint len = start < n ? min(pc.chunk, n - start) : 0;
#ifdef SCAN_MINMAX
        uint acc = opIdentity();
#else
        uint isum = 0;
        float fsum = uintBitsToFloat(NEG_ZERO); // float_sum.glsl
#endif
        uint step = stepElems();
        for (uint s = 0; s < len; s += step) {
            bool full = len - s >= step;
            uint f0 = s + lane * 4, f1 = f0 + sg * 4, f2 = f1 + sg * 4, f3 = f2 + sg * 4;
            // A unit past the end loads as zeros, which add nothing (as
            // floats: -0.0, negZeroPad; as keys: the identity, opKeys).
            uvec4 v0 = loadUnit(start + f0, full || f0 + 4 <= len, len - min(f0, len));
            uvec4 v1 = uvec4(0), v2 = uvec4(0), v3 = uvec4(0);
            if (VECS > 1) {
                v1 = loadUnit(start + f1, full || f1 + 4 <= len, len - min(f1, len));
            }
            if (VECS > 2) {
                v2 = loadUnit(start + f2, full || f2 + 4 <= len, len - min(f2, len));
            }
            if (VECS > 3) {
                v3 = loadUnit(start + f3, full || f3 + 4 <= len, len - min(f3, len));
            }
#ifdef SCAN_MINMAX
            uint a = opReduce4(opKeys(v0, len - min(f0, len)));
            if (VECS > 1) {
                a = opCombine(a, opReduce4(opKeys(v1, len - min(f1, len))));
            }
            if (VECS > 2) {
                a = opCombine(a, opReduce4(opKeys(v2, len - min(f2, len))));
            }
            if (VECS > 3) {
                a = opCombine(a, opReduce4(opKeys(v3, len - min(f3, len))));
            }
            acc = opCombine(acc, a);
#else
            if (FLOAT_SUM) {
                vec4 a = negZeroPad(v0, len - min(f0, len));
                if (VECS > 1) {
                    a += negZeroPad(v1, len - min(f1, len));
                }
                if (VECS > 2) {
                    a += negZeroPad(v2, len - min(f2, len));
                }
                if (VECS > 3) {
                    a += negZeroPad(v3, len - min(f3, len));
                }
                fsum += (a.x + a.y) + (a.z + a.w);
            } else {
                uvec4 a = v0 + v1 + v2 + v3;
                isum += (a.x + a.y) + (a.z + a.w);
            }
#endif
        }
#ifdef SCAN_MINMAX
        uint total = opSubgroup(acc);
#else
        uint total = FLOAT_SUM ? floatBitsToUint(signedAdd(fsum)) : subgroupAdd(isum);
        if (FLOAT_SUM && pc.countOn != 0 && gpuCount[countWord(pc.countOn)] == 0) {
            // Nothing is counted: the sum of nothing is +0.0, which the
            // total then is (float_sum.glsl).
            total = 0;
        }
#endif
        if (subgroupElect()) {
            sums[pc.c0 + ch] = total;
        }
    }
}
