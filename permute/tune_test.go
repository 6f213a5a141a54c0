package permute

import (
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
)

// TestTuning checks the tuning, a pure function of the device's
// information and the request, on the fake devices: the unit by element
// size (four positions of 4- and 8-byte elements; else the widest vector
// dividing the element), the segments of the in-order side (whole
// multiples of the alignment, one binding each), the defaults, and the
// requests refused naming what was wrong.
func TestTuning(t *testing.T) {
	for _, dev := range fakedev.All {
		for _, c := range []struct {
			size   uint32
			packed bool
			vector uint32
		}{{4, true, 1}, {8, true, 2}, {12, false, 1}, {16, false, 4}, {24, false, 2}, {20, false, 1}, {256, false, 4}} {
			for _, n := range []uint64{0, 1, 1 << 20, MaxElements} {
				p, err := tune(dev, n, Permutation{Elem: vkcompact.Struct(c.size, 0, vkcompact.Uint32)}, 0)
				if err != nil {
					t.Errorf("%s: %d bytes, n=%d: %v", dev.Name, c.size, n, err)
					continue
				}
				tu := p.Tuning()
				if tu.Packed != c.packed || tu.VectorWords != c.vector {
					t.Errorf("%s: %d bytes: packed %v, %d-word vectors; want %v, %d", dev.Name, c.size, tu.Packed, tu.VectorWords, c.packed, c.vector)
				}
				if tu.WorkgroupSize != min(256, dev.MaxWorkgroupInvocations) || tu.LoadsPerLane != 2 {
					t.Errorf("%s: defaults %d invocations, %d loads", dev.Name, tu.WorkgroupSize, tu.LoadsPerLane)
				}
				seg := uint64(tu.SegmentElems)
				if seg*uint64(c.size) > uint64(dev.MaxStorageBufferRange) || seg*4%max(dev.MinStorageBufferOffsetAlignment, 16) != 0 ||
					uint64(tu.Segments) != (n+seg-1)/seg {
					t.Errorf("%s: %d bytes, n=%d: %d segments of %d", dev.Name, c.size, n, tu.Segments, seg)
				}
				if groups := p.groups(min(n, seg)); groups > uint64(dev.MaxWorkgroupCount[0])*uint64(dev.MaxWorkgroupCount[1]) {
					t.Errorf("%s: %d bytes: %d workgroups past the grid", dev.Name, c.size, groups)
				}
			}
		}
		for _, c := range []struct {
			perm Permutation
			n    uint64
			want string
		}{
			{Permutation{Elem: vkcompact.Struct(6, 0, vkcompact.Uint32)}, 1, "stride 6 bytes"},
			{Permutation{Elem: vkcompact.Struct(260, 0, vkcompact.Uint32)}, 1, "stride 260 bytes"},
			{Permutation{Options: Options{LoadsPerLane: 5}}, 1, "5 loads per lane"},
			{Permutation{Options: Options{WorkgroupSize: dev.MaxSubgroupSize + 1}}, 1, "workgroup size"},
			{Permutation{}, MaxElements + 1, "positions: at most"},
		} {
			if _, err := tune(dev, c.n, c.perm, 0); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %+v: got %v, want an error naming %q", dev.Name, c.perm, err, c.want)
			}
		}
	}
}
