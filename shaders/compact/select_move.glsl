// select_move.glsl: the body of select_move.comp and select_move_runs.comp (the
// neighbour predicates, NEIGHBOUR_PREDS), which include it.
// select_move: phase 3 of the compaction. Each subgroup walks its chunk
// again, step by step. For every load slot k of the step, one ballot per
// element of the unit gives each kept element its rank among the kept
// elements before it (subgroupBallotExclusiveBitCount: Billeter's POPC
// compactSIMD), so that element goes to slot counts[chunk] + rank. With
// SPLIT the rejected ones go too, to kept + (index - kept before it), or
// with SPLIT == 2 to n - 1 - (index - kept before it): reversed, from the
// back, as CUB's DevicePartition writes them.
//
// Two ways of writing (the paper's "selective" choice):
// - scattered (STAGED == 0): every lane stores its elements at their slots;
// - staged (STAGED == 1): the subgroup first gathers the step's output in
//   shared memory, in output order, then stores it word by word, each
//   store instruction one contiguous span.
//
// The destination is bound one page at a time: page elements
// [pageFirst, pageFirst + pageCount) of the output. A chunk whose output
// misses the page skips the step; slots outside it are not written. With
// one page (any output under maxStorageBufferRange) nothing is skipped.
//
// Bindings: 0 the segment's elements as uvec4, 1 the same as uint, 2 the
// segment's flags, 3 counts (scanned: each chunk's first slot; the total
// at PROCS), 4 the page as uvec4, 5 the same as uint, 6 the GPU-side
// element count (common.glsl: countedElems), 7 with OUT_INDEX 2 the page
// of the elements (the page of indices being 5), 8 and 9 with
// VALUE_WORDS the values and the page of the kept ones, 10 with OUT_INDEX
// 3 the chunks' records.
//
// OUT_INDEX (compact.Selection.Output): 0 writes the kept elements; 1
// their indices in the input instead (one word each); 2 the indices, and
// the elements to binding 7.
//
// VALUE_WORDS (compact.Selection.Values; the neighbour modules alone):
// each kept element's value, VALUE_WORDS words at its index in values[]
// (binding 8), goes to the same slot of valuesOut[] (binding 9), in the
// same pass: unique by key. The staged write then stages each kept
// element's index, and writes the element and its value re-read there
// (the subgroup loaded the elements just now: a cache hit; the values
// are read once, each line of them by the step that keeps from it).
//
// OUT_INDEX 3 (run lengths, internal/keepop.RunLengths: package runs'
// Encode; the neighbour modules alone, with FirstOfRun and STAGED): each
// kept element, a run's first, gets its run's length in dstWord[] and
// itself in dstElems[]. Each step stages its kept elements' indices; each
// kept element writes the length of the run before it, its index less
// the previous kept one's in the chunk (the step's, or the previous
// steps' last), and the chunk's last kept element its own index in its
// own slot. The chunk's first kept element writes its slot and its index
// to the chunk's record in runRecords[] (binding 10), which
// select_lengths.comp, a dispatch over the chunks after this one, turns
// into the length of the run before it (the last run of an earlier
// chunk); it also ends the last run of all at the elements covered. A
// chunk that keeps nothing records no index.

