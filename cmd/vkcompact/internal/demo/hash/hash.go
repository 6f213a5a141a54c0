// Package hash is the integer hash that the demos' shaders draw their
// random numbers from (cmd/vkcompact/internal/demo/particles, cmd/vkcompact/internal/demo/raytrace), for their
// Go references, which must draw the same numbers bit for bit.
package hash

// PCG is the PCG-RXS-M-XS hash (Jarzynski and Olano, "Hash Functions for
// GPU Rendering", 2020), as the shaders write it.
func PCG(v uint32) uint32 {
	state := v*747796405 + 2891336453
	word := ((state >> ((state >> 28) + 4)) ^ state) * 277803737
	return (word >> 22) ^ word
}

// Unit turns a hash into a float32 in [0, 1): its top 24 bits, exactly.
// The conversion of the product keeps a caller's sum from fusing it (the
// product is exact, so a fused result would be the same, but the shaders'
// precise arithmetic and this one should not depend on that).
func Unit(h uint32) float32 {
	return float32(float32(h>>8) * (1.0 / 16777216.0))
}
