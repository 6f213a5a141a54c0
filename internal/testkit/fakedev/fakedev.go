// Package fakedev holds the information of devices the tuning tests plan
// for without running on them: every operation's tuning is a pure
// function of vk.DeviceInfo, n and its request, so the plans for the H100,
// lavapipe at its three subgroup sizes, SwiftShader and a 64-wide
// AMD-like GPU are checked on any machine. The H100's figures are its
// driver's; lavapipe's and SwiftShader's are what they report on the test
// machine (two CPUs).
package fakedev

import (
	"fmt"

	"github.com/vkcompact/vkcompact/vk"
)

var (
	// H100 is an NVIDIA H100 (80 GB HBM3) through its Vulkan driver
	// (its maxPerStageDescriptorStorageBuffers was not recorded: 0,
	// unknown, is not checked).
	H100 = vk.DeviceInfo{
		Name: "NVIDIA H100 80GB HBM3", Type: "discrete-gpu",
		SubgroupSize: 32, MinSubgroupSize: 32, MaxSubgroupSize: 32, SubgroupSizeControl: true,
		MaxStorageBufferRange: 1<<32 - 1, MinStorageBufferOffsetAlignment: 16,
		MaxWorkgroupCount: [3]uint32{1<<31 - 1, 65535, 65535}, MaxWorkgroupSize: [3]uint32{1024, 1024, 64},
		MaxWorkgroupInvocations: 1024, MaxSharedMemory: 49152, MaxPushConstantsSize: 256,
		ComputeUnits: 132, SubgroupsPerUnit: 64,
	}
	// Lavapipe4, Lavapipe8 and Lavapipe16 are Mesa's lavapipe at
	// LP_NATIVE_VECTOR_WIDTH 128, 256 and 512.
	Lavapipe4, Lavapipe8, Lavapipe16 = lavapipe(4), lavapipe(8), lavapipe(16)
	// SwiftShader is Google's SwiftShader (Subzero).
	SwiftShader = vk.DeviceInfo{
		Name: "SwiftShader Device (Subzero)", Type: "cpu",
		SubgroupSize: 4, MinSubgroupSize: 4, MaxSubgroupSize: 4, SubgroupSizeControl: true,
		MaxStorageBufferRange: 1 << 30, MinStorageBufferOffsetAlignment: 256,
		MaxWorkgroupCount: [3]uint32{65535, 65535, 65535}, MaxWorkgroupSize: [3]uint32{256, 256, 64},
		MaxWorkgroupInvocations: 256, MaxSharedMemory: 32768, MaxPushConstantsSize: 128, ComputeUnits: 2,
		MaxPerStageStorageBuffers: 30,
	}
	// AMDLike is a GPU of 64-wide subgroups that may also run 32 wide
	// (subgroup size control), 64 KiB of shared memory and 96 compute
	// units of 32 resident subgroups (2 SIMDs of 16 wavefronts, as
	// VK_AMD_shader_core_properties reports them for RDNA 3).
	AMDLike = vk.DeviceInfo{
		Name: "AMD-like 64-wide GPU", Type: "discrete-gpu",
		SubgroupSize: 64, MinSubgroupSize: 32, MaxSubgroupSize: 64, SubgroupSizeControl: true,
		MaxStorageBufferRange: 1<<32 - 1, MinStorageBufferOffsetAlignment: 4,
		MaxWorkgroupCount: [3]uint32{1<<31 - 1, 65535, 65535}, MaxWorkgroupSize: [3]uint32{1024, 1024, 1024},
		MaxWorkgroupInvocations: 1024, MaxSharedMemory: 65536, MaxPushConstantsSize: 128,
		ComputeUnits: 96, SubgroupsPerUnit: 32,
	}
	// All lists them.
	All = []vk.DeviceInfo{H100, Lavapipe4, Lavapipe8, Lavapipe16, SwiftShader, AMDLike}
)

// lavapipe is lavapipe's information at a subgroup size of sg (an
// LP_NATIVE_VECTOR_WIDTH of 32*sg bits).
func lavapipe(sg uint32) vk.DeviceInfo {
	return vk.DeviceInfo{
		Name: fmt.Sprintf("llvmpipe (LLVM 15.0.6, %d bits)", 32*sg), Type: "cpu",
		SubgroupSize: sg, MinSubgroupSize: sg, MaxSubgroupSize: sg, SubgroupSizeControl: true,
		MaxStorageBufferRange: 1 << 27, MinStorageBufferOffsetAlignment: 16,
		MaxWorkgroupCount: [3]uint32{65535, 65535, 65535}, MaxWorkgroupSize: [3]uint32{1024, 1024, 1024},
		MaxWorkgroupInvocations: 1024, MaxSharedMemory: 32768, MaxPushConstantsSize: 256, ComputeUnits: 2,
		MaxPerStageStorageBuffers: 32,
	}
}
