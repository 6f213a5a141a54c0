// reduce_load.glsl: loading a reduction's elements as uvec4 units (EPV
// elements each: four 32-bit or two 64-bit ones). The includer declares
// srcVec[] and srcWord[] over the same range and includes reduce_ops.glsl.

// loadUnit loads the unit whose first element is e; only its first avail
// elements are read where it is not whole (the others are zero).
uvec4 loadUnit(uint e, uint avail) {
    if (avail >= EPV) {
        return srcVec[e / EPV];
    }
    uvec4 v = uvec4(0);
    uint words = WIDE ? 2 * avail : avail;
    uint w0 = WIDE ? 2 * e : e;
    [[unroll]] for (uint w = 0; w < 4; w++) {
        if (w < words) {
            v[w] = srcWord[w0 + w];
        }
    }
    return v;
}

// elemOf is element j of unit v.
uvec2 elemOf(uvec4 v, uint j) {
    return WIDE ? uvec2(v[2 * j], v[2 * j + 1]) : uvec2(v[j], 0);
}

// unitAcc combines the unit's first avail elements (index i0 the first),
// the others taken as the identity, in a fixed tree: (e0 + e1) + (e2 + e3).
uvec4 unitAcc(uvec4 v, uint i0, uint avail) {
    uvec4 a[4];
    [[unroll]] for (uint j = 0; j < 4; j++) {
        if (j < EPV) {
            a[j] = j < avail ? accLift(elemOf(v, j), i0 + j) : accIdentity();
        }
    }
    if (EPV == 2) {
        return accCombine(a[0], a[1]);
    }
    return accCombine(accCombine(a[0], a[1]), accCombine(a[2], a[3]));
}
