#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// radix_lanes_count64: the count of a lane-serial radix sort pass with 64-bit words
// (radix_lanes_count.glsl), for devices with shaderInt64.
#define INT64 1
#include "radix_lanes_count.glsl"
