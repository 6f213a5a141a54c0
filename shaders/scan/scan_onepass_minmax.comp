#version 450
// scan_onepass_minmax: scan_onepass.glsl for min and max (OP) of uint32
// and int32 (KEY_TYPE).
#define SCAN_MINMAX
#include "scan_onepass.glsl"
