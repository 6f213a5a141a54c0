#version 450
// radix_scatter: radix_scatter.glsl, writing each round's runs out whole.
#include "radix_scatter.glsl"
