#version 450
// resolve: each pixel's colour, one invocation per pixel: the sum of its
// spp samples' radiance in sample order, times 1/spp (given as bits, so
// that no division's 2.5 ULP enters it). The Go reference sums the same
// way; additions and multiplications are correctly rounded, and precise.
//
// Bindings: 0 radiance (3 floats per path), 1 pixels (3 floats each).

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Radiance { float radiance[]; };
layout(std430, binding = 1) writeonly buffer Pixels { float pixels[]; };

layout(push_constant) uniform Push {
    uint pixelCount;
    uint spp;
    float invSpp; // float32(1) / float32(spp), rounded once on the host
} pc;

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint p = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (p >= pc.pixelCount) {
        return;
    }
    uint first = 3u * p * pc.spp;
    for (uint c = 0u; c < 3u; c++) {
        precise float sum = radiance[first + c];
        for (uint s = 1u; s < pc.spp; s++) {
            sum = sum + radiance[first + 3u * s + c];
        }
        precise float mean = sum * pc.invSpp;
        pixels[3u * p + c] = mean;
    }
}
