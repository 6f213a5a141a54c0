// Signed zeros in float32 sums. IEEE 754 makes a sum of nothing but -0.0
// -0.0 (NumPy's cumsum keeps it: [-0.0, 1.0] gives [-0.0, 1.0]) and any
// other sum that comes to zero +0.0. The prefix sum therefore starts every
// float sum from -0.0, the additive identity (x + -0.0 == x for every x),
// and pads with it; but a subgroup sum may start from +0.0 (which zero is
// the identity of the subgroup operations is left to the driver), so each
// one is corrected here: it is -0.0 exactly when every term is, which a
// ballot tells. The result differs from the uncorrected one only where
// every term is -0.0. The includer enables GL_KHR_shader_subgroup_ballot
// and GL_KHR_shader_subgroup_arithmetic, and calls these in uniform
// control flow with every lane of the subgroup active.

const uint NEG_ZERO = 0x80000000u; // -0.0 as float bits

// notNegZero is the ballot of the lanes whose term is not -0.0.
uvec4 notNegZero(float v) {
    return subgroupBallot(floatBitsToUint(v) != NEG_ZERO);
}

float signedInclusiveAdd(float v) {
    float s = subgroupInclusiveAdd(v);
    return subgroupBallotInclusiveBitCount(notNegZero(v)) == 0 ? uintBitsToFloat(NEG_ZERO) : s;
}

// signedExclusiveAdd is -0.0 in lane 0, as in every lane whose
// predecessors' terms are all -0.0.
float signedExclusiveAdd(float v) {
    float s = subgroupExclusiveAdd(v);
    return subgroupBallotExclusiveBitCount(notNegZero(v)) == 0 ? uintBitsToFloat(NEG_ZERO) : s;
}

float signedAdd(float v) {
    float s = subgroupAdd(v);
    return subgroupBallotBitCount(notNegZero(v)) == 0 ? uintBitsToFloat(NEG_ZERO) : s;
}

// negZeroPad gives the elements of unit v as floats, its elements from
// avail on (past the end of the data) -0.0, which add nothing.
vec4 negZeroPad(uvec4 v, uint avail) {
    vec4 f = uintBitsToFloat(v);
    [[unroll]] for (uint j = 0; j < 4; j++) {
        if (j >= avail) {
            f[j] = uintBitsToFloat(NEG_ZERO);
        }
    }
    return f;
}
