#version 450
#extension GL_GOOGLE_include_directive : require
// radix_lanes_scatter: the scatter of a lane-serial radix sort pass in 32-bit words
// (radix_lanes_scatter.glsl).
#include "radix_lanes_scatter.glsl"
