// Shared declarations of the select kernels (select_count, select_scan,
// select_move): the element layout, the keep predicate and the chunking.
//
// Terms. The input is n elements of STRIDE 32-bit words; the key of each
// is one or two words at word KEY_WORD. The elements are cut into chunks
// of pc.chunk elements (the last shorter); each chunk is one of Billeter's
// processors and is walked by one subgroup. A dispatch covers one segment
// of whole chunks, bound as its own buffer range, so that no binding
// exceeds maxStorageBufferRange.
//
// Keys are compared as unsigned "ordered" words: signed integers have
// their sign bit flipped, floats are mapped so that unsigned order is
// numeric order, with -0.0 folded onto +0.0. The host maps the constant the
// same way. NaN keys compare false (and != true).

layout(constant_id = 1) const uint PROCS = 1024;  // processors: chunks at most
layout(constant_id = 2) const uint STRIDE = 1;    // words per element, 1..64
layout(constant_id = 3) const uint KEY_WORD = 0;  // the key's first word
layout(constant_id = 4) const uint KEY_TYPE = 0;  // see KEY_* below
layout(constant_id = 5) const uint PRED = 0;      // see PRED_* below
layout(constant_id = 6) const uint FLAG_BYTES = 4; // 1 or 4, for PRED_FLAGGED
layout(constant_id = 7) const uint VECS = 1;      // loads per lane per step

#include "key_types.glsl"
const uint PRED_NONZERO = 0, PRED_EQ = 1, PRED_NE = 2, PRED_LT = 3, PRED_LE = 4, PRED_GT = 5,
           PRED_GE = 6, PRED_MASK = 7, PRED_FLAGGED = 8, PRED_ALL = 9, PRED_NONE = 10;

const bool WIDE = KEY_TYPE >= KEY_U64;
// Elements per uvec4 on the vector path (strides of 1, 2 and 4 words); 1
// on the element path (any other stride).
const bool VEC_PATH = STRIDE == 1 || STRIDE == 2 || STRIDE == 4;
const uint EPV = STRIDE == 1 ? 4 : (STRIDE == 2 ? 2 : 1);

// ordered maps a key's words (lo, hi) so that unsigned lexicographic order
// of (hi, lo) (or of lo alone for 32-bit keys) is the key's numeric order.
uvec2 ordered(uint lo, uint hi) {
    if (KEY_TYPE == KEY_I32) {
        return uvec2(lo ^ 0x80000000u, 0);
    } else if (KEY_TYPE == KEY_F32) {
        if ((lo & 0x7fffffffu) == 0) {
            return uvec2(0x80000000u, 0);
        }
        return uvec2((lo >> 31) != 0 ? ~lo : lo | 0x80000000u, 0);
    } else if (KEY_TYPE == KEY_I64) {
        return uvec2(lo, hi ^ 0x80000000u);
    } else if (KEY_TYPE == KEY_F64) {
        if ((hi & 0x7fffffffu) == 0 && lo == 0) {
            return uvec2(0, 0x80000000u);
        }
        return (hi >> 31) != 0 ? uvec2(~lo, ~hi) : uvec2(lo, hi | 0x80000000u);
    }
    return uvec2(lo, hi);
}

bool isNaN(uint lo, uint hi) {
    if (KEY_TYPE == KEY_F32) {
        return (lo & 0x7fffffffu) > 0x7f800000u;
    } else if (KEY_TYPE == KEY_F64) {
        uint h = hi & 0x7fffffffu;
        return h > 0x7ff00000u || (h == 0x7ff00000u && lo != 0);
    }
    return false;
}

// keepKey evaluates the predicate PRED on a key; c is the constant
// (ordered for comparisons, raw bits for the mask).
#define KEEP_KEY_FN keepKey
#define KEEP_KEY_PRED PRED
#include "keep_key.glsl"
#undef KEEP_KEY_FN
#undef KEEP_KEY_PRED

// stepElems is how many elements one subgroup takes per step.
uint stepElems() {
    return gl_SubgroupSize * VECS * EPV;
}
