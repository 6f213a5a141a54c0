// Shared declarations of the radix sort kernels (radix_count,
// radix_scatter): the key layout, the order-preserving key map and digit
// extraction.
//
// Keys are 32-bit words, or for KEY_U64 word pairs (lo, hi). sortKey maps
// a key so that unsigned order of the result is the wanted order:
// signed integers flip the sign bit; floats follow IEEE totalOrder
// (negative values, sign bit set, are inverted, others get the sign bit):
// -NaN < -Inf < ... < -0.0 < +0.0 < ... < +Inf < +NaN. Descending inverts
// every bit, which keeps equal keys in input order. A pass sorts by the
// digit of `width` bits at bit `shift` of the mapped key.

layout(constant_id = 1) const uint KEY_TYPE = 0; // KEY_* below
layout(constant_id = 2) const bool DESCENDING = false;
layout(constant_id = 3) const uint RADIX_BITS = 8; // bits per digit, 1..8
layout(constant_id = 4) const uint KPL = 4;        // keys per lane per round, 1..32

#include "../include/key_types.glsl"
const bool WIDE = KEY_TYPE == KEY_U64;
const uint BUCKETS = 1u << RADIX_BITS;

uvec2 sortKey(uvec2 k) {
    if (KEY_TYPE == KEY_I32) {
        k.x ^= 0x80000000u;
    } else if (KEY_TYPE == KEY_F32) {
        k.x = (k.x >> 31) != 0 ? ~k.x : k.x | 0x80000000u;
    }
    if (DESCENDING) {
        k = ~k;
    }
    return k;
}

// digitOf returns bits [shift, shift+width) of the mapped key k.
uint digitOf(uvec2 k, uint shift, uint width) {
    uint d;
    if (!WIDE || shift < 32) {
        d = k.x >> shift;
        if (WIDE && shift != 0) {
            d |= k.y << (32 - shift);
        }
    } else {
        d = k.y >> (shift - 32);
    }
    return d & ((1u << width) - 1u);
}
