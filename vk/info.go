package vk

import (
	"fmt"
	"runtime"
	"unsafe"
)

// DeviceInfo describes one physical device: what `vkcompact devices` prints.
// The JSON field names are part of the command's stable output.
type DeviceInfo struct {
	Index         int    `json:"index"`          // position in vkEnumeratePhysicalDevices
	Name          string `json:"name"`           // deviceName
	Type          string `json:"type"`           // discrete-gpu, integrated-gpu, virtual-gpu, cpu or other
	VendorID      uint32 `json:"vendor_id"`      // PCI vendor
	DeviceID      uint32 `json:"device_id"`      // PCI device
	DriverName    string `json:"driver_name"`    // VkPhysicalDeviceDriverProperties.driverName
	DriverInfo    string `json:"driver_info"`    // VkPhysicalDeviceDriverProperties.driverInfo
	DriverVersion string `json:"driver_version"` // decoded with the vendor's convention
	APIVersion    string `json:"api_version"`    // the device's Vulkan version

	SubgroupSize        uint32   `json:"subgroup_size"`         // default subgroup size
	MinSubgroupSize     uint32   `json:"min_subgroup_size"`     // with subgroup size control, else SubgroupSize
	MaxSubgroupSize     uint32   `json:"max_subgroup_size"`     // with subgroup size control, else SubgroupSize
	SubgroupSizeControl bool     `json:"subgroup_size_control"` // subgroupSizeControl and computeFullSubgroups both supported
	SubgroupOperations  []string `json:"subgroup_operations"`   // basic, vote, arithmetic, ballot, shuffle, ...
	SubgroupInCompute   bool     `json:"subgroup_in_compute"`   // subgroup operations supported in compute shaders

	// The limits the operations plan with, as VkPhysicalDeviceLimits
	// names them: maxStorageBufferRange (bytes per binding),
	// minStorageBufferOffsetAlignment, maxComputeWorkGroupCount,
	// maxComputeWorkGroupSize, maxComputeWorkGroupInvocations,
	// maxComputeSharedMemorySize, maxPushConstantsSize and
	// maxPerStageDescriptorStorageBuffers (a kernel's bindings at most; 0
	// where unknown, as on a made-up DeviceInfo); and the device's memory
	// heaps.
	MaxStorageBufferRange           uint32    `json:"max_storage_buffer_range"`
	MinStorageBufferOffsetAlignment uint64    `json:"min_storage_buffer_offset_alignment"`
	MaxWorkgroupCount               [3]uint32 `json:"max_workgroup_count"`
	MaxWorkgroupSize                [3]uint32 `json:"max_workgroup_size"`
	MaxWorkgroupInvocations         uint32    `json:"max_workgroup_invocations"`
	MaxSharedMemory                 uint32    `json:"max_shared_memory"` // maxComputeSharedMemorySize, bytes
	MaxPushConstantsSize            uint32    `json:"max_push_constants_size"`
	MaxPerStageStorageBuffers       uint32    `json:"max_per_stage_storage_buffers"`
	MemoryHeaps                     []Heap    `json:"memory_heaps"`
	TimestampPeriod                 float32   `json:"timestamp_period_ns"`  // nanoseconds per timestamp tick
	TimestampValidBits              uint32    `json:"timestamp_valid_bits"` // of the compute queue family; 0: no timestamps
	ComputeQueueFamily              int       `json:"compute_queue_family"` // -1 when there is none

	// ComputeUnits is the number of streaming multiprocessors or compute
	// units where the driver says (VK_NV_shader_sm_builtins,
	// VK_AMD_shader_core_properties), the host's CPU count for a CPU
	// device, and 0 when unknown. SubgroupsPerUnit is how many subgroups
	// one unit keeps resident, 0 when unknown. The compaction sizes its
	// processor count from them.
	ComputeUnits     uint32 `json:"compute_units"`
	SubgroupsPerUnit uint32 `json:"subgroups_per_unit"`

	ShaderInt64    bool `json:"shader_int64"`    // shaderInt64 (not needed by vkcompact)
	ShaderFloat64  bool `json:"shader_float64"`  // shaderFloat64 (not needed by vkcompact)
	PushDescriptor bool `json:"push_descriptor"` // VK_KHR_push_descriptor
	// PipelineStatistics: VK_KHR_pipeline_executable_properties, which
	// reports what the compiler made of each kernel (registers, shared
	// memory, ...); see Options.Statistics.
	PipelineStatistics bool `json:"pipeline_statistics"`

	// Problems lists what the device lacks that vkcompact needs; empty when
	// usable.
	Problems []string `json:"problems"`
	// Default marks the device vkcompact picks when none is named.
	Default bool `json:"default"`

	apiVersion uint32 // min(device, instance): what the library may use
	// portabilitySubset: the device offers VK_KHR_portability_subset (a
	// portability implementation such as MoltenVK), which Open enables.
	portabilitySubset bool
	typeRank          int
	// The pipeline cache's key and header check (pipecache.go):
	// VkPhysicalDeviceProperties' pipelineCacheUUID and driverVersion.
	pipelineCacheUUID [16]byte
	driverVersion     uint32
}

