// reduce_ops.glsl: the element types and operators of package reduce's
// kernels. The includer declares the constants OP (OP_* below) and TYPE
// (the element's KEY_* code: u32, i32, f32 or u64), enables
// GL_KHR_shader_subgroup_arithmetic and GL_KHR_shader_subgroup_ballot, and
// includes float_sum.glsl before this file.
//
// A value is a uvec2 of its bits, low word first (the high word is 0 for
// the 32-bit types). 64-bit values are uint pairs: no shader here uses
// 64-bit integer types, so devices without shaderInt64 run them.
//
// Operators, each taking a (earlier) and b (later) in element order:
//   - sum: wrapping integer addition (uint64 with the carry), float32
//     addition in IEEE 754, from the identity -0.0 (x + -0.0 == x for every
//     x, so a sum of nothing but -0.0 stays -0.0);
//   - min and max of integers: by value (int32 signed);
//   - min and max of float32: the first NaN if either is NaN (NaN
//     propagates, as NumPy's np.min and np.max), else the least (greatest)
//     by value with ties kept from a, so that over any sequence combined in
//     order the result is its first least element: -0.0 and +0.0 compare
//     equal and the earlier one is kept.
// The comparisons run on order-mapped bits (orderKey), never on floats, so
// a device that flushes denormals still orders them.

#include "../include/key_types.glsl"

const uint OP_SUM = 0, OP_MIN = 1, OP_MAX = 2, OP_ARGMIN = 3, OP_ARGMAX = 4;
const bool WIDE = TYPE == KEY_U64;
const uint EPV = WIDE ? 2 : 4;                       // elements per uvec4
const bool LEAST = OP == OP_MIN || OP == OP_ARGMIN; // min and argmin pick the least
const uint NO_INDEX = 0xffffffffu;

bool isNaN32(uint x) {
    return (x & 0x7fffffffu) > 0x7f800000u;
}

// orderKey maps a value's bits so that unsigned order of (hi, lo) is the
// value's numeric order, float zeros folded onto one key (NaNs are the
// callers' to handle).
uvec2 orderKey(uvec2 x) {
    if (TYPE == KEY_I32) {
        return uvec2(x.x ^ 0x80000000u, 0);
    } else if (TYPE == KEY_F32) {
        if ((x.x & 0x7fffffffu) == 0) {
            return uvec2(0x80000000u, 0);
        }
        return uvec2((x.x >> 31) != 0 ? ~x.x : x.x | 0x80000000u, 0);
    } else if (WIDE) {
        return x;
    }
    return uvec2(x.x, 0);
}

