#version 450
// scan_reduce_minmax: scan_reduce.glsl for min and max (OP) of uint32
// and int32 (KEY_TYPE).
#define SCAN_MINMAX
#include "scan_reduce.glsl"