// Heap is one memory heap.
type Heap struct {
	Size        uint64 `json:"size"`         // bytes
	DeviceLocal bool   `json:"device_local"` // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
}

// Usable reports whether vkcompact can run on the device.
func (d DeviceInfo) Usable() bool { return len(d.Problems) == 0 }

// CPU reports whether the device is a CPU implementation of Vulkan
// (lavapipe, SwiftShader): its "GPU time" is CPU time, its shader loops
// may be bounded (lavapipe ends any loop after 65535 iterations), and
// the tunings that favour a GPU (the single passes, their spinning
// look-back) do not pay there.
func (d DeviceInfo) CPU() bool { return d.Type == "cpu" }

// Subgroup feature bits (VkSubgroupFeatureFlagBits).
var subgroupOps = []struct {
	bit  uint32
	name string
}{
	{0x01, "basic"}, {0x02, "vote"}, {0x04, "arithmetic"}, {0x08, "ballot"},
	{0x10, "shuffle"}, {0x20, "shuffle_relative"}, {0x40, "clustered"}, {0x80, "quad"},
}

const (
	subgroupBasic      = 0x01
	subgroupArithmetic = 0x04
	subgroupBallot     = 0x08
)

// Physical device types (VkPhysicalDeviceType), with their names and the
// order in which the default device is chosen.
var deviceTypes = map[int32]struct {
	name string
	rank int
}{
	2: {"discrete-gpu", 0},
	1: {"integrated-gpu", 1},
	3: {"virtual-gpu", 2},
	4: {"cpu", 3},
}

const shaderStageCompute = 0x20 // VK_SHADER_STAGE_COMPUTE_BIT

// queryDevice gathers a device's information and what it lacks.
// instVersion is the instance's API version: what the device offers beyond
// it is not usable through this instance.
func queryDevice(inst instanceFuncs, instVersion uint32, pd unsafe.Pointer, index int) (DeviceInfo, error) {
	p := inst.properties(pd)
	d := DeviceInfo{
		Index:                           index,
		Name:                            p.name,
		VendorID:                        p.vendorID,
		DeviceID:                        p.deviceID,
		DriverVersion:                   driverVersionString(p.vendorID, p.driverVersion),
		pipelineCacheUUID:               p.pipelineCacheUUID,
		driverVersion:                   p.driverVersion,
		APIVersion:                      versionString(p.apiVersion),
		MaxStorageBufferRange:           p.maxStorageBufferRange,
		MinStorageBufferOffsetAlignment: p.minStorageBufferOffsetAlignment,
		MaxWorkgroupCount:               p.maxWorkgroupCount,
		MaxWorkgroupSize:                p.maxWorkgroupSize,
		MaxWorkgroupInvocations:         p.maxWorkgroupInvocations,
		MaxSharedMemory:                 p.maxSharedMemory,
		MaxPushConstantsSize:            p.maxPushConstantsSize,
		MaxPerStageStorageBuffers:       p.maxPerStageStorageBuffers,
		TimestampPeriod:                 p.timestampPeriod,
		ComputeQueueFamily:              -1,
		apiVersion:                      min(p.apiVersion, instVersion),
		typeRank:                        4,
	}
	d.Type = "other"
	if t, ok := deviceTypes[p.deviceType]; ok {
		d.Type, d.typeRank = t.name, t.rank
	}
	mem := inst.memoryTypes(pd)
	for i, size := range mem.heaps {
		d.MemoryHeaps = append(d.MemoryHeaps, Heap{Size: size, DeviceLocal: mem.heapFlags[i]&heapDeviceLocal != 0})
	}
	d.ShaderInt64, d.ShaderFloat64 = inst.shaderInt64And64(pd)

	family, bits := computeQueueFamily(inst.queueFamilies(pd))
	d.ComputeQueueFamily, d.TimestampValidBits = family, bits

	exts, err := inst.deviceExtensions(pd)
	if err != nil {
		return d, err
	}
	d.PushDescriptor = exts[extPushDescriptor]
	d.PipelineStatistics = exts[extExecutableProperties]
	d.portabilitySubset = exts["VK_KHR_portability_subset"]
	if d.apiVersion >= minAPIVersion {
		queryDevice11(inst, pd, &d, exts)
	}
	if d.ComputeUnits == 0 && d.CPU() {
		d.ComputeUnits = uint32(runtime.NumCPU())
	}
	d.Problems = problems(&d)
	return d, nil
}

