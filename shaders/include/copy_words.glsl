// copyWords(n): dst[i] = src[i] for i < n words, shared by copy and
// select_copyback (which declare srcVec, dstVec, srcWord, dstWord and the
// VECS_PER_THREAD constant). Each workgroup copies one tile of
// WORKGROUP_SIZE * VECS_PER_THREAD uvec4; thread t handles vectors
// t, t + WORKGROUP_SIZE, ... of the tile, so each load instruction of the
// workgroup is one contiguous, coalesced span, and all of a thread's loads
// are issued before its first store. The last n % 4 words go through the
// scalar views of the same buffers.
void copyWords(uint n) {
    const uint wg = gl_WorkGroupSize.x;
    uint nvec = n / 4;
    uint tile = wg * VECS_PER_THREAD;
    uint first = linearWorkgroup() * tile;
    uint base = first + gl_LocalInvocationID.x;
    if (first + tile <= nvec) {
        uvec4 v[VECS_PER_THREAD];
        [[unroll]] for (uint k = 0; k < VECS_PER_THREAD; k++) {
            v[k] = srcVec[base + k * wg];
        }
        [[unroll]] for (uint k = 0; k < VECS_PER_THREAD; k++) {
            dstVec[base + k * wg] = v[k];
        }
    } else if (first < nvec) {
        for (uint k = 0; k < VECS_PER_THREAD; k++) {
            uint i = base + k * wg;
            if (i < nvec) {
                dstVec[i] = srcVec[i];
            }
        }
    }
    // A loop, since a workgroup may have fewer than 3 invocations.
    if (linearWorkgroup() == 0) {
        for (uint i = nvec * 4 + gl_LocalInvocationID.x; i < n; i += wg) {
            dstWord[i] = srcWord[i];
        }
    }
}
