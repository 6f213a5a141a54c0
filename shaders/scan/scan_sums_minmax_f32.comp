#version 450
// scan_sums_minmax_f32: scan_sums.glsl for min and max (OP) of keys of
// float32.
#define SCAN_MINMAX
#define SCAN_F32
#include "scan_sums.glsl"
