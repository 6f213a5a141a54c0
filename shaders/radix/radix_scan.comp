#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// radix_scan: the second phase of a radix sort pass. Workgroup d scans
// digit d's row of per-processor counts (block_scan.glsl), exclusively,
// and writes the row's total to hist[BUCKETS * nProcs + d]. The scatter
// adds the exclusive scan of those totals (the digit's first slot).
//
// Bindings: 0 hist (BUCKETS * (nProcs + 1) words).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BUCKETS = 256;

layout(std430, binding = 0) buffer Hist { uint hist[]; };

layout(push_constant) uniform Push {
    uint nProcs;
} pc;

#define SCAN_DATA hist
const bool SCAN_FLOAT = false;
#include "../include/block_scan.glsl"

void main() {
    uint d = linearWorkgroup();
    if (d >= BUCKETS) {
        return;
    }
    uint total = scanExclusive(d * pc.nProcs, pc.nProcs);
    if (gl_LocalInvocationID.x == 0) {
        hist[BUCKETS * pc.nProcs + d] = total;
    }
}
