// grid.glsl: the particle grid's shared definitions (grid.go holds the
// same in Go).

struct Particle {
    float px, py, pz;
    float vx, vy, vz;
    float age, lifetime;
};

const uint GRID = 128u;           // cells per axis
const float CELLS_PER_M = 32.0;   // a cell is 1/32 m
const float HALF = 2.0;           // the box is [-HALF, HALF] in x and z

uint axis(float v) {
    precise float c = v * CELLS_PER_M;
    // c >= 0 here for x and z (the walls) and y (the floor); clamp guards
    // the top and rounding at the walls.
    return min(uint(max(c, 0.0)), GRID - 1u);
}

uvec3 coordsOf(float x, float y, float z) {
    precise float sx = x + HALF;
    precise float sz = z + HALF;
    return uvec3(axis(sx), axis(y), axis(sz));
}

uint cellOf(float x, float y, float z) {
    uvec3 c = coordsOf(x, y, z);
    return (c.y * GRID + c.z) * GRID + c.x;
}
