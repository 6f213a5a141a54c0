#version 450
#extension GL_GOOGLE_include_directive : require
// radix_lanes_count: the count of a lane-serial radix sort pass in 32-bit words
// (radix_lanes_count.glsl).
#include "radix_lanes_count.glsl"
