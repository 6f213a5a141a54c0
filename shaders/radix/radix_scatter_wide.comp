#version 450
// radix_scatter_wide: radix_scatter.glsl with WINDOWS: past one binding,
// the outputs bound as up to four windows.
#define WINDOWS 1
#include "radix_scatter.glsl"
