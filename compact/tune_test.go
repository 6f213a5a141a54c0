package compact

import (
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
)

// TestAutoPathDecision checks PathAuto's choice as the tuning makes it, on
// GPUs (the single pass wherever it applies), on lavapipe (the single
// pass up to 256 KiB of input, the three phases past it) and on
// SwiftShader (up to 64 KiB): selections and splits, in and out of
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
			{"compaction", u32, 1000, vkcompact.PathSinglePass},
			{"compaction, 2^17 (512 KiB)", u32, 1 << 17, single},
			{"compaction, 2^14 (64 KiB)", u32, 1 << 14, vkcompact.PathSinglePass},
			{"compaction, 2^15 (128 KiB)", u32, 1 << 15, map[bool]vkcompact.Path{true: single, false: vkcompact.PathSinglePass}[dev.Name == fakedev.SwiftShader.Name]},
			{"compaction, 2^27", u32, 1 << 27, single},
			{"reversed split", reversed, 1000, vkcompact.PathSinglePass},
			{"ordered split", split, 1000, vkcompact.PathThreePhase},
			{"in place", inPlace, 1000, vkcompact.PathThreePhase},
			{"no elements", u32, 0, vkcompact.PathThreePhase},
			{"past the single pass's count", u32, vkcompact.MaxSinglePassElements + 1, vkcompact.PathThreePhase},
			{"past one binding: in windows", u32, uint64(dev.MaxStorageBufferRange)/4 + 1, single},
			{"the most the single pass counts", u32, vkcompact.MaxSinglePassElements, map[bool]vkcompact.Path{true: single, false: vkcompact.PathThreePhase}[4*uint64(vkcompact.MaxSinglePassElements) <= 4*uint64(dev.MaxStorageBufferRange&^255)]},
			{"past four output windows", Selection{Elem: vkcompact.Plain(vkcompact.Uint64), Keep: KeepNonZero()}, uint64(dev.MaxStorageBufferRange)/2 + 1, vkcompact.PathThreePhase},
		} {
			p, err := tunePlan(dev, c.n, c.sel, limits{})
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

// TestSinglePassTiles checks the single pass's tiles, tile order and
// self-reset as the tuning picks them on every fake device: small tiles
// (512 x 1) for inputs up to 4 MiB on a GPU unless the caller chose the
// workgroup or the loads, workgroups of 64 on SwiftShader, tiles by index for a compaction on a GPU and for
// a split with up to 1024 tiles, and the status words reset by the pass
// itself up to 1024 tiles.
func TestSinglePassTiles(t *testing.T) {
	u32 := Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: KeepNonZero(), Options: Options{Path: vkcompact.PathSinglePass}}
	split := u32
	split.Split, split.ReverseRejected = true, true
	chosen := u32
	chosen.LoadsPerLane = 4
	for _, dev := range fakedev.All {
		gpu := !dev.CPU()
		for _, c := range []struct {
			what      string
			sel       Selection
			n         uint64
			wg, loads uint32 // 0: the defaults (256, 4 on a GPU)
		}{
			{"compaction, 2^16", u32, 1 << 16, 512, 1},
			{"compaction, 2^20", u32, 1 << 20, 512, 1},
			{"compaction, 2^20 + 1", u32, 1<<20 + 1, 0, 0},
			{"compaction, 2^28", u32, 1 << 28, 0, 0},
			{"split, 2^16", split, 1 << 16, 512, 1},
			{"split, 2^22", split, 1 << 22, 0, 0},
			{"split, 2^28", split, 1 << 28, 0, 0},
			{"compaction, loads chosen, 2^16", chosen, 1 << 16, 0, 4},
		} {
			if uint64(dev.MaxStorageBufferRange) < 4*c.n {
				continue
			}
			p, err := tunePlan(dev, c.n, c.sel, limits{})
			if err != nil {
				t.Errorf("%s: %s: %v", dev.Name, c.what, err)
				continue
			}
			tu := p.Tuning()
			wantWG, wantLoads := uint32(max(256, dev.MaxSubgroupSize)), uint32(vkcompact.MaxLoadsPerLane)
			if dev.Name == fakedev.SwiftShader.Name {
				wantWG = 64 // its row's workgroup
			}
			if gpu && c.wg != 0 && dev.MaxWorkgroupInvocations >= c.wg {
				wantWG = c.wg
			}
			if (gpu && c.wg != 0 && dev.MaxWorkgroupInvocations >= c.wg) || c.loads == 4 {
				wantLoads = c.loads
			}
			if tu.WorkgroupSize != wantWG || tu.LoadsPerLane != wantLoads {
				t.Errorf("%s: %s: workgroup %d x %d loads, want %d x %d", dev.Name, c.what, tu.WorkgroupSize, tu.LoadsPerLane, wantWG, wantLoads)
			}
			if want := uint32((c.n + uint64(tu.Tile) - 1) / uint64(tu.Tile)); tu.Tiles != want || tu.Tile != wantWG*wantLoads*4 {
				t.Errorf("%s: %s: %d tiles of %d", dev.Name, c.what, tu.Tiles, tu.Tile)
			}
			if want := gpu && (!c.sel.Split || tu.Tiles <= 1024); tu.TilesByIndex != want {
				t.Errorf("%s: %s (%d tiles): tiles by index %v, want %v", dev.Name, c.what, tu.Tiles, tu.TilesByIndex, want)
			}
			if want := tu.Tiles <= 1024; tu.SelfReset != want {
				t.Errorf("%s: %s (%d tiles): self-reset %v, want %v", dev.Name, c.what, tu.Tiles, tu.SelfReset, want)
			}
		}
	}
}

