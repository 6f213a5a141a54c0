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
// that can take its element count from the GPU binds the count word
// (bound to some other range, and ignored, when countOn is 0) and gets
// countOn in its push constants. countedElems clamps a segment of n
// elements, whose first element is first of the whole input, to the
// count: the elements of the segment below the count.
uint countedElems(uint n, uint first, uint countOn, uint count) {
    if (countOn == 0) {
        return n;
    }
    return count > first ? min(n, count - first) : 0;
}
