#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// copy_count: the copy kernel (copy.comp) of the elements below a
// GPU-side element count: n uint32 words at most, cut to the words of the
// elements below the count (gpuCount's word countWord(pc.countOn): any
// 4-byte aligned word chains, common.glsl says how), elements of
// pc.wordsPerElem words, the range starting at element pc.firstElem (see
// transfer.RecordCopyCount). With SHIFTED, ranges bound from offsets
// rounded down to minStorageBufferOffsetAlignment, copied word by word,
// as copy_shifted does.
//
// Bindings: 0 src as uvec4, 1 dst as uvec4, 2 src as uint, 3 dst as uint
// (0 and 2, 1 and 3 are the same buffer ranges), 4 the element count.

#include "../include/common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VECS_PER_THREAD = 4;
layout(constant_id = 2) const bool SHIFTED = false;

layout(std430, binding = 0) readonly buffer SrcVec { uvec4 srcVec[]; };
layout(std430, binding = 1) writeonly buffer DstVec { uvec4 dstVec[]; };
layout(std430, binding = 2) readonly buffer SrcWord { uint srcWord[]; };
layout(std430, binding = 3) writeonly buffer DstWord { uint dstWord[]; };
layout(std430, binding = 4) readonly buffer GpuCount { uint gpuCount[]; };

layout(push_constant) uniform Push {
    uint n;            // words in the range
    uint firstElem;    // the range's first element
    uint wordsPerElem; // words per element, for the count
    uint countOn;      // 1 + the count's word in gpuCount
    uint srcShift;     // SHIFTED: the source's first word in its binding
    uint dstShift;     // SHIFTED: the destination's first word in its binding
} pc;

#include "../include/copy_words.glsl"
#include "../include/copy_shifted.glsl"

void main() {
    uint count = gpuCount[countWord(pc.countOn)];
    uint elems = count > pc.firstElem ? count - pc.firstElem : 0;
    // When elems is below the range's elements, elems * wordsPerElem < n:
    // no overflow.
    uint words = elems >= (pc.n + pc.wordsPerElem - 1) / pc.wordsPerElem ? pc.n : elems * pc.wordsPerElem;
    if (SHIFTED) {
        copyWordsShifted(words, pc.srcShift, pc.dstShift);
    } else {
        copyWords(words);
    }
}
