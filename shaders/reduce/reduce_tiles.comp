#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
// reduce_tiles: a reduction (sum, min, max, argmin, argmax) of n elements.
// Workgroup w reduces the w-th chunk of pc.chunk elements: each invocation
// walks the chunk a step at a time (VECS uvec4 units per invocation per
// step, unit k of a step at k * workgroup size + the invocation's index,
// so each load instruction of a subgroup reads consecutive memory),
// combining its units in turn; then the workgroup combines its
// invocations (reduce_wg.glsl) and writes its partial to scratch.
//
// With LAST_COMBINES (the single pass) each workgroup then counts itself
// done in scratch[0], after a buffer memory barrier that orders its
// partial before the count; the workgroup whose count is the last of all
// the dispatch's (pc.launched: every workgroup of every window's dispatch
// counts, those past the elements too) combines the partials in
// workgroup order, writes the result block and sets scratch[0] back to
// zero, so the next run needs no clear. Without it (two dispatches)
// reduce_combine does that after a barrier. Either way the partials are
// combined in the same order, so both paths give the same bits.
//
// Past one binding the host records one dispatch per window of whole
// chunks (pc.elem0 the window's first element, pc.group0 its first
// workgroup), with a barrier between them.
//
// Bindings: 0 the elements as uvec4, 1 the same as uint, 2 scratch
// (the count of workgroups done, then a 4-word partial per workgroup),
// 3 the result block, 4 the GPU-side element count.

#include "../include/common.glsl"
#include "../include/float_sum.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0;             // OP_* (reduce_ops.glsl)
layout(constant_id = 2) const uint TYPE = 0;           // the elements' KEY_* code
layout(constant_id = 3) const uint VECS = 4;           // uvec4 units per invocation per step
layout(constant_id = 4) const uint MAX_SUBGROUPS = 64; // workgroup size / smallest subgroup size
layout(constant_id = 5) const bool LAST_COMBINES = true;

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) coherent buffer Scratch { uint scratch[]; };
layout(std430, binding = 3) writeonly buffer Result { uint result[]; };
layout(std430, binding = 4) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;        // elements bound (this window's)
    uint total;    // elements in all (the capacity when countOn)
    uint elem0;    // the window's first element
    uint chunk;    // elements per workgroup, a multiple of a step's
    uint group0;   // the window's first workgroup
    uint own;      // the window's workgroups (its grid may hold more)
    uint groups;   // workgroups with a partial, in all windows
    uint launched; // workgroups launched by all the windows' dispatches
    uint countOn;  // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
} pc;

#include "reduce_ops.glsl"
#include "reduce_load.glsl"
#include "reduce_wg.glsl"

shared bool sLast;

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint wg = gl_WorkGroupSize.x;
    uint local = linearWorkgroup();
    uint w = pc.group0 + local;
    uint count = gpuCount[countWord(pc.countOn)];
    uint n = countedElems(pc.n, pc.elem0, pc.countOn, count);
    uvec4 acc = accIdentity();
    uint start = local * pc.chunk;
    if (local < pc.own && start < n) {
        uint len = min(pc.chunk, n - start);
        uint step = wg * VECS * EPV;
        for (uint s = 0; s < len; s += step) {
            uvec4 v[4];
            uint f[4];
            [[unroll]] for (uint k = 0; k < 4; k++) {
                if (k < VECS) {
                    f[k] = s + (k * wg + lid) * EPV;
                    v[k] = loadUnit(start + f[k], len - min(f[k], len));
                }
            }
            [[unroll]] for (uint k = 0; k < 4; k++) {
                if (k < VECS) {
                    acc = accCombine(acc, unitAcc(v[k], pc.elem0 + start + f[k], len - min(f[k], len)));
                }
            }
        }
    }
    acc = reduceWorkgroup(acc);
    if (lid == 0 && local < pc.own) {
        uint at = PARTIALS + 4 * w;
        scratch[at] = acc.x;
        scratch[at + 1] = acc.y;
        scratch[at + 2] = acc.z;
        scratch[at + 3] = acc.w;
    }
    if (!LAST_COMBINES) {
        return;
    }
    if (lid == 0) {
        memoryBarrierBuffer(); // the partial before the count
        sLast = atomicAdd(scratch[0], 1u) + 1 == pc.launched;
    }
    barrier();
    if (sLast) {
        memoryBarrierBuffer(); // every partial counted is visible (coherent)
        uint covered = countedElems(pc.total, 0, pc.countOn, count);
        combinePartials(pc.groups, covered);
        barrier();
        if (lid == 0) {
            scratch[0] = 0;
        }
    }
}
