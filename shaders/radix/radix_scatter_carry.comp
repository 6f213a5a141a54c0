#version 450
// radix_scatter_carry: radix_scatter.glsl with CARRY: each round holds its
// runs' last partial block of SECTOR slots back for the next round.
#define CARRY 1
#include "radix_scatter.glsl"
