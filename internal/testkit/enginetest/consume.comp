#version 450
// consume: the pass after the compaction, dispatched indirectly from the
// VkDispatchIndirectCommand in the compaction's result block. The grid is
// rounded up to whole workgroups (and may be two-dimensional), so each
// invocation linearises its workgroup and stops at the kept count, which
// it reads from the result block. Invocation i writes a hash of kept
// particle i to out[i].
//
// Bindings: 0 the particles (the kept ones first), 1 the result block's
// first 16 bytes (kept, rejected, total), 2 the output words.

// The compaction's Options.GroupSize must match (consumeGroupSize in the
// test).
layout(local_size_x = 32) in;

struct Particle {
    vec3 pos;
    uint id;
    vec3 vel;
    float life;
};

layout(std430, binding = 0) readonly buffer Particles { Particle particles[]; };
layout(std430, binding = 1) readonly buffer Result { uint kept; };
layout(std430, binding = 2) writeonly buffer Out { uint words[]; };

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= kept) {
        return;
    }
    Particle p = particles[i];
    words[i] = (p.id * 2654435761u) ^ floatBitsToUint(p.life) ^ (floatBitsToUint(p.pos.x) >> 3);
}
