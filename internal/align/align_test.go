package align

import "testing"

func TestAlign(t *testing.T) {
	for _, c := range []struct{ a, b, div, up uint64 }{
		{0, 4, 0, 0}, {1, 4, 1, 4}, {4, 4, 1, 4}, {5, 4, 2, 8}, {255, 256, 1, 256}, {257, 256, 2, 512}, {7, 1, 7, 7},
	} {
		if d, u := CeilDiv(c.a, c.b), Up(c.a, c.b); d != c.div || u != c.up {
			t.Errorf("CeilDiv(%d, %d), Up = %d, %d; want %d, %d", c.a, c.b, d, u, c.div, c.up)
		}
	}
}
