// reduce_runs.glsl: the reduction of the runs of a tile, for the
// segmented reduction (runs: the segments) and the reduction by key
// (runs: equal consecutive keys). The includer declares OP, TYPE (the
// values' KEY_* code) and VECS, and includes reduce_ops.glsl.
//
// A workgroup holds a tile of TILE = workgroup size * ELEMS consecutive
// elements, ELEMS consecutive ones per invocation (VECS uvec4 units).
// Each element is or is not the head of a run (its first element). The
// runs are reduced in element order and in a fixed tree, so that a float
// sum is the same bits on every run:
//   1. each invocation reduces the run in progress at its end, from its
//      last head on (runTail);
//   2. an exclusive scan of those (head seen, value) pairs over the
//      workgroup (runCarry: Kogge and Stone's, log2(workgroup size) rounds
//      in shared memory) gives each invocation the value of the run in
//      progress at its start, from its head in an earlier invocation or
//      from the tile's start;
//   3. each invocation walks its elements again from that value and
//      writes each run that ends in it (the kernel's own code).
// A run that began before the tile or goes on past it is completed by
// the fix-up kernels (reduce_fixup.glsl) from the tile records: P, the
// part of the tile's first run in the tile where that run began before
// it; Q, the part of its last run where that run began in the tile and
// goes on past it.

const uint WG = gl_WorkGroupSize.x;
const uint ELEMS = VECS * EPV; // elements per invocation
const uint TILE = WG * ELEMS;

// The tile records (TILE_WORDS words a tile, in the tiles[] buffer the
// includer declares when it writes them): P at 0-1, Q at 2-3, the
// reduction by key's flags at 4 and its run count before the tile at 5.
const uint TILE_WORDS = 8;
const uint REC_P = 0, REC_Q = 2, REC_FLAGS = 4, REC_RUNS = 5;
const uint FIRST_HEAD = 1, HAS_HEAD = 2; // REC_FLAGS bits

shared uint ksFlag[2 * WG];
shared uvec2 ksVal[2 * WG];

// runTail reduces the run in progress at the end of the invocation's
// first valid elements of v, whose heads are the bits of heads.
uvec2 runTail(uvec2 v[16], uint heads, uint valid) {
    uvec2 tail = valIdentity();
    [[unroll]] for (uint j = 0; j < 16; j++) {
        if (j < ELEMS && j < valid) {
            tail = ((heads >> j) & 1u) != 0 ? v[j] : valCombine(tail, v[j]);
        }
    }
    return tail;
}

// runCarry is the exclusive segmented scan of the invocations' (flag,
// value) pairs, in invocation order: cFlag says whether an earlier
// invocation holds a head, cVal is the value of the run in progress at
// this invocation's start (from the tile's start where cFlag is false;
// the identity for invocation 0). Every invocation calls it.
void runCarry(bool flag, uvec2 val, out bool cFlag, out uvec2 cVal) {
    uint lid = gl_LocalInvocationID.x;
    uint cur = 0;
    ksFlag[lid] = flag ? 1u : 0u;
    ksVal[lid] = val;
    barrier();
    for (uint d = 1; d < WG; d <<= 1) {
        if (lid >= d && !flag) {
            uint p = cur * WG + lid - d;
            val = valCombine(ksVal[p], val);
            flag = ksFlag[p] != 0;
        }
        cur ^= 1;
        ksFlag[cur * WG + lid] = flag ? 1u : 0u;
        ksVal[cur * WG + lid] = val;
        barrier();
    }
    cFlag = lid > 0 && ksFlag[cur * WG + lid - 1] != 0;
    cVal = lid > 0 ? ksVal[cur * WG + lid - 1] : valIdentity();
    barrier(); // the arrays are written again by the next call
}

// loadElems loads the invocation's valid elements from element e0 into
// v (reduce_load.glsl's srcVec and srcWord).
void loadElems(uint e0, uint valid, out uvec2 v[16]) {
    uvec4 u[4];
    [[unroll]] for (uint k = 0; k < 4; k++) {
        if (k < VECS) {
            u[k] = loadUnit(e0 + k * EPV, valid - min(k * EPV, valid));
        }
    }
    [[unroll]] for (uint j = 0; j < 16; j++) {
        v[j] = uvec2(0);
        if (j < ELEMS) {
            v[j] = elemOf(u[j / EPV], j % EPV);
        }
    }
}
