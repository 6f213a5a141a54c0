// The result block of a selection (compact.ResultSize bytes), written by
// select_scan and select_onepass, which declare result[] (12 words).

// gridFor spreads groups over x and y within maxX
// (maxComputeWorkGroupCount[0]).
uvec3 gridFor(uint groups, uint maxX) {
    if (groups == 0) {
        return uvec3(0, 1, 1);
    }
    uint y = (groups - 1) / maxX + 1;
    return uvec3((groups - 1) / y + 1, y, 1);
}

// writeResult writes the kept, rejected and total counts of n elements,
// the VkDispatchIndirectCommand covering the kept ones in workgroups of
// groupSize, and the VkDrawIndirectCommand drawing them.
void writeResult(uint kept, uint n, uint groupSize, uint maxX) {
    result[0] = kept;
    result[1] = n - kept;
    result[2] = n;
    result[3] = 0;
    uvec3 g = gridFor(kept == 0 ? 0 : (kept - 1) / groupSize + 1, maxX);
    result[4] = g.x;
    result[5] = g.y;
    result[6] = g.z;
    result[7] = 0;
    result[8] = kept; // VkDrawIndirectCommand: vertexCount
    result[9] = 1;    // instanceCount
    result[10] = 0;   // firstVertex
    result[11] = 0;   // firstInstance
}
