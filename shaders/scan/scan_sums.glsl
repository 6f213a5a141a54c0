#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// scan_sums.glsl: phase 2 of the prefix scan, one workgroup. An
// exclusive prefix sum (block_scan.glsl) turns the per-chunk sums into
// each chunk's starting value, and the total is written to
// sums[nChunks] and to the caller's total. Kernels: scan_sums, sums;
// scan_sums_minmax and scan_sums_minmax_f32, which define SCAN_MINMAX
// (and SCAN_F32), min and max of keys (OP, scan_ops.glsl), the total
// the elements' bits.
//
// Bindings: 0 sums (nChunks + 1 words), 1 the total (one word).

layout(local_size_x_id = 0) in;
#ifdef SCAN_MINMAX
layout(constant_id = 1) const uint OP = 1;        // OP_MIN or OP_MAX (scan_ops.glsl)
layout(constant_id = 2) const uint ELEM_TYPE = 0; // the elements' KEY_* code (read by integer min and max alone)
#else
layout(constant_id = 1) const bool FLOAT_SUM = false; // float32 adds; wrapping uint32 otherwise
#endif

layout(std430, binding = 0) buffer Sums { uint sums[]; };
layout(std430, binding = 1) writeonly buffer Total { uint total[]; };

layout(push_constant) uniform Push {
    uint nChunks;
} pc;

#define SCAN_DATA sums
#ifdef SCAN_MINMAX
#include "../include/key_types.glsl"
#include "scan_ops.glsl"
#define SCAN_OPS
#else
const bool SCAN_FLOAT = FLOAT_SUM;
#define FLOAT_SUMS
#include "../include/float_sum.glsl"
#endif
#include "../include/block_scan.glsl"

void main() {
    uint t = scanExclusive(0, pc.nChunks);
#ifndef SCAN_MINMAX
    if (FLOAT_SUM && pc.nChunks == 0) {
        t = 0; // the sum of nothing is +0.0 (float_sum.glsl)
    }
#endif
    if (gl_LocalInvocationID.x == 0) {
        sums[pc.nChunks] = t;
#ifdef SCAN_MINMAX
        total[0] = opBits(t);
#else
        total[0] = t;
#endif
    }
}
