#version 450
// scan_sums_minmax: scan_sums.glsl for min and max (OP) of keys of
// uint32 and int32 (ELEM_TYPE).
#define SCAN_MINMAX
#include "scan_sums.glsl"
