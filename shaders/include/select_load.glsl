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

#ifdef NEIGHBOUR_PREDS // the *_runs kernels: a separate module, since
// SwiftShader runs a branch its spec constant rules out (with its loads,
// masked) and the other predicates took twice as long with this code in
// The neighbour predicates (select_load.glsl, keepUnit), each under one of
// three equalities (EQ_*: the keys as their type compares them, the keys'
// bits, every word of the element): PRED_FIRST + eq keeps the first
// element of each run of equal elements (unique); PRED_EDGE + eq keeps
// the first and the last element of each run longer than one
// (non-trivial runs), which come in (first, last) pairs.
const uint PRED_FIRST = 11, PRED_EDGE = 14, EQ_KEYS = 0, EQ_BITS = 1, EQ_ELEMS = 2;
const bool NEIGHBOURS = PRED >= PRED_FIRST && PRED < PRED_EDGE + 3;


// selN is the elements bound, for the neighbour predicates' test of the
// next element: each kernel's main sets it before any keepUnit. The
// neighbour predicates need the whole input in one binding (the host
// refuses more), so an element's neighbours are bound with it.
uint selN;

// keyOf returns the key words of element j of unit v (vector path) or of
// the unit itself (element path), the high word 0 for 32-bit keys.
uvec2 keyOf(uvec4 v, uint j) {
    if (VEC_PATH) {
        uint w = j * STRIDE + KEY_WORD;
        return uvec2(v[w], WIDE ? v[w + 1] : 0);
    }
    return uvec2(v.x, WIDE ? v.y : 0);
}

// keyAt loads the key words of element e.
uvec2 keyAt(uint e) {
    uint base = e * STRIDE + KEY_WORD;
    return uvec2(srcWord[base], WIDE ? srcWord[base + 1] : 0);
}

// sameAs says whether element e, whose key is k, equals element o under
// the predicate's equality; o's key is ko where known (haveKo).
bool sameAs(uvec2 k, uint e, uint o, bool haveKo, uvec2 ko) {
    uint eq = (PRED - PRED_FIRST) % 3;
    if (eq == EQ_ELEMS) {
        for (uint w = 0; w < STRIDE; w++) {
            if (srcWord[e * STRIDE + w] != srcWord[o * STRIDE + w]) {
                return false;
            }
        }
        return true;
    }
    if (!haveKo) {
        ko = keyAt(o);
    }
    if (eq == EQ_KEYS) {
        if (isNaN(k.x, k.y) || isNaN(ko.x, ko.y)) {
            return false; // NaN equals nothing, itself included
        }
        return ordered(k.x, k.y) == ordered(ko.x, ko.y); // -0.0 == +0.0
    }
    return k == ko;
}

// keepNeighbours decides element j of unit v (element e) by its
// neighbours: the first of its run (PRED_FIRST + eq), or the first or
// last of a run longer than one (PRED_EDGE + eq). A neighbour in the
// same unit comes from v; else it is one more load.
bool keepNeighbours(uvec4 v, uint j, uint e) {
    uvec2 k = keyOf(v, j);
    bool prevInUnit = VEC_PATH && j > 0;
    bool samePrev = e > 0 && sameAs(k, e, e - 1, prevInUnit, prevInUnit ? keyOf(v, max(j, 1) - 1) : uvec2(0));
    if (PRED < PRED_EDGE) {
        return !samePrev;
    }
    bool nextInUnit = VEC_PATH && j + 1 < EPV;
    bool sameNext = e + 1 < selN && sameAs(k, e, e + 1, nextInUnit, nextInUnit ? keyOf(v, min(j + 1, EPV - 1)) : uvec2(0));
    return samePrev != sameNext;
}
#endif // NEIGHBOUR_PREDS

// keepUnit decides element j of unit v, which is element e of the segment.
bool keepUnit(uvec4 v, uint j, uint e, uvec2 c) {
    if (PRED == PRED_FLAGGED) {
        return flagAt(e);
    }
#ifdef NEIGHBOUR_PREDS
    if (NEIGHBOURS) {
        return keepNeighbours(v, j, e);
    }
#endif
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
