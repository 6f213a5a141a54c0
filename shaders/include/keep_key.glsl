// keep_key.glsl: the keep predicate's evaluator on one key, included once
// per predicate a kernel tests. The includer defines KEEP_KEY_FN, the
// function's name, and KEEP_KEY_PRED, the predicate (one of select.glsl's
// PRED_*: a specialization constant), and includes select.glsl first (its
// ordered, isNaN, WIDE and KEY_TYPE). The predicate is a constant
// expression here, not an argument, so that every test on it is a
// specialization-constant expression the driver, or internal/spvspec
// ahead of it, folds away.
//
// bool KEEP_KEY_FN(uint lo, uint hi, uvec2 c) evaluates the predicate on
// the key (lo, hi); c is the constant (ordered for comparisons, raw bits
// for the mask).

bool KEEP_KEY_FN(uint lo, uint hi, uvec2 c) {
    if (!WIDE) {
        hi = 0;
    }
    if (KEEP_KEY_PRED == PRED_ALL) {
        return true;
    } else if (KEEP_KEY_PRED == PRED_NONE) {
        return false;
    } else if (KEEP_KEY_PRED == PRED_NONZERO) {
        if (KEY_TYPE == KEY_F32) {
            lo &= 0x7fffffffu;
        } else if (KEY_TYPE == KEY_F64) {
            hi &= 0x7fffffffu;
        }
        return (lo | hi) != 0;
    } else if (KEEP_KEY_PRED == PRED_MASK) {
        return ((lo & c.x) | (hi & c.y)) != 0;
    }
    if (isNaN(lo, hi)) {
        return KEEP_KEY_PRED == PRED_NE;
    }
    uvec2 k = ordered(lo, hi);
    bool eq = k == c;
    bool lt = k.y < c.y || (k.y == c.y && k.x < c.x);
    switch (KEEP_KEY_PRED) {
    case PRED_EQ: return eq;
    case PRED_NE: return !eq;
    case PRED_LT: return lt;
    case PRED_LE: return lt || eq;
    case PRED_GT: return !lt && !eq;
    default: return !lt; // PRED_GE
    }
}
