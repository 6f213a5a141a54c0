#version 450
// scan_bykey_minmax: scan_bykey.glsl for min and max (OP) of uint32 and
// int32 values (ELEM_TYPE).
#define SCAN_MINMAX
#include "scan_bykey.glsl"
