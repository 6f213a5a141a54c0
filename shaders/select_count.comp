#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// select_count: phase 1 of the compaction. Each subgroup is a processor:
// it walks its chunk of the segment one step at a time (VECS loads per
// lane, issued before any is used), counts the elements to keep, and
// writes the count to counts[c0 + chunk]. For flagged selections only the
// flags are read.
//
// Bindings: 0 the segment's elements as uvec4, 1 the same as uint, 2 the
// segment's flags as uint (bound to something else when unused), 3 counts.

#include "common.glsl"
#include "select.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 3) writeonly buffer Counts { uint counts[]; };

layout(push_constant) uniform Push {
    uint c0;    // the segment's first chunk
    uint nc;    // chunks in the segment
    uint chunk; // elements per chunk
    uint n;     // elements in the segment
    uint cLo;   // the constant's words
    uint cHi;
} pc;

const bool LOAD_DATA = false;
#include "select_load.glsl"

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint stride = gl_NumSubgroups * gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uvec2 c = uvec2(pc.cLo, pc.cHi);
    for (uint ch = linearWorkgroup() * gl_NumSubgroups + gl_SubgroupID; ch < pc.nc; ch += stride) {
        uint start = ch * pc.chunk;
        uint len = min(pc.chunk, pc.n - start);
        uint kept = 0;
        uint step = stepElems();
        for (uint s = 0; s < len; s += step) {
            bool full = len - s >= step;
            uvec4 v[VECS];
            // Issue every load of the step before using any.
            [[unroll]] for (uint k = 0; k < VECS; k++) {
                uint first = s + (k * sg + lane) * EPV; // chunk-relative
                v[k] = loadUnit(start + first, full || first + EPV <= len, len - min(first, len));
            }
            [[unroll]] for (uint k = 0; k < VECS; k++) {
                uint first = s + (k * sg + lane) * EPV;
                [[unroll]] for (uint j = 0; j < EPV; j++) {
                    if ((full || first + j < len) && keepUnit(v[k], j, start + first + j, c)) {
                        kept++;
                    }
                }
            }
        }
        kept = subgroupAdd(kept);
        if (subgroupElect()) {
            counts[pc.c0 + ch] = kept;
        }
    }
}
