package particles

import (
	"math"
	"strings"
	"testing"
)

// TestSpawn checks the spawn rule's ranges and that it depends on the
// seed, the frame and the index.
func TestSpawn(t *testing.T) {
	seen := map[[8]uint32]bool{}
	for _, seed := range []uint32{0, 1, 0xdeadbeef} {
		for f := range uint32(4) {
			for j := range uint32(256) {
				p := Spawn(seed, f, j)
				if q := Spawn(seed, f, j); p != q {
					t.Fatalf("Spawn(%d, %d, %d) is not deterministic", seed, f, j)
				}
				if p.Age != 0 || p.Lifetime < 0.25 || p.Lifetime >= 1.5 || !p.Alive() {
					t.Errorf("Spawn(%d, %d, %d): age %g, lifetime %g", seed, f, j, p.Age, p.Lifetime)
				}
				if abs(p.Pos[0]) > 0.125 || abs(p.Pos[2]) > 0.125 || p.Pos[1] < 0 || p.Pos[1] >= 0.125 {
					t.Errorf("Spawn(%d, %d, %d): position %v", seed, f, j, p.Pos)
				}
				if abs(p.Vel[0]) > 2 || abs(p.Vel[2]) > 2 || p.Vel[1] < 3 || p.Vel[1] >= 6 {
					t.Errorf("Spawn(%d, %d, %d): velocity %v", seed, f, j, p.Vel)
				}
				seen[particleBits(p)] = true
			}
		}
	}
	if len(seen) != 3*4*256 {
		t.Errorf("%d distinct particles of %d spawned", len(seen), 3*4*256)
	}
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }

// TestStep follows one particle through a bounce off the floor and a wall,
// against values worked out in float64 (every operation here is exact
// or nearly so at these magnitudes).
func TestStep(t *testing.T) {
	p := Particle{Pos: [3]float32{1.99, 0.001, -1.99}, Vel: [3]float32{2, -1, -2}, Lifetime: 1}
	p.Step()
	vx, vy := 2*float64(Drag), (-1+float64(GravityDT))*float64(Drag)
	wantX := 4 - (1.99 + vx*float64(DT))
	wantY := -(0.001 + vy*float64(DT))
	if d := math.Abs(float64(p.Pos[0]) - wantX); d > 1e-6 || p.Vel[0] >= 0 {
		t.Errorf("x %g, vx %g: want %g, reflected off the wall", p.Pos[0], p.Vel[0], wantX)
	}
	if d := math.Abs(float64(p.Pos[2]) + wantX); d > 1e-6 || p.Vel[2] <= 0 {
		t.Errorf("z %g, vz %g: want %g, reflected off the wall", p.Pos[2], p.Vel[2], -wantX)
	}
	if d := math.Abs(float64(p.Pos[1]) - wantY); d > 1e-6 || math.Abs(float64(p.Vel[1])-vy*float64(Bounce)) > 1e-6 {
		t.Errorf("y %g, vy %g: want %g and %g after the floor", p.Pos[1], p.Vel[1], wantY, vy*float64(Bounce))
	}
	if p.Age != DT {
		t.Errorf("age %g, want %g", p.Age, DT)
	}
	for range 63 {
		p.Step()
	}
	if p.Age != 1 || p.Alive() {
		t.Errorf("after 64 frames: age %g, alive %v; want 1 and dead", p.Age, p.Alive())
	}
}

