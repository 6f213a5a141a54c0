#version 450
// select_onepass: select_onepass.glsl; the host clears status before
// every pass.
#include "select_onepass.glsl"
