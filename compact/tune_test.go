package compact

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/fakedev"
)

// TestAutoPathDecision checks PathAuto's choice as the tuning makes it, on
// GPUs (the single pass wherever it applies), and on lavapipe and
// SwiftShader (the three phases): selections and splits, in and out of
// place, at the sizes and shapes where the single pass stops
// applying.
func TestAutoPathDecision(t *testing.T) {
	u32 := Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: KeepNonZero()}
	split := u32
	split.Split = true
	reversed := split
	reversed.ReverseRejected = true
	inPlace := u32
	inPlace.InPlace = true
	for _, dev := range fakedev.All {
		gpu := !dev.CPU()
		single := vkcompact.PathThreePhase
		if gpu {
			single = vkcompact.PathSinglePass
		}
		for _, c := range []struct {
			what string
			sel  Selection
			n    uint64
			want vkcompact.Path
		}{
			{"compaction", u32, 1000, single},
			{"compaction, 2^27", u32, 1 << 27, single},
			{"reversed split", reversed, 1000, single},
			{"ordered split", split, 1000, vkcompact.PathThreePhase},
			{"in place", inPlace, 1000, vkcompact.PathThreePhase},
			{"no elements", u32, 0, vkcompact.PathThreePhase},
			{"past the single pass's count", u32, vkcompact.MaxSinglePassElements + 1, vkcompact.PathThreePhase},
			{"past one binding", u32, uint64(dev.MaxStorageBufferRange)/4 + 1, vkcompact.PathThreePhase},
		} {
			p, err := tunePlan(dev, c.n, c.sel)
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
