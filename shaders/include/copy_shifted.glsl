// copyWordsShifted(n, srcShift, dstShift): dstWord[dstShift + i] =
// srcWord[srcShift + i] for i < n words, one word at a time, shared by
// copy_shifted and copy_count (which declare srcWord, dstWord and the
// VECS_PER_THREAD constant): the copy of ranges bound from offsets
// rounded down to the device's minStorageBufferOffsetAlignment (a count
// word at byte 4 of a result block), whose words need not share the
// vectors' alignment. Each workgroup copies a tile of as many words as
// copyWords' tiles hold (copy_words.glsl), thread t the words t,
// t + WORKGROUP_SIZE, ... of it.
void copyWordsShifted(uint n, uint srcShift, uint dstShift) {
    const uint wg = gl_WorkGroupSize.x;
    uint first = linearWorkgroup() * (wg * VECS_PER_THREAD * 4);
    for (uint k = 0; k < VECS_PER_THREAD * 4; k++) {
        uint i = first + k * wg + gl_LocalInvocationID.x;
        if (i < n) {
            dstWord[dstShift + i] = srcWord[srcShift + i];
        }
    }
}
