#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// reduce_combine: the second of a reduction's two dispatches, one
// workgroup. It combines the partials reduce_tiles left in scratch, in
// workgroup order, and writes the result block (reduce_wg.glsl), as the
// last workgroup of the single pass does.
//
// Bindings: 0 scratch (partials from word 4), 1 the result block, 2 the
// GPU-side element count.

#include "../include/common.glsl"
#include "../include/float_sum.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0;             // OP_* (reduce_ops.glsl)
layout(constant_id = 2) const uint TYPE = 0;           // the elements' KEY_* code
layout(constant_id = 3) const uint MAX_SUBGROUPS = 64; // workgroup size / smallest subgroup size

layout(std430, binding = 0) readonly buffer Scratch { uint scratch[]; };
layout(std430, binding = 1) writeonly buffer Result { uint result[]; };
layout(std430, binding = 2) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint total;   // elements in all (the capacity when countOn)
    uint groups;  // partials
    uint countOn; // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
} pc;

#include "reduce_ops.glsl"
#include "reduce_wg.glsl"

void main() {
    combinePartials(pc.groups, countedElems(pc.total, 0, pc.countOn, gpuCount[countWord(pc.countOn)]));
}
