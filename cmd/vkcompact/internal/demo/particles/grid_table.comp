#version 450
// grid_table: turns the run-length encoding of the sorted cells into the
// grid's lookup table. Invocation j < M (the runs: occupied cells) writes,
// for cell c = unique[j], start[c] = starts[j] (the exclusive prefix sum
// of the run lengths: the cell's first slot in the sorted order),
// count[c] = lengths[j] and stamp[c] = the frame. A cell whose stamp is
// not this frame's is empty: nothing clears the table between frames.
// Invocation 0 also records M in history[frame].
//
// Dispatched over the capacity (M <= K <= capacity); bounded by M.
//
// Bindings: 0 the encoding's result block (M at word runsWord), 1 unique cells,
// 2 lengths, 3 starts, 4 the table (3 words per cell: start, count,
// stamp), 5 history.

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer RunsResult { uint runsResult[]; };
layout(std430, binding = 1) readonly buffer Unique { uint unique[]; };
layout(std430, binding = 2) readonly buffer Lengths { uint lengths[]; };
layout(std430, binding = 3) readonly buffer Starts { uint starts[]; };
layout(std430, binding = 4) writeonly buffer Table { uint table[]; };
layout(std430, binding = 5) writeonly buffer History { uint history[]; };

layout(push_constant) uniform Push {
    uint frame;
    uint runsWord; // the word of the run count in the encoding's result block
} pc;

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint j = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint runs = runsResult[pc.runsWord];
    if (j == 0) {
        history[pc.frame] = runs;
    }
    if (j >= runs) {
        return;
    }
    uint c = unique[j];
    table[3 * c] = starts[j];
    table[3 * c + 1] = lengths[j];
    table[3 * c + 2] = pc.frame;
}
