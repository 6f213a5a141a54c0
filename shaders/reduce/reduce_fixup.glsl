// reduce_fixup.glsl: completing the runs that cross tiles, for the fix-up
// kernels of the segmented reduction and the reduction by key. The
// includer declares the tiles[] buffer of tile records
// (reduce_runs.glsl's TILE_WORDS layout), SHORT, and includes
// reduce_ops.glsl.
//
// A run that begins in tile t0 and ends in tile t1 > t0 is Q of t0, then
// P of each tile after it up to t1, combined in that order. Runs over at
// most SHORT tiles are combined by the invocation that owns them; longer
// ones by its whole subgroup (combineLong), each lane a contiguous block
// of tiles, the blocks then in lane order: both orders are fixed by the
// run's tiles alone, so a float sum is the same bits on every run.

const uint FIX_WG = gl_WorkGroupSize.x;

shared uvec2 fixPart[FIX_WG];

uvec2 recValue(uint t, uint word) {
    uint at = t * TILE_WORDS + word;
    return uvec2(tiles[at], WIDE ? tiles[at + 1] : 0u);
}

// combineShort combines the run from tile t0 to t1 serially.
uvec2 combineShort(uint t0, uint t1) {
    uvec2 acc = recValue(t0, REC_Q);
    for (uint t = t0 + 1; t <= t1; t++) {
        acc = valCombine(acc, recValue(t, REC_P));
    }
    return acc;
}

// combineLong combines the run from tile t0 to t1 with the whole
// subgroup, which calls it in uniform control flow; lane 0 gets the
// value.
uvec2 combineLong(uint t0, uint t1) {
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint base = gl_SubgroupID * sg;
    uint m = t1 - t0;
    uint per = (m + sg - 1) / sg;
    uint a = t0 + 1 + min(lane * per, m), b = t0 + 1 + min((lane + 1) * per, m);
    uvec2 acc = valIdentity();
    for (uint t = a; t < b; t++) {
        acc = valCombine(acc, recValue(t, REC_P));
    }
    fixPart[base + lane] = acc;
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    uvec2 r = recValue(t0, REC_Q);
    if (lane == 0) {
        for (uint j = 0; j < sg; j++) {
            r = valCombine(r, fixPart[base + j]);
        }
    }
    subgroupBarrier(); // fixPart is written again by the next call
    return r;
}

// broadcast is lane l's x, in every lane.
uint broadcast(uint x, uint l) {
    return subgroupMax(gl_SubgroupInvocationID == l ? x : 0u);
}
