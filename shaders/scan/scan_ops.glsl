// scan_ops.glsl: the operators of package scan's scans (Op): sum, min and
// max of 32-bit elements. A module holds one op family for one kind of
// elements, chosen when it is compiled, so that a driver compiling it
// parses no other's code: an includer that defines SCAN_MINMAX declares
// the specialization constant OP (OP_MIN or OP_MAX) and gets min and max,
// one that does not gets sums; one that defines SCAN_F32 gets float32
// elements, one that does not uint32 and int32 (told apart, where the op
// needs it, by ELEM_TYPE: KEY_U32 or KEY_I32). The includer declares the
// constant ELEM_TYPE (the elements' KEY_* code; a float32 module reads it
// nowhere), enables GL_KHR_shader_subgroup_arithmetic, and includes
// key_types.glsl before this file.
//
// Min and max run on keys: opKey maps an element's bits to a uint whose
// unsigned order is the op's order, so that the op is the uint min (max)
// of keys, exact in any order and grouping (the single pass's look-back
// and fallback combine tiles in any order), and opBits maps a key back to
// the element's bits. The identity is the key 0xffffffff for min (the
// type's greatest value, +Inf) and 0 for max (its least, -Inf). float32
// keys order the values as Go's min and max do: -0.0 below +0.0, and a
// NaN beyond every number (below -Inf for min, above +Inf for max), so a
// NaN anywhere makes the result a NaN; of several NaNs the one whose bits
// are the least as a uint32 (a positive NaN before a negative one).
// opKey is a bijection, so every result is one of the elements' bits.
//
// Sums are not mapped: their keys are the bits, integers adding with
// wrapping, floats in IEEE 754 from the identity -0.0 (float_sum.glsl).

const uint OP_SUM = 0, OP_MIN = 1, OP_MAX = 2;
#ifdef SCAN_F32
const bool OP_F32 = true;
#else
const bool OP_F32 = false;
#endif
#ifdef SCAN_MINMAX
const bool OP_LEAST = OP == OP_MIN;
const uint OP_SIGN = ELEM_TYPE == KEY_I32 ? 0x80000000u : 0u; // an integer key: the bits, int32's sign flipped
const bool FLOAT_OP_SUM = false;
#else
const bool FLOAT_OP_SUM = OP_F32;
#endif

// opKey maps an element's bits to its key.
uint opKey(uint x) {
#ifdef SCAN_MINMAX
    if (OP_F32) {
        uint m = x & 0x7fffffffu;
        if (m > 0x7f800000u) { // NaN: 0 .. 0xfffffd by bits, positive first
            uint r = (m - 0x7f800001u) + ((x >> 31) != 0 ? 0x7fffffu : 0u);
            return OP_LEAST ? r : 0xffffffffu - r;
        }
        uint t = (x >> 31) != 0 ? ~x : x | 0x80000000u; // -Inf 0x7fffff .. +Inf 0xff800000
        return OP_LEAST ? t + 0x7fffffu : t - 0x7fffffu;
    }
    return x ^ OP_SIGN;
#else
    return x;
#endif
}

// opBits maps a key back to the element's bits.
uint opBits(uint k) {
#ifdef SCAN_MINMAX
    if (OP_F32) {
        bool nan = OP_LEAST ? k < 0xfffffeu : k > 0xff000001u;
        if (nan) {
            uint r = OP_LEAST ? k : 0xffffffffu - k;
            return r < 0x7fffffu ? 0x7f800001u + r : 0xff800001u + (r - 0x7fffffu);
        }
        uint t = OP_LEAST ? k - 0x7fffffu : k + 0x7fffffu;
        return (t >> 31) != 0 ? t & 0x7fffffffu : ~t;
    }
    return k ^ OP_SIGN;
#else
    return k;
#endif
}

// opIdentity is the identity as a key: 0 (-0.0 for float sums), or for
// min and max the type's greatest and least values.
uint opIdentity() {
#ifdef SCAN_MINMAX
    return OP_LEAST ? 0xffffffffu : 0u;
#else
    return OP_F32 ? 0x80000000u : 0u;
#endif
}

// opCombine combines keys a (earlier) and b (later).
uint opCombine(uint a, uint b) {
#ifdef SCAN_MINMAX
    return OP_LEAST ? min(a, b) : max(a, b);
#else
    if (OP_F32) {
        return floatBitsToUint(uintBitsToFloat(a) + uintBitsToFloat(b));
    }
    return a + b;
#endif
}

// opKeys maps a unit of four elements, of which the first avail are
// real, to keys, the others the identity (a unit past the end loads as
// zeros, already the identity of integer sums).
uvec4 opKeys(uvec4 v, uint avail) {
#ifdef SCAN_MINMAX
    uvec4 k;
    [[unroll]] for (uint j = 0; j < 4; j++) {
        k[j] = j < avail ? opKey(v[j]) : opIdentity();
    }
    return k;
#else
    return v;
#endif
}

// opReduce4 combines a unit's keys.
uint opReduce4(uvec4 k) {
    return opCombine(opCombine(k.x, k.y), opCombine(k.z, k.w));
}

// The subgroup operations on keys: integer sums (float sums take
// float_sum.glsl's, which keep the sign of zero), min and max.
uint opSubgroup(uint k) {
#ifdef SCAN_MINMAX
    return OP_LEAST ? subgroupMin(k) : subgroupMax(k);
#else
    return subgroupAdd(k);
#endif
}

uint opSubgroupInclusive(uint k) {
#ifdef SCAN_MINMAX
    return OP_LEAST ? subgroupInclusiveMin(k) : subgroupInclusiveMax(k);
#else
    return subgroupInclusiveAdd(k);
#endif
}

// opSubgroupExclusive is the identity in lane 0.
uint opSubgroupExclusive(uint k) {
#ifdef SCAN_MINMAX
    return OP_LEAST ? subgroupExclusiveMin(k) : subgroupExclusiveMax(k);
#else
    return subgroupExclusiveAdd(k);
#endif
}
