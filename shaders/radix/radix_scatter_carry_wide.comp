#version 450
// radix_scatter_carry_wide: radix_scatter.glsl with CARRY and WINDOWS
// (radix_scatter_carry.comp past one binding).
#define CARRY 1
#define WINDOWS 1
#include "radix_scatter.glsl"