// TestSinglePassStatusLimit plans the single pass over the most elements
// it counts with the smallest tiles on every fake device: its tile status
// is one binding, so where it would exceed maxStorageBufferRange the
// forced single pass is refused naming it, and PathAuto takes the three
// phases.
func TestSinglePassStatusLimit(t *testing.T) {
	for _, dev := range fakedev.All {
		sel := Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: KeepNonZero(),
			Options: Options{Path: vkcompact.PathSinglePass, WorkgroupSize: dev.MaxSubgroupSize, LoadsPerLane: 1}}
		n := uint64(vkcompact.MaxSinglePassElements)
		tile := uint64(4 * dev.MaxSubgroupSize)
		status := 4 * (2 + (n+tile-1)/tile)
		_, err := tunePlan(dev, n, sel, limits{})
		if status > uint64(dev.MaxStorageBufferRange) {
			if err == nil || !strings.Contains(err.Error(), "tile status") {
				t.Errorf("%s: %d bytes of status past %d: got %v, want a refusal naming the tile status", dev.Name, status, dev.MaxStorageBufferRange, err)
			}
		} else if err != nil && strings.Contains(err.Error(), "tile status") {
			t.Errorf("%s: %d bytes of status fit: %v", dev.Name, status, err)
		}
		sel.Path = vkcompact.PathAuto
		if p, err := tunePlan(dev, n, sel, limits{}); err != nil || (status > uint64(dev.MaxStorageBufferRange) && p.Tuning().Path != vkcompact.PathThreePhase) {
			t.Errorf("%s: PathAuto: %v", dev.Name, err)
		}
	}
}

// TestWindowsBindingLimit checks that past one binding the single pass,
// whose kernel binds 11 storage buffers (wideBindings), is refused where the device
// allows fewer per stage, naming the limit, and PathAuto takes the three
// phases.
func TestWindowsBindingLimit(t *testing.T) {
	dev := fakedev.H100
	dev.MaxPerStageStorageBuffers = 8
	n := uint64(dev.MaxStorageBufferRange)/4 + 1
	sel := Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: KeepNonZero(), Options: Options{Path: vkcompact.PathSinglePass}}
	if _, err := tunePlan(dev, n, sel, limits{}); err == nil || !strings.Contains(err.Error(), "maxPerStageDescriptorStorageBuffers") {
		t.Errorf("8 storage buffers per stage, n=%d: got %v, want a refusal naming the limit", n, err)
	}
	sel.Path = vkcompact.PathAuto
	if p, err := tunePlan(dev, n, sel, limits{}); err != nil || p.Tuning().Path != vkcompact.PathThreePhase {
		t.Errorf("PathAuto: %v", err)
	}
	if p, err := tunePlan(dev, 1000, sel, limits{}); err != nil || p.Tuning().Path != vkcompact.PathSinglePass {
		t.Errorf("n=1000, one binding (8 buffers suffice): %v", err)
	}
}

// TestThreePhaseLoads checks the three phases' loads per lane on every
// fake device: SwiftShader's row takes one (classTuning.threePhaseLoads),
// every other device tiling's default; a caller's choice stands.
func TestThreePhaseLoads(t *testing.T) {
	u32 := Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: KeepNonZero(), Options: Options{Path: vkcompact.PathThreePhase}}
	chosen := u32
	chosen.LoadsPerLane = 4
	for _, dev := range fakedev.All {
		for _, c := range []struct {
			sel  Selection
			want uint32
		}{
			{u32, map[bool]uint32{true: 1, false: 2}[dev.Name == fakedev.SwiftShader.Name]},
			{chosen, 4},
		} {
			p, err := tunePlan(dev, 1<<20, c.sel, limits{})
			if err != nil {
				t.Fatalf("%s: %v", dev.Name, err)
			}
			if got := p.Tuning().LoadsPerLane; got != c.want {
				t.Errorf("%s: loads chosen %d: %d loads per lane, want %d", dev.Name, c.sel.LoadsPerLane, got, c.want)
			}
		}
	}
}
