package scan

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/fakedev"
)

// TestAutoPathDecision checks PathAuto's choice as the tuning makes it, on
// GPUs (the single pass wherever it applies) and on lavapipe and
// SwiftShader (the three phases), in and out of place, at the sizes and
// shapes where the single pass stops applying.
func TestAutoPathDecision(t *testing.T) {
	for _, dev := range fakedev.All {
		single := vkcompact.PathThreePhase
		if !dev.CPU() {
			single = vkcompact.PathSinglePass
		}
		bigWG := min(1024, dev.MaxWorkgroupInvocations)
		for _, c := range []struct {
			what string
			s    Sum
			n    uint64
			want vkcompact.Path
		}{
			{"u32 sums", Sum{Type: vkcompact.Uint32}, 1000, single},
			{"i32 inclusive sums, 2^20", Sum{Type: vkcompact.Int32, Inclusive: true}, 1 << 20, single},
			{"f32 sums", Sum{Type: vkcompact.Float32}, 1000, vkcompact.PathThreePhase},
			{"u32 sums in place", Sum{Type: vkcompact.Uint32, InPlace: true}, 1000, vkcompact.PathThreePhase},
			{"workgroups past 512", Sum{Type: vkcompact.Uint32, Options: Options{WorkgroupSize: bigWG}}, 1000, map[bool]vkcompact.Path{true: vkcompact.PathThreePhase, false: single}[bigWG > maxScanPassWorkgroup]},
			{"no elements", Sum{Type: vkcompact.Uint32}, 0, vkcompact.PathThreePhase},
			{"past one binding", Sum{Type: vkcompact.Uint32}, uint64(dev.MaxStorageBufferRange)/4 + 1, vkcompact.PathThreePhase},
		} {
			p, err := tune(dev, c.n, c.s)
			if err != nil {
				t.Errorf("%s: %s, n=%d: %v", dev.Name, c.what, c.n, err)
				continue
			}
			if got := p.Tuning().Path; got != c.want {
				t.Errorf("%s: %s, n=%d: PathAuto took %v, want %v", dev.Name, c.what, c.n, got, c.want)
			}
		}
	}
}