bool keyLess(uvec2 a, uvec2 b) {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

// valIdentity is the operator's identity: 0 (-0.0) for sums, the type's
// greatest value (+Inf) for min, its least (-Inf) for max.
uvec2 valIdentity() {
    if (OP == OP_SUM) {
        return uvec2(TYPE == KEY_F32 ? NEG_ZERO : 0u, 0u);
    }
    if (TYPE == KEY_I32) {
        return uvec2(LEAST ? 0x7fffffffu : 0x80000000u, 0);
    } else if (TYPE == KEY_F32) {
        return uvec2(LEAST ? 0x7f800000u : 0xff800000u, 0);
    } else if (WIDE) {
        return LEAST ? uvec2(0xffffffffu) : uvec2(0);
    }
    return uvec2(LEAST ? 0xffffffffu : 0u, 0);
}

// emptyValue is what an empty input or segment gives: the identity, but
// +0.0 for float sums (NumPy's sum of nothing).
uvec2 emptyValue() {
    return OP == OP_SUM && TYPE == KEY_F32 ? uvec2(0) : valIdentity();
}

uvec2 valCombine(uvec2 a, uvec2 b) {
    if (OP == OP_SUM) {
        if (TYPE == KEY_F32) {
            return uvec2(floatBitsToUint(uintBitsToFloat(a.x) + uintBitsToFloat(b.x)), 0);
        } else if (WIDE) {
            uint carry;
            uint lo = uaddCarry(a.x, b.x, carry);
            return uvec2(lo, a.y + b.y + carry);
        }
        return uvec2(a.x + b.x, 0);
    }
    if (TYPE == KEY_F32) {
        if (isNaN32(a.x)) {
            return a;
        }
        if (isNaN32(b.x)) {
            return b;
        }
    }
    uvec2 ka = orderKey(a), kb = orderKey(b);
    return (LEAST ? keyLess(kb, ka) : keyLess(ka, kb)) ? b : a;
}

// An accumulator of a whole reduction (reduce_tiles, reduce_combine) is a
// uvec4. Sums, and min and max of integers, keep their value in xy. The
// arg form (argmin and argmax, and min and max of float32, which return
// the element argmin and argmax pick) keeps (key lo, key hi, index, the
// float's bits): the key is order-mapped so that the least wins for both
// (argmax's complemented), NaN the least of all (NumPy's argmin and argmax
// return the first NaN), and ties go to the least index, so the result
// does not depend on the order of combination.
// (glslang makes a constant of one logical operator at most: each
// expression below has one, so none becomes a variable.)
const bool ARG_OP = OP >= OP_ARGMIN;
const bool FLOAT_PICK = TYPE == KEY_F32 && OP != OP_SUM;
const bool ARG_FORM = ARG_OP || FLOAT_PICK;

uvec2 argKey(uvec2 x) {
    if (TYPE == KEY_F32 && isNaN32(x.x)) {
        return uvec2(0);
    }
    uvec2 k = orderKey(x);
    if (!LEAST) {
        k.x = ~k.x;
        if (WIDE) {
            k.y = ~k.y;
        }
    }
    return k;
}

uvec4 accIdentity() {
    if (ARG_FORM) {
        return uvec4(0xffffffffu, WIDE ? 0xffffffffu : 0u, NO_INDEX, valIdentity().x);
    }
    return uvec4(valIdentity(), 0, 0);
}

// accLift is element x at index i as an accumulator.
uvec4 accLift(uvec2 x, uint i) {
    if (ARG_FORM) {
        return uvec4(argKey(x), i, x.x);
    }
    return uvec4(x, 0, 0);
}

bool argLess(uvec4 a, uvec4 b) {
    if (a.y != b.y) {
        return a.y < b.y;
    }
    if (a.x != b.x) {
        return a.x < b.x;
    }
    return a.z < b.z;
}

uvec4 accCombine(uvec4 a, uvec4 b) {
    if (ARG_FORM) {
        return argLess(b, a) ? b : a;
    }
    return uvec4(valCombine(a.xy, b.xy), 0, 0);
}

// accSubgroup combines the accumulators of the subgroup's lanes; every
// lane gets the result. Float sums keep the sign of zero (float_sum.glsl).
uvec4 accSubgroup(uvec4 a) {
    if (ARG_FORM) {
        uint hi = WIDE ? subgroupMin(a.y) : 0u;
        uint lo = subgroupMin(a.y == hi ? a.x : 0xffffffffu);
        bool m = a.y == hi && a.x == lo;
        uint idx = subgroupMin(m ? a.z : NO_INDEX);
        uint raw = TYPE == KEY_F32 ? subgroupMax(m && a.z == idx ? a.w : 0u) : 0u;
        return uvec4(lo, hi, idx, raw);
    }
    if (OP == OP_SUM) {
        if (TYPE == KEY_F32) {
            return uvec4(floatBitsToUint(signedAdd(uintBitsToFloat(a.x))), 0, 0, 0);
        } else if (WIDE) {
            // Three sums that cannot overflow (halves of the low words:
            // below 2^16 each, 128 lanes at most), then the carries.
            uint l0 = subgroupAdd(a.x & 0xffffu), l1 = subgroupAdd(a.x >> 16), h = subgroupAdd(a.y);
            uint carry;
            uint lo = uaddCarry(l0, (l1 & 0xffffu) << 16, carry);
            return uvec4(lo, h + (l1 >> 16) + carry, 0, 0);
        }
        return uvec4(subgroupAdd(a.x), 0, 0, 0);
    }
    if (WIDE) {
        uint hi = LEAST ? subgroupMin(a.y) : subgroupMax(a.y);
        uint lo = LEAST ? subgroupMin(a.y == hi ? a.x : 0xffffffffu) : subgroupMax(a.y == hi ? a.x : 0u);
        return uvec4(lo, hi, 0, 0);
    } else if (TYPE == KEY_I32) {
        return uvec4(uint(LEAST ? subgroupMin(int(a.x)) : subgroupMax(int(a.x))), 0, 0, 0);
    }
    return uvec4(LEAST ? subgroupMin(a.x) : subgroupMax(a.x), 0, 0, 0);
}

// argValue is the element's bits an arg-form accumulator holds (the
// identity's value when it holds none).
uvec2 argValue(uvec4 a) {
    if (TYPE == KEY_F32) {
        return uvec2(a.w, 0);
    }
    uvec2 k = a.xy;
    if (!LEAST) {
        k.x = ~k.x;
        if (WIDE) {
            k.y = ~k.y;
        }
    }
    if (TYPE == KEY_I32) {
        k.x ^= 0x80000000u;
    }
    return k;
}

// accValue is the value an accumulator stands for.
uvec2 accValue(uvec4 a) {
    if (ARG_FORM) {
        return argValue(a);
    }
    return a.xy;
}
