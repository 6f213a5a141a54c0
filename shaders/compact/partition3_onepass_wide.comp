#version 450
// partition3_onepass_wide: partition3_onepass.glsl with WINDOWS, for
// inputs past one binding: one dispatch per input window, each output
// bound as up to four windows. The host clears status before the first
// dispatch.
#define WINDOWS 1
#include "partition3_onepass.glsl"
