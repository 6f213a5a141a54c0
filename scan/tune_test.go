package scan

import (
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
)

// TestAutoPathDecision checks PathAuto's choice as the tuning makes it, on
// GPUs (the single pass wherever it applies) and on lavapipe and
// SwiftShader (the single pass up to the table's autoElems, the three
// phases past it), in and out of place, at the sizes and shapes where the
// single pass stops applying.
func TestAutoPathDecision(t *testing.T) {
	for _, dev := range fakedev.All {
		single := vkcompact.PathThreePhase
		if !dev.CPU() {
			single = vkcompact.PathSinglePass
		}
		bigWG := min(1024, dev.MaxWorkgroupInvocations)
		for _, c := range []struct {
			what string
			s    Scan
			n    uint64
			want vkcompact.Path
		}{
			{"u32 sums", Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, 1000, vkcompact.PathSinglePass},
			{"u32 sums, 2^16", Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, 1 << 16, single},
			{"i32 inclusive sums, 2^20", Scan{Elem: vkcompact.Plain(vkcompact.Int32), Inclusive: true}, 1 << 20, single},
			{"f32 sums", Scan{Elem: vkcompact.Plain(vkcompact.Float32)}, 1000, vkcompact.PathThreePhase},
			{"u32 sums in place", Scan{Elem: vkcompact.Plain(vkcompact.Uint32), InPlace: true}, 1000, vkcompact.PathThreePhase},
			{"workgroups past 512", Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: Options{WorkgroupSize: bigWG}}, 1000, map[bool]vkcompact.Path{true: vkcompact.PathThreePhase, false: vkcompact.PathSinglePass}[bigWG > passTunings[classOf(dev)].maxWorkgroup]},
			{"no elements", Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, 0, vkcompact.PathThreePhase},
			{"past one binding: in windows", Scan{Elem: vkcompact.Plain(vkcompact.Uint32)}, uint64(dev.MaxStorageBufferRange)/4 + 1, single},
		} {
			p, err := tune(dev, c.n, c.s, 0)
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

// TestSinglePassTiles checks the single pass's loads per lane, tile order
// and self-reset on every fake device: on a GPU 1 load per lane up to
// 2^17 elements and 2 up to 2^19 unless the caller chose, else 4; tiles
// by index on a GPU; the status words reset by the pass up to 1024 tiles.
func TestSinglePassTiles(t *testing.T) {
	one := Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: Options{Path: vkcompact.PathSinglePass}}
	chosen := one
	chosen.LoadsPerLane = 3
	for _, dev := range fakedev.All {
		gpu := !dev.CPU()
		for _, c := range []struct {
			s        Scan
			n        uint64
			gpuLoads uint32
		}{{one, 1 << 16, 1}, {one, 1 << 17, 1}, {one, 1<<17 + 1, 2}, {one, 1 << 19, 2}, {one, 1<<19 + 1, 4}, {one, 1 << 28, 4}, {chosen, 1 << 16, 3}} {
			if uint64(dev.MaxStorageBufferRange) < 4*c.n {
				continue
			}
			p, err := tune(dev, c.n, c.s, 0)
			if err != nil {
				t.Errorf("%s: n=%d: %v", dev.Name, c.n, err)
				continue
			}
			tu := p.Tuning()
			want := c.gpuLoads
			if !gpu && c.s.LoadsPerLane == 0 {
				want = vkcompact.MaxLoadsPerLane
			}
			if tu.LoadsPerLane != want {
				t.Errorf("%s: n=%d: %d loads per lane, want %d", dev.Name, c.n, tu.LoadsPerLane, want)
			}
			if tu.TilesByIndex != gpu || tu.SelfReset != (tu.Tiles <= 1024) {
				t.Errorf("%s: n=%d (%d tiles): by index %v, self-reset %v", dev.Name, c.n, tu.Tiles, tu.TilesByIndex, tu.SelfReset)
			}
		}
	}
}

// TestSinglePassStatusLimit plans the single pass over the most elements
// with the smallest tiles on every fake device: its tile status is one
// binding, so where it would exceed maxStorageBufferRange the forced
// single pass is refused naming it, and PathAuto takes the three phases.
func TestSinglePassStatusLimit(t *testing.T) {
	for _, dev := range fakedev.All {
		o := Options{WorkgroupSize: dev.MaxSubgroupSize, LoadsPerLane: 1}
		n := uint64(MaxElements)
		status := 8 + 8*((n+uint64(4*o.WorkgroupSize)-1)/uint64(4*o.WorkgroupSize))
		o.Path = vkcompact.PathSinglePass
		p, err := tune(dev, n, Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o}, 0)
		switch fits := status <= uint64(dev.MaxStorageBufferRange); {
		case fits && err != nil:
			t.Errorf("%s: %d bytes of status fit: %v", dev.Name, status, err)
		case !fits && (err == nil || !strings.Contains(err.Error(), "tile status")):
			t.Errorf("%s: %d bytes of status past %d: got %v, want a refusal naming the tile status", dev.Name, status, dev.MaxStorageBufferRange, err)
		case fits && p.Tuning().Path != vkcompact.PathSinglePass:
			t.Errorf("%s: path %v", dev.Name, p.Tuning().Path)
		}
		o.Path = vkcompact.PathAuto
		if p, err := tune(dev, n, Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o}, 0); err != nil || (status > uint64(dev.MaxStorageBufferRange) && p.Tuning().Path != vkcompact.PathThreePhase) {
			t.Errorf("%s: PathAuto: %v, %v", dev.Name, p, err)
		}
	}
}

