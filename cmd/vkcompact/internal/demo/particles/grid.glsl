// grid.glsl: the swarm's grid (swarm.go, grid_ref.go hold the same in
// Go). Positions are in cells: a cell is 1 on a side, 1 is the
// interaction radius, and the cube is pc.side cells along each axis.

struct Particle {
    float px, py, pz;
    float vx, vy, vz;
    float age, lifetime;
};

// axis truncates a coordinate to its cell, clamped to the cube (a
// particle on the far face, or past it by rounding, takes the last cell).
uint axis(float v, uint side) {
    return min(uint(max(v, 0.0)), side - 1u);
}

uvec3 coordsOf(float x, float y, float z, uint side) {
    return uvec3(axis(x, side), axis(y, side), axis(z, side));
}

uint cellOf(float x, float y, float z, uint side) {
    uvec3 c = coordsOf(x, y, z, side);
    return (c.y * side + c.z) * side + c.x;
}
