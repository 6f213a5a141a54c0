// Loading and testing elements, for select_count and select_move (which
// declare srcVec, srcWord, flags and LOAD_DATA: whether the vector path
// must load the elements even when the predicate does not read them). A "unit" is what one lane loads at
// once: a uvec4 of EPV elements on the vector path, or on the element path
// the key words (x, y) of one element.

// loadUnit loads the unit whose first element is e (segment-relative).
// whole says the unit lies inside the segment; otherwise only its first
// avail elements may be read.
uvec4 loadUnit(uint e, bool whole, uint avail) {
    if (!LOAD_DATA && (PRED == PRED_FLAGGED || PRED == PRED_ALL || PRED == PRED_NONE)) {
        return uvec4(0); // the count needs no keys to decide
    }
    if (VEC_PATH) {
        if (whole) {
            return srcVec[e * STRIDE / 4];
        }
        uvec4 v = uvec4(0);
        [[unroll]] for (uint w = 0; w < 4; w++) {
            if (w < min(avail, EPV) * STRIDE) {
                v[w] = srcWord[e * STRIDE + w];
            }
        }
        return v;
    }
    if (!whole && avail == 0) {
        return uvec4(0);
    }
    uint base = e * STRIDE + KEY_WORD;
    return uvec4(srcWord[base], WIDE ? srcWord[base + 1] : 0, 0, 0);
}

#ifndef LOAD_ONLY // the prefix sum loads elements but tests none

bool flagAt(uint e) {
    if (FLAG_BYTES == 1) {
        return ((flags[e >> 2] >> ((e & 3) * 8)) & 0xffu) != 0;
    }
    return flags[e] != 0;
}

// keepUnit decides element j of unit v, which is element e of the segment.
bool keepUnit(uvec4 v, uint j, uint e, uvec2 c) {
    if (PRED == PRED_FLAGGED) {
        return flagAt(e);
    }
    uint lo, hi;
    if (VEC_PATH) {
        uint w = j * STRIDE + KEY_WORD;
        lo = v[w];
        hi = WIDE ? v[w + 1] : 0;
    } else {
        lo = v.x;
        hi = v.y;
    }
    return keepKey(lo, hi, c);
}

#endif // LOAD_ONLY
