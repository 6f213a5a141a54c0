// trace.glsl: what generate.comp and shade.comp share: the ray, the scene,
// and the tracer's arithmetic. trace.go and arith.go repeat every function
// here operation for operation, and the Go reference must agree with the
// GPU, so change both together.
//
// Every float operation is an addition, subtraction or multiplication,
// each correctly rounded in Vulkan, marked precise (NoContraction) so that
// none is fused into an FMA; comparisons and selections are exact. No
// division, sqrt, inversesqrt, normalize, dot or transcendental function
// is used: their precision is the driver's. rsqrt_ and recip_ refine an
// integer first guess with Newton steps instead. Constants are exact in
// binary, and the scene's numbers come from the Go side as bits.
//
// The includer defines SCENE_BINDING before including this file.

const uint DEAD = 0xffffffffu;          // a dead ray's path
const float T_MIN = 1.0 / 4096.0;       // nearer hits are the surface the ray leaves
const float FAR = 1e30;                 // beyond any hit
const float OFFSET = 1.0 / 1024.0;      // a continuing ray starts this far off its surface
const float MIN_AXIS = 1.0 / 1048576.0; // a plane nearly parallel to the ray is missed
const uint ROULETTE_FROM = 2u;          // Russian roulette from this bounce on
const float ROULETTE_MIN = 0.0625;
const float ROULETTE_MAX = 0.9375;
const int DISK_TRIES = 32;
const float SUN_CUT = 0.5;
const int SUN_SQUARINGS = 4; // the sun's lobe is dot(d, sun)^16

const uint DIFFUSE = 0u, MIRROR = 1u, EMISSIVE = 2u, CHECKER = 3u;

// Ray: 40 bytes. The compaction keeps the rays whose path is not DEAD.
struct Ray {
    uint path; // pixel * spp + sample
    float ox, oy, oz;
    float dx, dy, dz;
    float tr, tg, tb; // throughput
};

struct Material {
    uint kind;
    float ar, ag, ab; // albedo or tint
    float br, bg, bb; // emission, or the checker's second albedo
    uint pad;
};

struct Sphere {
    float cx, cy, cz, r2, invR;
    uint mat;
    uint pad0, pad1;
};

// Plane: coordinate axis == pos, coordinates (axis+1)%3 and (axis+2)%3
// within [lo0, hi0] and [lo1, hi1].
struct Plane {
    uint axis;
    float pos, lo0, lo1, hi0, hi1;
    uint mat, pad;
};

layout(std430, binding = SCENE_BINDING) readonly buffer Scene {
    float camera[12]; // origin, corner, du, dv
    float skyc[12];   // horizon, zenith, sun, sun colour
    uint nSpheres, nPlanes, pad0, pad1;
    Material mats[16];
    Sphere spheres[16];
    Plane planes[4];
} scene;

vec3 cameraVec(int k) { return vec3(scene.camera[3 * k], scene.camera[3 * k + 1], scene.camera[3 * k + 2]); }
vec3 skyVec(int k) { return vec3(scene.skyc[3 * k], scene.skyc[3 * k + 1], scene.skyc[3 * k + 2]); }

float dot3(vec3 a, vec3 b) {
    precise float r = (a.x * b.x + a.y * b.y) + a.z * b.z;
    return r;
}

// rsqrt_ approximates 1/sqrt(x), x positive and normal: Lomont's
// constant, then three Newton steps.
float rsqrt_(float x) {
    precise float y = uintBitsToFloat(0x5f375a86u - (floatBitsToUint(x) >> 1));
    precise float h = 0.5 * x;
    for (int k = 0; k < 3; k++) {
        y = y * (1.5 - (h * y) * y);
    }
    return y;
}

float sqrtPos(float x) {
    precise float r = x * rsqrt_(x);
    return r;
}

// recip_ approximates 1/x, 2^-64 <= |x| <= 2^64: a guess within 12%, then
// four Newton steps.
float recip_(float x) {
    bool neg = x < 0.0;
    precise float ax = neg ? -x : x;
    precise float y = uintBitsToFloat(0x7ef311c3u - floatBitsToUint(ax));
    for (int k = 0; k < 4; k++) {
        y = y * (2.0 - ax * y);
    }
    return neg ? -y : y;
}

vec3 normalize3(vec3 a) {
    precise vec3 r = a * rsqrt_(dot3(a, a));
    return r;
}

