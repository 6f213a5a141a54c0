#version 450
// scan_reduce_minmax_f32: scan_reduce.glsl for min and max (OP) of
// float32.
#define SCAN_MINMAX
#define SCAN_F32
#include "scan_reduce.glsl"
