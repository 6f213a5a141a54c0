// reduce_wg.glsl: what reduce_tiles and reduce_combine share: the
// workgroup's reduction of its invocations' accumulators, the combination
// of the workgroups' partials and the result block.
//
// The includer declares MAX_SUBGROUPS (the workgroup size over the
// smallest subgroup size), the buffer arrays scratch[] (the partials: 4
// words each from word PARTIALS) and result[] (reduce.ResultSize bytes),
// and includes reduce_ops.glsl.
//
// Every combination here is in a fixed order (each invocation's elements
// in turn, then the subgroups' results in subgroup order, then the
// partials in workgroup order), so a float sum is the same bits on every
// run on one device, whatever order the workgroups run in.

const uint PARTIALS = 4; // scratch word 0: the workgroups done; 1-3 unused

shared uvec4 sAcc[MAX_SUBGROUPS];

// reduceWorkgroup combines every invocation's accumulator a, each
// subgroup's in turn; it returns the result in subgroup 0 (other
// subgroups get their own). Every invocation calls it.
uvec4 reduceWorkgroup(uvec4 a) {
    uvec4 r = accSubgroup(a);
    if (subgroupElect()) {
        sAcc[gl_SubgroupID] = r;
    }
    barrier();
    if (gl_SubgroupID == 0) {
        r = accIdentity();
        for (uint base = 0; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            uint i = base + gl_SubgroupInvocationID;
            r = accCombine(r, accSubgroup(i < gl_NumSubgroups ? sAcc[i] : accIdentity()));
        }
    }
    barrier(); // sAcc is written again by the next call
    return r;
}

uvec4 partialAt(uint w) {
    uint at = PARTIALS + 4 * w;
    return uvec4(scratch[at], scratch[at + 1], scratch[at + 2], scratch[at + 3]);
}

// combinePartials combines partials 0 .. groups-1 and writes the result
// block for covered elements: the value (two words), the index (the arg
// ops'; NO_INDEX for none and for the other ops) and the count.
void combinePartials(uint groups, uint covered) {
    uvec4 acc = accIdentity();
    for (uint w = gl_LocalInvocationID.x; w < groups; w += gl_WorkGroupSize.x) {
        acc = accCombine(acc, partialAt(w));
    }
    acc = reduceWorkgroup(acc);
    if (gl_LocalInvocationID.x == 0) {
        uvec2 v = covered == 0 ? emptyValue() : accValue(acc);
        result[0] = v.x;
        result[1] = v.y;
        result[2] = OP >= OP_ARGMIN && covered != 0 ? acc.z : NO_INDEX;
        result[3] = covered;
    }
}
