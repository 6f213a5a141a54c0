#version 450
// scan_bykey_f32: scan_bykey.glsl for sums of float32 values, in a
// fixed order.
#define SCAN_F32
#include "scan_bykey.glsl"
