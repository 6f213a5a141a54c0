// Shared helpers for vkcompact's compute shaders.
//
// Grids: the pipeline layer splits a workgroup count above
// maxComputeWorkGroupCount[0] over a 2D grid (x, y). linearWorkgroup()
// numbers the workgroups 0, 1, ... in x-major order; a grid may hold a few
// more workgroups than asked for, so kernels bound their work by their
// element counts, never by the grid.

uint linearWorkgroup() {
    return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
}

// GPU-side element counts (compact.Buffers.Count and the like). A kernel
// that can take its element count from the GPU binds the count word's
// range from its offset rounded down to minStorageBufferOffsetAlignment
// (so that any 4-byte aligned word chains: the second count of a result
// block at byte 4, where the alignment is 256), and gets countOn in its
// push constants: 0 without a count (the binding is then some other
// range, ignored), else 1 + the word's index in the binding
// (internal/bufcheck.CountWord). countWord(countOn) is that index (0
// without a count, a word any binding holds). countedElems clamps a
// segment of n elements, whose first element is first of the whole
// input, to the count: the elements of the segment below the count.
uint countWord(uint countOn) {
    return countOn == 0 ? 0 : countOn - 1;
}

uint countedElems(uint n, uint first, uint countOn, uint count) {
    if (countOn == 0) {
        return n;
    }
    return count > first ? min(n, count - first) : 0;
}
