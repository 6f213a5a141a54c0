#version 450
#extension GL_GOOGLE_include_directive : require
// generate: the camera rays of a frame, one invocation per path. Path i =
// pixel * spp + sample, pixel = y * width + x, gets its ray through
// (x, y) jittered by its first two numbers, throughput 1, in queue slot i;
// its radiance slot is zeroed. Invocation 0 also writes the first result
// block (the N rays entering bounce 0 and the shade's indirect dispatch
// over them) and resets the bounce counters: counts[0] = N, the rest 0.
//
// Bindings: 0 the ray queue, 1 radiance (3 floats per path), 2 the bounce
// counters (one word per bounce), 3 the first result block (12 words, as
// compact.ResultSize lays it out), 4 the scene.

#define SCENE_BINDING 4
#include "trace.glsl"

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) writeonly buffer Rays { Ray rays[]; };
layout(std430, binding = 1) writeonly buffer Radiance { float radiance[]; };
layout(std430, binding = 2) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 3) writeonly buffer Block { uint block[]; };

layout(push_constant) uniform Push {
    uint width;
    uint height;
    uint spp;
    uint bounces;
    uint groupsX; // the shade's dispatch over N rays: groupsX x groupsY
    uint groupsY;
} pc;

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint i = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    uint n = pc.width * pc.height * pc.spp;
    if (i == 0u) {
        block[0] = n; // kept, rejected, total, as a compaction's result
        block[1] = 0u;
        block[2] = n;
        block[3] = 0u;
        block[4] = pc.groupsX;
        block[5] = pc.groupsY;
        block[6] = 1u;
        block[7] = 0u;
        block[8] = n; // a VkDrawIndirectCommand, unused
        block[9] = 1u;
        block[10] = 0u;
        block[11] = 0u;
        counts[0] = n;
        for (uint b = 1u; b < pc.bounces; b++) {
            counts[b] = 0u;
        }
    }
    if (i >= n) {
        return;
    }
    uint pixel = i / pc.spp;
    uint x = pixel % pc.width, y = pixel / pc.width;
    uint h = stream(i, 0u);
    precise float fx = float(x) + next(h);
    precise float fy = float(y) + next(h);
    precise vec3 d = (cameraVec(1) + cameraVec(2) * fx) + cameraVec(3) * fy;
    vec3 dir = normalize3(d);
    vec3 o = cameraVec(0);
    rays[i] = Ray(i, o.x, o.y, o.z, dir.x, dir.y, dir.z, 1.0, 1.0, 1.0);
    radiance[3u * i] = 0.0;
    radiance[3u * i + 1u] = 0.0;
    radiance[3u * i + 2u] = 0.0;
}
