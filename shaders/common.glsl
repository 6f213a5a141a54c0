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
