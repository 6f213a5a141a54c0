#version 450
// scan_sums: scan_sums.glsl for sums (uint32 and int32 wrapping,
// float32).
#include "scan_sums.glsl"
