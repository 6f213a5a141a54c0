#version 450
// scan_reduce: scan_reduce.glsl for sums (uint32 and int32 wrapping,
// float32).
#include "scan_reduce.glsl"
