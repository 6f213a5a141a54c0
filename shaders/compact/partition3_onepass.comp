#version 450
// partition3_onepass: partition3_onepass.glsl within one binding, past
// tiling.SelfResetMaxTiles tiles; the host clears status before every
// pass.
#include "partition3_onepass.glsl"
