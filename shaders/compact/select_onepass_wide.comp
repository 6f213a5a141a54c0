#version 450
// select_onepass_wide: select_onepass.glsl with WINDOWS, for inputs past
// one binding: one dispatch per input window, the output bound as up to
// four windows. The host clears status before the first dispatch.
#define WINDOWS 1
#include "select_onepass.glsl"
