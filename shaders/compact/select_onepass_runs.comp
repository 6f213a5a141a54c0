#version 450
// select_onepass_runs: with the neighbour predicates (NEIGHBOUR_PREDS); select_onepass.glsl; the host clears status before
// every pass.
#define NEIGHBOUR_PREDS 1
#include "select_onepass.glsl"
