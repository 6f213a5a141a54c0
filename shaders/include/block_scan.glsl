// A workgroup-wide exclusive prefix sum over a range of a uint buffer, in
// place: select_scan scans the compaction's chunk counts with it,
// scan_sums the prefix sum's chunk sums, radix_scan one digit's row of
// per-processor counts.
//
// The includer defines SCAN_DATA, the buffer array to scan, and
// SCAN_FLOAT, a constant bool: true adds the words as float32 bits,
// false as wrapping uint32 (which is also two's complement int32). A float
// scan also defines FLOAT_SUMS and includes float_sum.glsl: its sums then
// start from -0.0 and keep the sign of zero as IEEE 754 does. An includer
// that defines SCAN_OPS (scan_sums_minmax) includes
// shaders/scan/scan_ops.glsl with SCAN_MINMAX first: the words are then
// keys combined by its op (min or max) from its identity, and SCAN_FLOAT
// and FLOAT_SUMS are not used.
//
// The range is taken in tiles of four values per invocation: a serial sum
// per invocation, subgroup scans, then the first subgroup scans the
// subgroup totals and carries the running total to the next tile, so any
// length works. Needs full subgroups and at most 256 subgroups.

shared uint scanSums[256]; // one per subgroup
shared uint scanCarry;

#ifdef SCAN_OPS
const uint SCAN_ZERO = OP_LEAST ? 0xffffffffu : 0u; // opIdentity()
#else
#ifdef FLOAT_SUMS
const uint SCAN_ZERO = SCAN_FLOAT ? NEG_ZERO : 0;
#define scanInclusiveF signedInclusiveAdd
#define scanExclusiveF signedExclusiveAdd
#define scanSumF signedAdd
#else
const uint SCAN_ZERO = 0;
#define scanInclusiveF subgroupInclusiveAdd
#define scanExclusiveF subgroupExclusiveAdd
#define scanSumF subgroupAdd
#endif
#endif

uint scanAdd(uint a, uint b) {
#ifdef SCAN_OPS
    return opCombine(a, b);
#else
    if (SCAN_FLOAT) {
        return floatBitsToUint(uintBitsToFloat(a) + uintBitsToFloat(b));
    }
    return a + b;
#endif
}

uint scanSubgroupInclusive(uint v) {
#ifdef SCAN_OPS
    return opSubgroupInclusive(v);
#else
    if (SCAN_FLOAT) {
        return floatBitsToUint(scanInclusiveF(uintBitsToFloat(v)));
    }
    return subgroupInclusiveAdd(v);
#endif
}

uint scanSubgroupExclusive(uint v) {
#ifdef SCAN_OPS
    return opSubgroupExclusive(v);
#else
    if (SCAN_FLOAT) {
        return floatBitsToUint(scanExclusiveF(uintBitsToFloat(v)));
    }
    return subgroupExclusiveAdd(v);
#endif
}

uint scanSubgroupSum(uint v) {
#ifdef SCAN_OPS
    return opSubgroup(v);
#else
    if (SCAN_FLOAT) {
        return floatBitsToUint(scanSumF(uintBitsToFloat(v)));
    }
    return subgroupAdd(v);
#endif
}

// scanExclusive replaces SCAN_DATA[first .. first+count) by its exclusive
// prefix sum and returns the total, in every invocation. All invocations
// of the workgroup must call it.
uint scanExclusive(uint first, uint count) {
    uint lid = gl_LocalInvocationID.x;
    uint lane = gl_SubgroupInvocationID;
    if (lid == 0) {
        scanCarry = SCAN_ZERO;
    }
    barrier();
    for (uint base = 0; base < count; base += 4 * gl_WorkGroupSize.x) {
        uint i0 = base + 4 * lid;
        uvec4 c = uvec4(SCAN_ZERO);
        [[unroll]] for (uint j = 0; j < 4; j++) {
            if (i0 + j < count) {
                c[j] = SCAN_DATA[first + i0 + j];
            }
        }
        uint mine = scanAdd(scanAdd(c.x, c.y), scanAdd(c.z, c.w));
        uint incl = scanSubgroupInclusive(mine);
        uint excl = scanSubgroupExclusive(mine);
        if (lane == gl_SubgroupSize - 1) {
            scanSums[gl_SubgroupID] = incl;
        }
        barrier();
        if (gl_SubgroupID == 0) {
            // The first subgroup scans the subgroup totals, a subgroup at
            // a time, starting from the carry of the tiles before.
            uint run = scanCarry;
            for (uint s0 = 0; s0 < gl_NumSubgroups; s0 += gl_SubgroupSize) {
                uint s = s0 + lane;
                uint v = s < gl_NumSubgroups ? scanSums[s] : SCAN_ZERO;
                uint ex = scanSubgroupExclusive(v);
                if (s < gl_NumSubgroups) {
                    scanSums[s] = scanAdd(run, ex);
                }
                run = scanAdd(run, scanSubgroupSum(v));
            }
            if (subgroupElect()) {
                scanCarry = run;
            }
        }
        barrier();
        uint at = scanAdd(scanSums[gl_SubgroupID], excl);
        [[unroll]] for (uint j = 0; j < 4; j++) {
            if (i0 + j < count) {
                SCAN_DATA[first + i0 + j] = at;
            }
            at = scanAdd(at, c[j]);
        }
        barrier(); // scanSums and scanCarry are rewritten by the next tile
    }
    return scanCarry;
}
