#version 450
// radix_onesweep_wide: radix_onesweep.glsl with WINDOWS: past one
// binding, the inputs bound as a window of whole tiles a dispatch and the
// outputs as up to four windows.
#define WINDOWS 1
#include "radix_onesweep.glsl"
