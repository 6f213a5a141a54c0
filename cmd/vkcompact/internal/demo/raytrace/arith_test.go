package raytrace

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNewton checks rsqrt, sqrtPos and recip against float64 over the
// ranges the tracers use them in: a few ULP of float32.
func TestNewton(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const tol = 4.0 / (1 << 24) // 4 ULP at 1, relative
	for range 200000 {
		x := float32(math.Exp2(rnd.Float64()*80 - 40)) // 2^-40 to 2^40
		if e := math.Abs(float64(rsqrt(x))*math.Sqrt(float64(x)) - 1); e > tol {
			t.Fatalf("rsqrt(%g) = %g: relative error %g", x, rsqrt(x), e)
		}
		if e := math.Abs(float64(sqrtPos(x))/math.Sqrt(float64(x)) - 1); e > tol {
			t.Fatalf("sqrtPos(%g) = %g: relative error %g", x, sqrtPos(x), e)
		}
		for _, y := range []float32{x, -x} {
			if e := math.Abs(float64(recip(y))*float64(y) - 1); e > tol {
				t.Fatalf("recip(%g) = %g: relative error %g", y, recip(y), e)
			}
		}
	}
}

// TestStream checks that a path's numbers depend on its index and step,
// and lie in [0, 1).
func TestStream(t *testing.T) {
	seen := map[float32]int{}
	for path := range uint32(1000) {
		for k := range uint32(10) {
			r, again := stream(path, k), stream(path, k)
			for range 3 {
				u := r.next()
				if u < 0 || u >= 1 {
					t.Fatalf("stream(%d, %d): %g", path, k, u)
				}
				seen[u]++
				if again.next() != u {
					t.Fatal("stream is not deterministic")
				}
			}
		}
	}
	if len(seen) < 29900 { // of 30000 draws from 2^24 values
		t.Errorf("%d distinct numbers of 30000", len(seen))
	}
}

// TestVec checks the vector helpers against float64 on simple values.
func TestVec(t *testing.T) {
	a, b := vec{1, 2, 3}, vec{-4, 0.5, 2}
	if got := a.dot(b); got != 3 {
		t.Errorf("dot %g, want 3", got)
	}
	if got := a.add(b).sub(b); got != a {
		t.Errorf("add, sub: %v", got)
	}
	if got := a.mul(b); got != (vec{-4, 1, 6}) {
		t.Errorf("mul %v", got)
	}
	n := vec{3, 0, 4}.normalize()
	if math.Abs(float64(n[0])-0.6) > 1e-7 || math.Abs(float64(n[2])-0.8) > 1e-7 || n[1] != 0 {
		t.Errorf("normalize %v", n)
	}
}
