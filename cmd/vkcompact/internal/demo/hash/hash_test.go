package hash

import "testing"

// TestPCG pins the hash to values the shaders must reproduce, and checks
// Unit's range and exactness.
func TestPCG(t *testing.T) {
	for _, c := range [][2]uint32{{0, 0x07bb2fe2}, {1, 0xa8beea3c}, {0xffffffff, 0xe62a4902}} {
		if got := PCG(c[0]); got != c[1] {
			t.Errorf("PCG(%#x) = %#x, want %#x", c[0], got, c[1])
		}
	}
	if Unit(0) != 0 || Unit(0xffffffff) != 1-1.0/16777216 || Unit(0x80000000) != 0.5 {
		t.Errorf("Unit: %g %g %g", Unit(0), Unit(0xffffffff), Unit(0x80000000))
	}
}