#include "../include/common.glsl"
#include "../include/select.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 8) const uint SPLIT = 0; // 1: rejected after the kept, in order; 2: reversed from the back
layout(constant_id = 9) const uint STAGED = 0;
layout(constant_id = 10) const uint STAGE_WORDS = 1; // workgroup size * VECS * EPV * OSTRIDE when staged; VECS <= 4
layout(constant_id = 11) const uint OUT_INDEX = 0; // 1: write each kept element's index (one word), not the element; 2: and the element to dstElems (no SPLIT)
// STAGE_REJECTED: with the staged write a compaction stages its rejected
// elements too, at the back of the step as a split does (the write-out
// reads the kept ones alone), so that no store to shared memory is masked
// by the predicate (a CPU driver mispredicts such a store's lanes; see
// select_onepass.glsl).
layout(constant_id = 12) const uint STAGE_REJECTED = 0;
layout(constant_id = 13) const uint VALUE_WORDS = 0; // 1 or 2: move each kept element's value too (the neighbour modules)
#ifdef NEIGHBOUR_PREDS
const uint VWORDS = VALUE_WORDS;
#else
const uint VWORDS = 0; // the values stream is unique by key's: the neighbour modules'
#endif
// STAGE_INDEX: the staged write stages indices, and the elements and
// values are re-read at them.
const bool STAGE_INDEX = OUT_INDEX != 0 || VWORDS != 0;
const uint OSTRIDE = STAGE_INDEX ? 1 : STRIDE; // words per staged element
#ifdef NEIGHBOUR_PREDS
const bool LENGTHS = OUT_INDEX == 3; // run lengths (see the top)
#else
const bool LENGTHS = false;
#endif

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 2) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 3) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 4) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 5) writeonly buffer DstWord { uint dstWord[]; };
layout(std430, binding = 6) readonly buffer GpuCount { uint gpuCount[]; };
layout(std430, binding = 7) writeonly buffer DstElems { uint dstElems[]; }; // OUT_INDEX 2: the page's elements
layout(std430, binding = 8) readonly buffer Values { uint values[]; };       // VALUE_WORDS: every element's value
layout(std430, binding = 9) writeonly buffer ValuesOut { uint valuesOut[]; }; // VALUE_WORDS: the page's values
layout(std430, binding = 10) writeonly buffer RunRecords { uint runRecords[]; }; // OUT_INDEX 3: two words per chunk

layout(push_constant) uniform Push {
    uint c0;        // the segment's first chunk
    uint nc;        // chunks in the segment
    uint chunk;     // elements per chunk
    uint n;         // elements in the segment
    uint segFirst;  // the segment's first element, in the whole input
    uint pageFirst; // the page's first output slot
    uint pageCount; // output slots in the page
    uint cLo;       // the constant's words
    uint cHi;
    uint countOn;   // 0, or 1 + the word of the element count in gpuCount (common.glsl: countWord)
} pc;

const bool LOAD_DATA = true;
#include "../include/select_load.glsl"

shared uint stage[STAGE_WORDS];

bool inPage(uint slot) {
    return slot - pc.pageFirst < pc.pageCount; // wraps below pageFirst
}

bool overlapsPage(uint first, uint count) {
    return count != 0 && first < pc.pageFirst + pc.pageCount && pc.pageFirst < first + count;
}

// word returns word w of element j of unit v, element e of the segment.
uint word(uvec4 v, uint j, uint e, uint w) {
    if (VEC_PATH) {
        return v[j * STRIDE + w];
    }
    return srcWord[e * STRIDE + w];
}

// storeElemWord writes word i of the page's kept elements: to dstWord,
// or with OUT_INDEX 2 to dstElems (dstWord holding the indices).
void storeElemWord(uint i, uint v) {
    if (OUT_INDEX == 0) {
        dstWord[i] = v;
    } else {
        dstElems[i] = v;
    }
}

// store writes element j of unit v (element e of the segment) to slot.
void store(uint slot, uvec4 v, uint j, uint e) {
    if (!inPage(slot)) {
        return;
    }
    uint d = slot - pc.pageFirst;
#ifdef NEIGHBOUR_PREDS
    if (VWORDS != 0) {
        for (uint w = 0; w < VWORDS; w++) {
            valuesOut[d * VWORDS + w] = values[(pc.segFirst + e) * VWORDS + w];
        }
    }
#endif
    if (OUT_INDEX != 0) {
        dstWord[d] = pc.segFirst + e;
        if (OUT_INDEX == 2) {
            for (uint w = 0; w < STRIDE; w++) {
                dstElems[d * STRIDE + w] = word(v, j, e, w);
            }
        }
    } else if (STRIDE == 4 && VEC_PATH) {
        dstVec[d] = v;
    } else if (STRIDE % 4 == 0) {
        [[unroll]] for (uint t = 0; t < STRIDE / 4; t++) {
            dstVec[d * (STRIDE / 4) + t] = srcVec[e * (STRIDE / 4) + t];
        }
    } else {
        [[unroll]] for (uint w = 0; w < STRIDE; w++) {
            dstWord[d * STRIDE + w] = word(v, j, e, w);
        }
    }
}