// pcg is the PCG-RXS-M-XS integer hash (Jarzynski and Olano, 2020).
uint pcg(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// A path's random numbers at step k (0 the camera, b+1 bounce b) hash its
// index and k, never its queue slot.
uint stream(uint path, uint k) { return pcg(path ^ pcg(k)); }

// next returns the stream's next number in [0, 1): 24 bits, exactly.
float next(inout uint h) {
    h = pcg(h);
    precise float u = float(h >> 8) * (1.0 / 16777216.0);
    return u;
}

// Hit kinds.
const uint NONE = 0u, SPHERE = 1u, PLANE = 2u;

// intersect finds the nearest surface along o + t*d, t > T_MIN.
float intersect(vec3 o, vec3 d, out uint kind, out uint index) {
    precise float best = FAR;
    kind = NONE;
    index = 0u;
    for (uint k = 0u; k < scene.nSpheres; k++) {
        Sphere s = scene.spheres[k];
        precise vec3 oc = o - vec3(s.cx, s.cy, s.cz);
        precise float b = dot3(oc, d);
        precise float c = dot3(oc, oc) - s.r2;
        precise float disc = b * b - c;
        if (disc > 0.0) {
            precise float q = sqrtPos(disc);
            precise float t = -b - q;
            if (!(t > T_MIN)) {
                t = -b + q;
            }
            if (t > T_MIN && t < best) {
                best = t;
                kind = SPHERE;
                index = k;
            }
        }
    }
    for (uint k = 0u; k < scene.nPlanes; k++) {
        Plane pl = scene.planes[k];
        uint a = pl.axis;
        float da = d[a];
        if (!(da > MIN_AXIS || da < -MIN_AXIS)) {
            continue;
        }
        precise float t = (pl.pos - o[a]) * recip_(da);
        if (!(t > T_MIN && t < best)) {
            continue;
        }
        uint u = (a + 1u) % 3u, v = (a + 2u) % 3u;
        precise float hu = o[u] + t * d[u];
        precise float hv = o[v] + t * d[v];
        if (hu >= pl.lo0 && hu <= pl.hi0 && hv >= pl.lo1 && hv <= pl.hi1) {
            best = t;
            kind = PLANE;
            index = k;
        }
    }
    return best;
}

// sky is the light from direction d: a gradient and a soft sun.
vec3 sky(vec3 d) {
    precise float t = d.y > 0.5 ? 1.0 : (d.y > 0.0 ? d.y * 2.0 : 0.0);
    vec3 horizon = skyVec(0);
    precise vec3 col = horizon + (skyVec(1) - horizon) * t;
    precise float c = dot3(d, skyVec(2));
    if (c > SUN_CUT) {
        for (int k = 0; k < SUN_SQUARINGS; k++) {
            c = c * c;
        }
        col = col + skyVec(3) * c;
    }
    return col;
}

int floorInt(float x) { return int(floor(clamp(x, -1048576.0, 1048576.0))); }

// lambert returns a cosine-weighted direction about the unit normal n: a
// point of the unit disk (by rejection) lifted onto the hemisphere, in
// Duff et al.'s orthonormal basis.
vec3 lambert(vec3 n, inout uint h) {
    precise float x = 0.0, y = 0.0, r2 = 0.0;
    for (int k = 0; k < DISK_TRIES; k++) {
        x = next(h) * 2.0 - 1.0;
        y = next(h) * 2.0 - 1.0;
        r2 = x * x + y * y;
        if (r2 < 1.0) {
            break;
        }
    }
    if (!(r2 < 1.0)) {
        x = 0.0;
        y = 0.0;
        r2 = 0.0;
    }
    precise float z = sqrtPos(1.0 - r2);
    precise float sgn = n.z >= 0.0 ? 1.0 : -1.0;
    precise float a = -recip_(sgn + n.z);
    precise float b = (n.x * n.y) * a;
    precise vec3 t = vec3(1.0 + ((sgn * n.x) * n.x) * a, sgn * b, -sgn * n.x);
    precise vec3 bt = vec3(b, sgn + (n.y * n.y) * a, -n.y);
    precise vec3 dir = (t * x + bt * y) + n * z;
    return dir;
}

// shade takes the ray (o, d, tp) of path through bounce b of bounces: it
// returns true with the continuation in o, d and tp, or false when the
// path ends, with its light in light when lit.
bool shade(uint path, uint b, uint bounces, inout vec3 o, inout vec3 d, inout vec3 tp, out vec3 light, out bool lit) {
    light = vec3(0.0);
    lit = false;
    uint kind, index;
    float t = intersect(o, d, kind, index);
    if (kind == NONE) {
        precise vec3 l = tp * sky(d);
        light = l;
        lit = true;
        return false;
    }
    precise vec3 p = o + d * t;
    precise vec3 n = vec3(0.0);
    uint mi;
    if (kind == SPHERE) {
        Sphere s = scene.spheres[index];
        n = (p - vec3(s.cx, s.cy, s.cz)) * s.invR;
        mi = s.mat;
    } else {
        Plane pl = scene.planes[index];
        n[pl.axis] = d[pl.axis] < 0.0 ? 1.0 : -1.0;
        mi = pl.mat;
    }
    Material m = scene.mats[mi];
    if (m.kind == EMISSIVE) {
        precise vec3 l = tp * vec3(m.br, m.bg, m.bb);
        light = l;
        lit = true;
        return false;
    }
    if (b + 1u >= bounces) {
        return false;
    }
    uint h = stream(path, b + 1u);
    precise vec3 nd;
    precise vec3 albedo = vec3(m.ar, m.ag, m.ab);
    if (m.kind == MIRROR) {
        nd = d - n * (2.0 * dot3(d, n));
    } else {
        if (m.kind == CHECKER && ((floorInt(p.x) + floorInt(p.z)) & 1) != 0) {
            albedo = vec3(m.br, m.bg, m.bb);
        }
        nd = lambert(n, h);
    }
    precise vec3 ntp = tp * albedo;
    if (b >= ROULETTE_FROM) {
        float q = ntp.x > (ntp.y > ntp.z ? ntp.y : ntp.z) ? ntp.x : (ntp.y > ntp.z ? ntp.y : ntp.z);
        q = q < ROULETTE_MIN ? ROULETTE_MIN : (q > ROULETTE_MAX ? ROULETTE_MAX : q);
        if (next(h) >= q) {
            return false;
        }
        ntp = ntp * recip_(q);
    }
    precise vec3 no = p + n * OFFSET;
    o = no;
    d = nd;
    tp = ntp;
    return true;
}
