#version 450
// setup: one invocation at each frame boundary of the particle demo. It
// reads the kept count K that the previous frame's compaction left in its
// result block (K = 0 at frame 0, which reads nothing), records it in
// history[frame], and sizes the frame: n = min(K + spawn, capacity) particles, written to the
// frame block with the update's VkDispatchIndirectCommand, on a 2D grid
// when ceil(n / GROUP) exceeds maxComputeWorkGroupCount[0].
//
// Frame block (uint words): 0 n, the compaction's GPU-side element count;
// 1 K; 2 the frame; 3 unused; 4..6 the dispatch (x, y, 1); 7 unused.
//
// Bindings: 0 the compaction's result block, 1 the frame block, 2 history.

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint GROUP = 64; // the update's workgroup size

layout(std430, binding = 0) readonly buffer Result { uint result[]; };
layout(std430, binding = 1) writeonly buffer Frame { uint block[]; };
layout(std430, binding = 2) writeonly buffer History { uint history[]; };

layout(push_constant) uniform Push {
    uint frame;      // the frame about to start (frames at the end)
    uint spawn;      // particles spawned per frame
    uint capacity;   // the particle buffer's capacity
    uint maxGroupsX; // maxComputeWorkGroupCount[0]
} pc;

void main() {
    if (gl_GlobalInvocationID.x != 0) {
        return;
    }
    // Frame 0 starts empty: the result block holds nothing yet. The
    // clamp only guards the capacity arithmetic.
    uint kept = pc.frame == 0 ? 0 : min(result[0], pc.capacity);
    history[pc.frame] = kept;
    uint n = kept + min(pc.spawn, pc.capacity - kept);
    uint groups = n / GROUP + (n % GROUP != 0 ? 1 : 0);
    uint x = groups, y = 1;
    if (groups > pc.maxGroupsX) {
        y = groups / pc.maxGroupsX + (groups % pc.maxGroupsX != 0 ? 1 : 0);
        x = groups / y + (groups % y != 0 ? 1 : 0);
    }
    block[0] = n;
    block[1] = kept;
    block[2] = pc.frame;
    block[3] = 0;
    block[4] = x;
    block[5] = y;
    block[6] = 1;
    block[7] = 0;
}
