#version 450
// scan_apply_minmax: scan_apply.glsl for min and max (OP) of uint32 and
// int32 (KEY_TYPE).
#define SCAN_MINMAX
#include "scan_apply.glsl"