// TestSimulate checks the reference's frame rule: the live count after
// each frame, with the capacity reached, and the order of the survivors.
func TestSimulate(t *testing.T) {
	p := Params{Capacity: 1000, Frames: 100, Spawn: 70, Seed: 3}
	st := Simulate(p)
	full := false
	for f, live := range st.Live {
		prev := uint32(0)
		if f > 0 {
			prev = st.Live[f-1]
		}
		n := prev + min(p.Spawn, p.Capacity-prev)
		if live > n {
			t.Fatalf("frame %d: %d live of %d", f, live, n)
		}
		full = full || n == p.Capacity
		if f < 16 && live != n { // nothing dies younger than 0.25 s
			t.Errorf("frame %d: %d live, want all %d", f, live, n)
		}
	}
	if !full {
		t.Error("the capacity was never reached")
	}
	if got := uint32(len(st.Particles)); got != st.Live[p.Frames-1] {
		t.Fatalf("%d particles, %d live", got, st.Live[p.Frames-1])
	}
	// Survivors stay in spawn order: the older first.
	for i := 1; i < len(st.Particles); i++ {
		if st.Particles[i].Age > st.Particles[i-1].Age {
			t.Fatalf("particle %d (age %g) after a younger one (%g)", i, st.Particles[i].Age, st.Particles[i-1].Age)
		}
	}
	for i := range st.Particles {
		q := &st.Particles[i]
		if !q.Alive() || q.Pos[1] < 0 || abs(q.Pos[0]) > Half || abs(q.Pos[2]) > Half {
			t.Fatalf("particle %d: %+v", i, *q)
		}
	}
	if Compare(Simulate(p), st) != nil {
		t.Error("Simulate is not deterministic")
	}
}

// TestCompare checks that every kind of difference is caught: any bit of
// any field, a missing particle, a live count.
func TestCompare(t *testing.T) {
	want := Simulate(Params{Capacity: 300, Frames: 30, Spawn: 20, Seed: 9})
	clone := func() State {
		return State{Particles: append([]Particle(nil), want.Particles...), Live: append([]uint32(nil), want.Live...)}
	}
	if err := Compare(clone(), want); err != nil {
		t.Fatalf("identical states: %v", err)
	}
	for k := range 8 {
		for _, bit := range []uint{0, 22, 31} {
			got := clone()
			f := fields(&got.Particles[len(got.Particles)/2])[k]
			*f.v = math.Float32frombits(math.Float32bits(*f.v) ^ 1<<bit)
			err := Compare(got, want)
			if err == nil || !strings.Contains(err.Error(), f.name) {
				t.Errorf("bit %d of %s flipped: %v", bit, f.name, err)
			}
		}
	}
	got := clone()
	got.Particles = got.Particles[:len(got.Particles)-1]
	if err := Compare(got, want); err == nil {
		t.Error("a missing particle passed")
	}
	got = clone()
	got.Live[3]++
	if err := Compare(got, want); err == nil || !strings.Contains(err.Error(), "frame 3") {
		t.Errorf("a wrong live count: %v", err)
	}
	got = clone()
	got.Live = got.Live[1:]
	if err := Compare(got, want); err == nil {
		t.Error("a short history passed")
	}
}

func TestCheck(t *testing.T) {
	for _, p := range []Params{{Frames: 1, Spawn: 1}, {Capacity: 1, Spawn: 1}, {Capacity: 1, Frames: MaxFrames + 1, Spawn: 1}, {Capacity: 1, Frames: 1}} {
		if p.Check() == nil {
			t.Errorf("%+v passed", p)
		}
	}
	if err := (Params{Capacity: 1, Frames: 1, Spawn: 1}).Check(); err != nil {
		t.Error(err)
	}
}

// TestDraw checks the picture's size and that particles light it.
func TestDraw(t *testing.T) {
	st := Simulate(Params{Capacity: 2000, Frames: 40, Spawn: 100, Seed: 1})
	img := Draw(st.Particles, 200)
	if b := img.Bounds(); b.Dx() != 200 || b.Dy() != 125 {
		t.Fatalf("bounds %v, want 200x125", b)
	}
	empty := Draw(nil, 200)
	lit := 0
	for i := range img.Pix {
		if img.Pix[i] != empty.Pix[i] {
			lit++
		}
	}
	if lit < 100 {
		t.Errorf("%d bytes lit by %d particles", lit, len(st.Particles))
	}
}
