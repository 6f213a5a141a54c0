#version 450
// scan_bykey: scan_bykey.glsl for sums of uint32 and int32 values
// (wrapping).
#include "scan_bykey.glsl"