// moveUnit places the elements of unit v, whose first element is at
// position first of the step (s) of the chunk starting at start: one
// ballot per element of the unit ranks the kept ones. kb is the number of
// kept elements before the unit, in the whole input; it leaves counting
// the unit's. With staging, kbStep is kb at the step's start and m the
// step's element count.
void moveUnit(uvec4 v, uint start, uint s, uint first, uint len, bool full, uvec2 c,
              uint total, uint nAll, uint kbStep, uint m, inout uint kb) {
    bvec4 keep = bvec4(false), valid = bvec4(false);
    uint below = 0, kept = 0;
    [[unroll]] for (uint j = 0; j < 4; j++) {
        if (j < EPV) {
            valid[j] = full || first + j < len;
            keep[j] = valid[j] && keepUnit(v, j, start + first + j, c);
            uvec4 b = subgroupBallot(keep[j]);
            below += subgroupBallotExclusiveBitCount(b);
            kept += subgroupBallotBitCount(b);
        }
    }
    uint own = kb + below; // kept before element j of this lane
    [[unroll]] for (uint j = 0; j < 4; j++) {
        if (j < EPV) {
            uint e = start + first + j;
            if (STAGED == 0) {
                if (keep[j]) {
                    store(own, v, j, e);
                } else if (SPLIT != 0 && valid[j]) {
                    uint r = (pc.segFirst + e) - own; // rejected before it
                    store(SPLIT == 2 ? nAll - 1 - r : total + r, v, j, e);
                }
            } else if (keep[j] || ((SPLIT != 0 || STAGE_REJECTED != 0) && valid[j])) {
                // Step order in the stage: kept elements from the front,
                // rejected ones from the back (reversed).
                uint p = first + j - s; // position in the step
                uint at = keep[j] ? own - kbStep : m - 1 - (p - (own - kbStep));
                uint stageBase = gl_SubgroupID * gl_SubgroupSize * VECS * EPV * OSTRIDE;
                if (STAGE_INDEX) {
                    stage[stageBase + at] = pc.segFirst + e;
                } else {
                    [[unroll]] for (uint w = 0; w < STRIDE; w++) {
                        stage[stageBase + at * STRIDE + w] = word(v, j, e, w);
                    }
                }
            }
            if (keep[j]) {
                own++;
            }
        }
    }
    kb += kept;
}

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint sg = gl_SubgroupSize;
    uint stride = gl_NumSubgroups * gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint stageBase = gl_SubgroupID * sg * VECS * EPV * OSTRIDE;
    uvec2 c = uvec2(pc.cLo, pc.cHi);
    uint total = counts[PROCS];
    uint nAll = counts[PROCS + 1];
    uint n = countedElems(pc.n, pc.segFirst, pc.countOn, gpuCount[countWord(pc.countOn)]);
#ifdef NEIGHBOUR_PREDS
    selN = n; // the neighbour predicates' bound
