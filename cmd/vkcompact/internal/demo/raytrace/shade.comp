#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// shade: one bounce of every ray in the queue, dispatched indirectly. The
// rays entering the bounce are the first count[0] of the queue: the live
// ones after a compaction, or all N slots uncompacted, where the dead
// rays are skipped. A ray that ends writes its light (if any: the sky or a
// lamp) to its path's radiance slot, the only write to that slot since
// generate zeroed it, and marks itself dead; one that goes on is replaced
// by its continuation, and counts[bounce + 1] adds it up.
//
// Bindings: 0 the ray queue, 1 radiance (3 floats per path), 2 the bounce
// counters, 3 the scene, 4 the count of rays in the queue (a word of a
// result block).

#define SCENE_BINDING 3
#include "trace.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) buffer Rays { Ray rays[]; };
layout(std430, binding = 1) writeonly buffer Radiance { float radiance[]; };
layout(std430, binding = 2) buffer Counts { uint counts[]; };
layout(std430, binding = 4) readonly buffer Count { uint count[]; };

layout(push_constant) uniform Push {
    uint bounce;
    uint bounces;
} pc;

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= count[0]) {
        return;
    }
    uint path = rays[i].path;
    if (path == DEAD) {
        return; // uncompacted: a ray that ended at an earlier bounce
    }
    Ray r = rays[i];
    vec3 o = vec3(r.ox, r.oy, r.oz), d = vec3(r.dx, r.dy, r.dz), tp = vec3(r.tr, r.tg, r.tb);
    vec3 light;
    bool lit;
    bool alive = shade(path, pc.bounce, pc.bounces, o, d, tp, light, lit);
    if (alive) {
        rays[i] = Ray(path, o.x, o.y, o.z, d.x, d.y, d.z, tp.x, tp.y, tp.z);
    } else {
        rays[i].path = DEAD;
        if (lit) {
            radiance[3u * path] = light.x;
            radiance[3u * path + 1u] = light.y;
            radiance[3u * path + 2u] = light.z;
        }
    }
    uint continuing = subgroupAdd(alive ? 1u : 0u);
    if (subgroupElect() && continuing != 0u) {
        atomicAdd(counts[pc.bounce + 1u], continuing);
    }
}
