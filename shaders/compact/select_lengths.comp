#version 450
#extension GL_GOOGLE_include_directive : require
// select_lengths: the last step of a selection's run lengths
// (internal/keepop.RunLengths, package runs' Encode). The selection's pass
// (select_onepass.glsl or select_move.glsl with OUT_INDEX 3) wrote every
// run's length but the last run of each tile or chunk, whose slot holds
// its first index instead, and a record per tile or chunk: its first kept
// slot (the runs before it) and 1 + its first kept index (0 where it
// keeps nothing). Invocation i ends the run before tile or chunk i's
// first run, the last run of an earlier one, at that first index:
// lengths[slot - 1] = first - lengths[slot - 1]; invocation 0 ends the
// last run of all at the elements covered, from the result block. Each
// slot so fixed is the last run of exactly one tile or chunk, fixed once.
// Any subgroup size does: it uses no subgroup operations.
//
// Bindings: 0 the records (2 words each), 1 the lengths, 2 the result
// block (the runs at 0, the elements covered at 2).

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Records { uint records[]; };
layout(std430, binding = 1) buffer Lengths { uint lengths[]; };
layout(std430, binding = 2) readonly buffer Result { uint result[]; };

layout(push_constant) uniform Push {
    uint records; // tiles or chunks
} pc;

void main() {
    uint i = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint runs = result[0];
    if (i == 0 && runs > 0) {
        lengths[runs - 1] = result[2] - lengths[runs - 1];
    }
    if (i < pc.records) {
        uint slot = records[2 * i];
        uint first1 = records[2 * i + 1];
        if (first1 != 0 && slot > 0) {
            lengths[slot - 1] = (first1 - 1) - lengths[slot - 1];
        }
    }
}
