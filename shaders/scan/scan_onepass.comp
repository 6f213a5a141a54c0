#version 450
// scan_onepass: scan_onepass.glsl for sums of uint32 and int32
// (wrapping).
#include "scan_onepass.glsl"
