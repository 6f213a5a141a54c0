#version 450
// select_onepass_reset_runs: with the neighbour predicates (NEIGHBOUR_PREDS); select_onepass.glsl with SELF_RESET: the pass
// sets its status words back to zero as it ends (tile_reset.glsl).
#define SELF_RESET 1
#define NEIGHBOUR_PREDS 1
#include "select_onepass.glsl"
