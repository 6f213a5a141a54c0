#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// reduce_segments_fixup: the second of a segmented reduction's two
// dispatches, an invocation per segment. An empty segment (its end at or
// below its start, the offsets clamped to n) gets the empty value: 0
// (+0.0) for sums, the identity of min and max. A segment within one tile
// was written by reduce_segments; one that crosses tiles t0 to t1 is
// combined from the tile records (reduce_fixup.glsl), by its invocation
// up to SHORT tiles, by its subgroup past that.
//
// Bindings: 0 the offsets (segments + 1 words), 1 the tile records,
// 2 dst (a value per segment).

#include "../include/common.glsl"
#include "../include/float_sum.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0;   // OP_SUM, OP_MIN or OP_MAX (reduce_ops.glsl)
layout(constant_id = 2) const uint TYPE = 0; // the elements' KEY_* code
layout(constant_id = 3) const uint VECS = 4; // reduce_segments' units per invocation (its tile)

layout(std430, binding = 0) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 1) readonly buffer Tiles { uint tiles[]; };
layout(std430, binding = 2) writeonly buffer Dst { uint dst[]; };

layout(push_constant) uniform Push {
    uint n;        // elements
    uint segments; // offsets holds segments + 1 words
    uint tile;     // elements per tile
} pc;

const uint SHORT = 8;

#include "reduce_ops.glsl"
const uint TILE_WORDS = 8;
const uint REC_P = 0, REC_Q = 2;
#include "reduce_fixup.glsl"

uint bound(uint k) {
    return min(offsets[k], pc.n);
}

void writeValue(uint i, uvec2 v) {
    if (WIDE) {
        dst[2 * i] = v.x;
        dst[2 * i + 1] = v.y;
    } else {
        dst[i] = v.x;
    }
}

void main() {
    uint s = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    bool crosses = false;
    uint t0 = 0, t1 = 0;
    if (s < pc.segments) {
        uint b0 = bound(s), b1 = bound(s + 1);
        if (b1 <= b0) {
            writeValue(s, emptyValue());
        } else {
            t0 = b0 / pc.tile;
            t1 = (b1 - 1) / pc.tile;
            crosses = t1 > t0;
        }
    }
    if (crosses && t1 - t0 <= SHORT) {
        writeValue(s, combineShort(t0, t1));
    }
    uvec4 pending = subgroupBallot(crosses && t1 - t0 > SHORT);
    while (pending != uvec4(0)) {
        uint l = subgroupBallotFindLSB(pending);
        pending[l / 32] &= ~(1u << (l % 32));
        uint ls = broadcast(s, l);
        uvec2 v = combineLong(broadcast(t0, l), broadcast(t1, l));
        if (gl_SubgroupInvocationID == 0) {
            writeValue(ls, v);
        }
    }
}
