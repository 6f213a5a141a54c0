#version 450
// partition3_onepass_reset: partition3_onepass.glsl with SELF_RESET: the
// pass sets its status words back to zero as it ends (tile_reset.glsl).
#define SELF_RESET 1
#include "partition3_onepass.glsl"