#endif
    for (uint ch = linearWorkgroup() * gl_NumSubgroups + gl_SubgroupID; ch < pc.nc; ch += stride) {
        uint start = ch * pc.chunk;
        uint len = start < n ? min(pc.chunk, n - start) : 0;
        uint g = pc.c0 + ch;
        uint kb = counts[g]; // kept before the next element: subgroup-uniform
        uint keptHere = counts[g + 1] - kb;
#ifdef NEIGHBOUR_PREDS
        uint prev1 = 0; // LENGTHS: 1 + the chunk's last kept index so far (0: none)
        if (LENGTHS && keptHere == 0) {
            if (subgroupElect()) {
                runRecords[2 * g] = kb;
                runRecords[2 * g + 1] = 0; // no run starts in the chunk (select_lengths reads every chunk's record)
            }
            continue;
        }
#endif
        uint q0 = pc.segFirst + start; // the chunk's first element, in the whole input
        uint rejHere = len - keptHere;
        uint rejSlot = SPLIT == 2 ? nAll - (q0 - kb) - rejHere : total + q0 - kb; // the chunk's lowest rejected slot
        if (!overlapsPage(kb, keptHere) && !(SPLIT != 0 && overlapsPage(rejSlot, rejHere))) {
            continue;
        }
        uint step = stepElems();
        for (uint s = 0; s < len; s += step) {
            bool full = len - s >= step;
            uint f0 = s + lane * EPV, f1 = f0 + sg * EPV, f2 = f1 + sg * EPV, f3 = f2 + sg * EPV;
            uvec4 v0 = loadUnit(start + f0, full || f0 + EPV <= len, len - min(f0, len));
            uvec4 v1 = uvec4(0), v2 = uvec4(0), v3 = uvec4(0);
            if (VECS > 1) {
                v1 = loadUnit(start + f1, full || f1 + EPV <= len, len - min(f1, len));
            }
            if (VECS > 2) {
                v2 = loadUnit(start + f2, full || f2 + EPV <= len, len - min(f2, len));
            }
            if (VECS > 3) {
                v3 = loadUnit(start + f3, full || f3 + EPV <= len, len - min(f3, len));
            }
            uint kbStep = kb;
            uint m = min(step, len - s); // elements in the step
            moveUnit(v0, start, s, f0, len, full, c, total, nAll, kbStep, m, kb);
            if (VECS > 1) {
                moveUnit(v1, start, s, f1, len, full, c, total, nAll, kbStep, m, kb);
            }
            if (VECS > 2) {
                moveUnit(v2, start, s, f2, len, full, c, total, nAll, kbStep, m, kb);
            }
            if (VECS > 3) {
                moveUnit(v3, start, s, f3, len, full, c, total, nAll, kbStep, m, kb);
            }
            if (STAGED != 0) {
                subgroupBarrier(); // the stage is written
                uint stepKept = kb - kbStep;
                uint rejBefore = (q0 + s) - kbStep; // rejected elements before the step
                // What the stage holds: the elements, or their indices
                // (OUT_INDEX 1 and 2: the output; with values or run
                // lengths, not).
                uint words = !STAGE_INDEX || OUT_INDEX == 1 || OUT_INDEX == 2 ? (SPLIT != 0 ? m : stepKept) * OSTRIDE : 0;
                for (uint t = lane; t < words; t += sg) {
                    uint i = t / OSTRIDE;
                    uint w = t - i * OSTRIDE;
                    uint r = rejBefore + (i - stepKept);
                    uint slot = i < stepKept ? kbStep + i : (SPLIT == 2 ? nAll - 1 - r : total + r);
                    uint at = i < stepKept ? i : m - 1 - (i - stepKept);
                    if (inPage(slot)) {
                        dstWord[(slot - pc.pageFirst) * OSTRIDE + w] = stage[stageBase + at * OSTRIDE + w];
                    }
                }
                if (STAGE_INDEX && OUT_INDEX != 1) {
                    // The kept elements themselves, each re-read at its
                    // index (the subgroup loaded them just now: a cache hit).
                    for (uint t = lane; t < stepKept * STRIDE; t += sg) {
                        uint i = t / STRIDE;
                        uint w = t - i * STRIDE;
                        uint slot = kbStep + i;
                        if (inPage(slot)) {
                            storeElemWord((slot - pc.pageFirst) * STRIDE + w, srcWord[(stage[stageBase + i] - pc.segFirst) * STRIDE + w]);
                        }
                    }
                }
#ifdef NEIGHBOUR_PREDS
                if (LENGTHS) {
                    // Run lengths (see the top): kept element i of the
                    // step ends the run before it.
                    for (uint i = lane; i < stepKept; i += sg) {
                        uint idx = stage[stageBase + i];
                        uint p1 = i > 0 ? stage[stageBase + i - 1] + 1 : prev1;
                        uint slot = kbStep + i;
                        if (p1 != 0) {
                            if (inPage(slot - 1)) {
                                dstWord[slot - 1 - pc.pageFirst] = idx - (p1 - 1);
                            }
                        } else { // the chunk's first kept element
                            runRecords[2 * g] = slot;
                            runRecords[2 * g + 1] = idx + 1;
                        }
                        if (slot + 1 == counts[g + 1] && inPage(slot)) {
                            dstWord[slot - pc.pageFirst] = idx; // the chunk's last run: its start, which select_lengths turns into its length
                        }
                    }
                    if (stepKept > 0) {
                        prev1 = stage[stageBase + stepKept - 1] + 1;
                    }
                }
                if (VWORDS != 0) {
                    // Their values, read at the same indices.
                    for (uint t = lane; t < stepKept * VWORDS; t += sg) {
                        uint i = t / VWORDS;
                        uint w = t - i * VWORDS;
                        uint slot = kbStep + i;
                        if (inPage(slot)) {
                            valuesOut[(slot - pc.pageFirst) * VWORDS + w] = values[stage[stageBase + i] * VWORDS + w];
                        }
                    }
                }
#endif
                subgroupBarrier(); // the stage is read before the next step overwrites it
            }
        }
    }
}
