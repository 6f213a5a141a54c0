#version 450
// scan_apply_minmax_f32: scan_apply.glsl for min and max (OP) of
// float32.
#define SCAN_MINMAX
#define SCAN_F32
#include "scan_apply.glsl"
