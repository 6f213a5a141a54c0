#version 450
// scan_bykey_minmax_f32: scan_bykey.glsl for min and max (OP) of
// float32 values.
#define SCAN_MINMAX
#define SCAN_F32
#include "scan_bykey.glsl"
