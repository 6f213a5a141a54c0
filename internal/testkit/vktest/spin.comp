#version 450
// spin: work that runs until the host lets it end, so that a test holds
// real work in flight for as long as it needs, whatever the driver's
// speed (vktest.Spin records it). The host sets words[0] (go); every
// invocation polls it until it is set, and adds its polls to words[2];
// invocation 0 counts the workgroup begun in words[1] and, after the
// workgroup's barrier, finished in words[3]. The memory must be
// host-visible and host-coherent; every access is atomic, so no poll is
// hoisted out of its loop. The workgroup size is specialization constant
// 0.
//
// lavapipe leaves an invocation's loops after 65535 iterations in all (a
// guard against shaders that never end), so each iteration polls 256
// times, unrolled: at most 2^24 polls an invocation there, and it runs a
// workgroup's SIMD batches one after the other (about 3 s a batch of 8
// lanes). Every invocation polls: lanes left idle by a small workgroup
// would run their loops to lavapipe's limit whether go is set or not.
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) buffer Words {
    uint words[4];
};

#define P1 atomicOr(words[0], 0u)
#define P4 (P1 | P1 | P1 | P1)
#define P16 (P4 | P4 | P4 | P4)

void main() {
    bool first = gl_LocalInvocationIndex == 0u;
    if (first) {
        atomicAdd(words[1], 1u);
    }
    uint polls = 1u;
    uint seen = P1;
    while (seen == 0u) {
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        seen |= P16;
        polls += 256u;
    }
    atomicAdd(words[2], polls);
    barrier();
    if (first) {
        atomicAdd(words[3], 1u);
    }
}
