#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// reduce_bykey_fixup: the second of a reduction by key's two dispatches,
// an invocation per tile. Tile t whose first run began before it (its
// first element no head) and ends in it (it has a head, or it is the last
// tile, or the next tile begins with a head) completes that run: the run
// began in t0, the nearest tile before t with a head, and its value is
// Q of t0 and P of the tiles after it up to t, combined in that order
// (reduce_fixup.glsl), written at the run's index (the runs before t,
// less one). The invocation looks back SHORT tiles for t0 and combines
// the run itself; past that its subgroup does both.
//
// Bindings: 0 the tile records, 1 the values out, 2 the GPU-side element
// count.

#include "../include/common.glsl"
#include "../include/float_sum.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0;   // OP_SUM, OP_MIN or OP_MAX (reduce_ops.glsl)
layout(constant_id = 2) const uint TYPE = 0; // the values' KEY_* code (32-bit)

layout(std430, binding = 0) readonly buffer Tiles { uint tiles[]; };
layout(std430, binding = 1) writeonly buffer ValuesOut { uint valuesOut[]; };
layout(std430, binding = 2) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;       // elements (the capacity when countOn)
    uint tiles;   // tiles of reduce_bykey's dispatch
    uint countOn; // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
    uint tile;    // elements per tile
} pc;

const uint SHORT = 8;

#include "reduce_ops.glsl"
const uint TILE_WORDS = 8;
const uint REC_P = 0, REC_Q = 2, REC_FLAGS = 4, REC_RUNS = 5;
const uint FIRST_HEAD = 1, HAS_HEAD = 2;
#include "reduce_fixup.glsl"

uint flagsOf(uint t) {
    return tiles[t * TILE_WORDS + REC_FLAGS];
}

// findStart returns the nearest tile below t with a head, with the whole
// subgroup (tile 0 has one: its first element is the first of all).
uint findStart(uint t) {
    int base = int(t) - 1;
    while (base >= 0) {
        int cand = base - int(gl_SubgroupInvocationID);
        uvec4 has = subgroupBallot(cand >= 0 && (flagsOf(uint(cand)) & HAS_HEAD) != 0);
        if (has != uvec4(0)) {
            return uint(base) - subgroupBallotFindLSB(has);
        }
        base -= int(gl_SubgroupSize);
    }
    return 0;
}

void main() {
    uint t = linearWorkgroup() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint n = countedElems(pc.n, 0, pc.countOn, gpuCount[countWord(pc.countOn)]);
    uint lastTile = n == 0 ? 0 : (n - 1) / pc.tile;
    bool ends = false, found = false;
    uint t0 = 0, idx = 0;
    if (n > 0 && t <= lastTile && t < pc.tiles) {
        uint f = flagsOf(t);
        if ((f & FIRST_HEAD) == 0) {
            ends = (f & HAS_HEAD) != 0 || t == lastTile || (flagsOf(t + 1) & FIRST_HEAD) != 0;
        }
        if (ends) {
            idx = tiles[t * TILE_WORDS + REC_RUNS] - 1;
            for (uint i = 1; i <= SHORT && i <= t; i++) {
                if ((flagsOf(t - i) & HAS_HEAD) != 0) {
                    t0 = t - i;
                    found = true;
                    break;
                }
            }
        }
    }
    if (ends && found) {
        valuesOut[idx] = combineShort(t0, t).x;
    }
    uvec4 pending = subgroupBallot(ends && !found);
    while (pending != uvec4(0)) {
        uint l = subgroupBallotFindLSB(pending);
        pending[l / 32] &= ~(1u << (l % 32));
        uint lt = broadcast(t, l), lidx = broadcast(idx, l);
        uvec2 v = combineLong(findStart(lt), lt);
        if (gl_SubgroupInvocationID == 0) {
            valuesOut[lidx] = v.x;
        }
    }
}
