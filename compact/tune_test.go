package compact

import (
	"testing"

	"github.com/vkcompact/vkcompact/vk"
)

// Fake devices for the tuning tests: the tuning is a pure function of the
// device's information, so the GPU's choices are checked without a GPU.
var (
	h100 = vk.DeviceInfo{
		Name: "NVIDIA H100 80GB HBM3", Type: "discrete-gpu",
		SubgroupSize: 32, MinSubgroupSize: 32, MaxSubgroupSize: 32, SubgroupSizeControl: true,
		MaxStorageBufferRange: 1<<32 - 1, MinStorageBufferOffsetAlignment: 16,
		MaxWorkgroupCount: [3]uint32{1<<31 - 1, 65535, 65535}, MaxWorkgroupSize: [3]uint32{1024, 1024, 64},
		MaxWorkgroupInvocations: 1024, MaxSharedMemory: 49152, MaxPushConstantsSize: 256,
		ComputeUnits: 132, SubgroupsPerUnit: 64,
	}
	lavapipe8 = vk.DeviceInfo{
		Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: "cpu",
		SubgroupSize: 8, MinSubgroupSize: 8, MaxSubgroupSize: 8, SubgroupSizeControl: true,
		MaxStorageBufferRange: 1 << 27, MinStorageBufferOffsetAlignment: 16,
		MaxWorkgroupCount: [3]uint32{65535, 65535, 65535}, MaxWorkgroupSize: [3]uint32{1024, 1024, 1024},
		MaxWorkgroupInvocations: 1024, MaxSharedMemory: 32768, MaxPushConstantsSize: 256, ComputeUnits: 2,
	}
	swiftshader = vk.DeviceInfo{
		Name: "SwiftShader Device (Subzero)", Type: "cpu",
		SubgroupSize: 4, MinSubgroupSize: 4, MaxSubgroupSize: 4, SubgroupSizeControl: true,
		MaxStorageBufferRange: 1 << 30, MinStorageBufferOffsetAlignment: 256,
		MaxWorkgroupCount: [3]uint32{65535, 65535, 65535}, MaxWorkgroupSize: [3]uint32{256, 256, 64},
		MaxWorkgroupInvocations: 256, MaxSharedMemory: 32768, MaxPushConstantsSize: 128, ComputeUnits: 2,
	}
)

// TestAutoPathDecision checks PathAuto's choice as the tuning makes it, on
// a discrete GPU (the single pass wherever it applies), and on lavapipe and
// SwiftShader (the three phases): selections, splits and prefix sums, in
// and out of place, at the sizes and shapes where the single pass stops
// applying.
func TestAutoPathDecision(t *testing.T) {
	u32 := Selection{Elem: Plain(Uint32), Keep: KeepNonZero()}
	split := u32
	split.Split = true
	reversed := split
	reversed.ReverseRejected = true
	inPlace := u32
	inPlace.InPlace = true
	for _, dev := range []vk.DeviceInfo{h100, lavapipe8, swiftshader} {
		gpu := dev.Type != "cpu"
		single := PathThreePhase
		if gpu {
			single = PathSinglePass
		}
		for _, c := range []struct {
			what string
			sel  Selection
			n    uint64
			want Path
		}{
			{"compaction", u32, 1000, single},
			{"compaction, 2^27", u32, 1 << 27, single},
			{"reversed split", reversed, 1000, single},
			{"ordered split", split, 1000, PathThreePhase},
			{"in place", inPlace, 1000, PathThreePhase},
			{"no elements", u32, 0, PathThreePhase},
			{"past the single pass's count", u32, MaxSinglePassElements + 1, PathThreePhase},
			{"past one binding", u32, uint64(dev.MaxStorageBufferRange)/4 + 1, PathThreePhase},
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
		bigWG := min(1024, dev.MaxWorkgroupInvocations)
		for _, c := range []struct {
			what string
			s    Scan
			n    uint64
			want Path
		}{
			{"u32 sums", Scan{Type: Uint32}, 1000, single},
			{"i32 inclusive sums, 2^20", Scan{Type: Int32, Inclusive: true}, 1 << 20, single},
			{"f32 sums", Scan{Type: Float32}, 1000, PathThreePhase},
			{"u32 sums in place", Scan{Type: Uint32, InPlace: true}, 1000, PathThreePhase},
			{"workgroups past 512", Scan{Type: Uint32, Options: Options{WorkgroupSize: bigWG}}, 1000, map[bool]Path{true: PathThreePhase, false: single}[bigWG > maxScanPassWorkgroup]},
			{"no elements", Scan{Type: Uint32}, 0, PathThreePhase},
			{"past one binding", Scan{Type: Uint32}, uint64(dev.MaxStorageBufferRange)/4 + 1, PathThreePhase},
		} {
			p, err := tuneScan(dev, c.n, c.s)
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