// TestByKeyTuning checks the scan by key's tuning on every fake device:
// workgroups of 256 on a GPU and 64 on a CPU device (whole subgroups),
// tiles of the single pass's loads per invocation, tiles by index on a GPU and from the
// counter on a CPU device, self-reset up to 1024 tiles, windows past one
// binding sized by the wider of the keys and the values (none holding
// more than the binding), the status refused where it would exceed one
// binding, and the min and max scans of float32 taking the single pass
// where the sums keep the three phases.
func TestByKeyTuning(t *testing.T) {
	for _, dev := range fakedev.All {
		gpu := !dev.CPU()
		for _, kt := range []vkcompact.Type{vkcompact.Uint32, vkcompact.Uint64} {
			for _, n := range []uint64{0, 1000, 1 << 22, uint64(dev.MaxStorageBufferRange)/4 + 1} {
				b := ByKey{Elem: vkcompact.Plain(kt), Value: vkcompact.Float32}
				p, err := tuneByKey(dev, n, b, 0)
				if err != nil {
					t.Errorf("%s: %v n=%d: %v", dev.Name, b, n, err)
					continue
				}
				tu := p.Tuning()
				wantWG := uint32(256)
				if !gpu {
					wantWG = max(64/dev.MaxSubgroupSize, 1) * dev.MaxSubgroupSize
				}
				wantLoads := uint32(4)
				if gpu && n <= 1<<17 {
					wantLoads = 1 // the single pass's table (TestSinglePassTiles)
				}
				if tu.WorkgroupSize != wantWG || tu.LoadsPerLane != wantLoads || tu.Tile != wantWG*4*wantLoads || tu.Tiles != uint32(max((n+uint64(tu.Tile)-1)/uint64(tu.Tile), 1)) {
					t.Errorf("%s: %v n=%d: tuning %+v", dev.Name, b, n, tu)
				}
				past := n*uint64(kt.Size()) > uint64(dev.MaxStorageBufferRange)
				if tu.TilesByIndex != gpu || tu.SelfReset != (tu.Tiles <= 1024 && !past) || (tu.WindowTiles > 0) != past {
					t.Errorf("%s: %v n=%d: tuning %+v (past one binding %v)", dev.Name, b, n, tu, past)
				}
				if past && uint64(tu.WindowTiles)*uint64(tu.Tile)*uint64(kt.Size()) > uint64(dev.MaxStorageBufferRange) {
					t.Errorf("%s: %v n=%d: windows of %d tiles of %d pairs exceed one binding", dev.Name, b, n, tu.WindowTiles, tu.Tile)
				}
			}
		}
		// The smallest tiles over the most pairs: their status must fit one binding.
		o := Options{WorkgroupSize: dev.MaxSubgroupSize, LoadsPerLane: 1}
		n := uint64(MaxElements)
		status := 8 + 8*((n+uint64(4*o.WorkgroupSize)-1)/uint64(4*o.WorkgroupSize))
		_, err := tuneByKey(dev, n, ByKey{Options: o}, 0)
		if fits := status <= uint64(dev.MaxStorageBufferRange); fits != (err == nil) || !fits && !strings.Contains(err.Error(), "tile status") {
			t.Errorf("%s: %d bytes of status (one binding %d): %v", dev.Name, status, dev.MaxStorageBufferRange, err)
		}
		for _, op := range []Op{Min, Max} {
			p, err := tune(dev, 1000, Scan{Elem: vkcompact.Plain(vkcompact.Float32), Op: op, Options: Options{Path: vkcompact.PathSinglePass}}, 0)
			if err != nil || p.Tuning().Path != vkcompact.PathSinglePass {
				t.Errorf("%s: f32 %v on the single pass: %v", dev.Name, op, err)
			}
		}
	}
}