// queryDevice11 reads the Vulkan 1.1+ properties and features: subgroups,
// subgroup size control, the driver's name and the compute units.
func queryDevice11(inst instanceFuncs, pd unsafe.Pointer, d *DeviceInfo, exts map[string]bool) {
	sizeControl := d.apiVersion >= 1<<22|3<<12 || exts[extSubgroupSizeCtl]
	driverProps := d.apiVersion >= 1<<22|2<<12 || exts["VK_KHR_driver_properties"]
	q, ok := inst.query11(pd, sizeControl, driverProps, exts["VK_NV_shader_sm_builtins"], exts["VK_AMD_shader_core_properties"])
	if !ok {
		return
	}
	d.SubgroupSize = q.subgroupSize
	d.MinSubgroupSize, d.MaxSubgroupSize = q.subgroupSize, q.subgroupSize
	d.SubgroupInCompute = q.subgroupStages&shaderStageCompute != 0
	for _, op := range subgroupOps {
		if q.subgroupOperations&op.bit != 0 {
			d.SubgroupOperations = append(d.SubgroupOperations, op.name)
		}
	}
	d.DriverName, d.DriverInfo = q.driverName, q.driverInfo
	d.ComputeUnits, d.SubgroupsPerUnit = q.computeUnits, q.perUnit
	d.SubgroupSizeControl = sizeControl && q.sizeControl && q.fullSubgroups && q.requiredSizeStages&shaderStageCompute != 0
	if d.SubgroupSizeControl {
		d.MinSubgroupSize, d.MaxSubgroupSize = q.minSubgroupSize, q.maxSubgroupSize
	}
}

// computeQueueFamily picks a queue family with compute and timestamps,
// preferring a compute-only family (it leaves the graphics queue alone).
func computeQueueFamily(fams []queueFamily) (family int, timestampBits uint32) {
	const computeBit, graphicsBit = 0x2, 0x1 // VK_QUEUE_COMPUTE_BIT, VK_QUEUE_GRAPHICS_BIT
	family, best := -1, -1
	for i, f := range fams {
		if f.flags&computeBit == 0 || f.count == 0 {
			continue
		}
		score := 0
		if f.timestampBits > 0 {
			score += 2
		}
		if f.flags&graphicsBit == 0 {
			score++
		}
		if score > best {
			family, best, timestampBits = i, score, f.timestampBits
		}
	}
	return family, timestampBits
}

// problems lists what the device lacks for vkcompact.
func problems(d *DeviceInfo) []string {
	var p []string
	if d.apiVersion < minAPIVersion {
		p = append(p, "Vulkan 1.1 (it has "+d.APIVersion+")")
	}
	if d.ComputeQueueFamily < 0 {
		p = append(p, "a compute queue")
	}
	if d.apiVersion >= minAPIVersion {
		var ops uint32
		for _, op := range subgroupOps {
			for _, have := range d.SubgroupOperations {
				if have == op.name {
					ops |= op.bit
				}
			}
		}
		if !d.SubgroupInCompute {
			p = append(p, "subgroup operations in compute shaders")
		}
		for _, need := range []struct {
			bit  uint32
			name string
		}{{subgroupBasic, "basic"}, {subgroupBallot, "ballot"}, {subgroupArithmetic, "arithmetic"}} {
			if ops&need.bit == 0 {
				p = append(p, "subgroup "+need.name+" operations")
			}
		}
		if s := d.SubgroupSize; s < minSubgroupSize || s > maxSubgroupSize || s&(s-1) != 0 {
			p = append(p, fmt.Sprintf("a subgroup size that is a power of two from %d to %d (it has %d)", minSubgroupSize, maxSubgroupSize, s))
		}
	}
	// Vulkan's own minimums, which the plans are sized within; a
	// conformant device meets them all.
	for _, lim := range []struct {
		name      string
		have, min uint32
	}{
		{"maxComputeWorkGroupInvocations", d.MaxWorkgroupInvocations, 128},
		{"maxComputeWorkGroupSize[0]", d.MaxWorkgroupSize[0], 128},
		{"maxComputeSharedMemorySize", d.MaxSharedMemory, 16384},
		{"maxPushConstantsSize", d.MaxPushConstantsSize, 128},
		{"maxStorageBufferRange", d.MaxStorageBufferRange, 1 << 27},
	} {
		if lim.have < lim.min {
			p = append(p, fmt.Sprintf("%s of at least %d (it has %d)", lim.name, lim.min, lim.have))
		}
	}
	return p
}

// The subgroup sizes the kernels are written for.
const (
	minSubgroupSize = 4
	maxSubgroupSize = 128
)

// driverVersionString decodes driverVersion by the vendor's convention.
func driverVersionString(vendor, v uint32) string {
	switch vendor {
	case 0x10de: // NVIDIA: 10.8.8.6 bits
		return fmt.Sprintf("%d.%d.%d.%d", v>>22&0x3ff, v>>14&0xff, v>>6&0xff, v&0x3f)
	default:
		return versionString(v)
	}
}
