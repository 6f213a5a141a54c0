#version 450
// scan_apply: scan_apply.glsl for sums (uint32 and int32 wrapping,
// float32).
#include "scan_apply.glsl"
