#version 450
// radix_onesweep: radix_onesweep.glsl, the keys in and out in one binding
// each.
#include "radix_onesweep.glsl"
