// Shared declarations of the lane-serial radix sort (radix_lanes_count,
// radix_lanes_scatter), the sort a CPU driver runs fastest: lavapipe and
// SwiftShader run a workgroup on one thread, its subgroup's lanes as the
// lanes of one SIMD register. There the three phases' shared-memory
// ranking, barriers and stage cost more than the keys' own loads and
// stores. Here every invocation (a lane) owns a contiguous run of
// laneKeys keys and walks it alone, as a CPU's radix sort does per
// thread: the count phase counts the run's digits in the lane's own
// column of shared counters, and the scatter writes each key to its
// digit's next slot, counting up. No lane waits for another inside the
// walk, no ballot ranks a key: a lane's keys keep their order, the lanes
// their order, so the sort is stable.
//
// hist holds each lane's counts digit-major, hist[d * nLanes + g] for
// the lane g = workgroup * WG + invocation, then each workgroup's,
// hist[nLanes * BUCKETS + d * nProcs + p]. The exclusive scan of the
// lanes' counts in that order is every (digit, lane)'s first output
// slot: each scatter workgroup computes its own lanes' part of it from
// the workgroups' counts of every digit (nProcs words) and its lanes'
// (WG words).

#include "../include/common.glsl"
#include "radix.glsl"

layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
    uint n;        // keys
    uint laneKeys; // keys per lane
    uint nLanes;   // lanes in all: nProcs * WG
    uint nProcs;   // workgroups
    uint shift;    // the digit's first bit
    uint width;    // the digit's bits
    uint countOn;  // 1 + the word of gpuCount that holds the key count; 0: no count
} pc;

const uint WG = gl_WorkGroupSize.x;

// counters[d * WG + l]: lane l's count of digit d, or its next slot.
shared uint counters[BUCKETS * WG];

// laneRun returns the keys [first, end) that this invocation's lane
// walks, clamped to the key count (count, when counted on the GPU).
uvec2 laneRun(uint count) {
    uint g = linearWorkgroup() * WG + gl_LocalInvocationID.x;
    uint total = countedElems(pc.n, 0, pc.countOn, count);
    uint first = min(g * pc.laneKeys, total); // no overflow: nLanes * laneKeys < 2^32 + laneKeys, checked by the plan
    return uvec2(first, min(first + pc.laneKeys, total));
}



