package vk

// This file is the package's only cgo file: Go wrappers over vkc.h, the
// package's own C layer. Every Vulkan call of the package goes through
// them. Dispatchable handles (VkInstance, VkPhysicalDevice, VkDevice,
// VkQueue, VkCommandBuffer) are C pointers, kept as unsafe.Pointer;
// non-dispatchable ones (VkBuffer, VkPipeline, ...) are 64-bit values,
// kept as uint64 so that the garbage collector never sees them.

/*
#cgo linux,!android LDFLAGS: -ldl -lpthread
#cgo android LDFLAGS: -ldl
#cgo freebsd LDFLAGS: -lpthread
#include "vkc.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// maxBindings, maxBarriers and maxConstants are the C layer's fixed array
// sizes.
const (
	maxBindings  = C.VKC_MAX_BINDINGS
	maxBarriers  = C.VKC_MAX_BARRIERS
	maxConstants = C.VKC_MAX_CONSTANTS
)

var (
	loadOnce sync.Once
	loadErr  error
)

// ErrNoLoader reports that the Vulkan loader library could not be loaded:
// on Linux libvulkan.so.1 (Debian's libvulkan1; mesa-vulkan-drivers gives
// the lavapipe CPU driver), on Windows vulkan-1.dll (the Vulkan runtime
// that GPU drivers install). Its text names this platform's.
var ErrNoLoader = errors.New("vk: the Vulkan loader (" + loaderNames[0] + ") could not be loaded; " + loaderHint)

// load opens the loader once per process.
func load() error {
	loadOnce.Do(func() { loadErr = openLoader(loaderNames) })
	return loadErr
}

// openLoader opens the first library of names that loads.
func openLoader(names []string) error {
	var msgs []string
	for _, name := range names {
		cname := C.CString(name)
		msg := C.vkc_open(cname)
		C.free(unsafe.Pointer(cname))
		if msg == nil {
			return nil
		}
		m := C.GoString(msg)
		if !strings.Contains(m, name) { // LoadLibrary's message does not name the library
			m = name + ": " + m
		}
		msgs = append(msgs, m)
	}
	return fmt.Errorf("%w (%s)", ErrNoLoader, strings.Join(msgs, "; "))
}

// loaderProcAddr returns the loaded vkGetInstanceProcAddr.
func loaderProcAddr() unsafe.Pointer { return unsafe.Pointer(C.vkc_gipa_ptr()) }

// instanceProc returns a function pointer from vkGetInstanceProcAddr, or nil.
func instanceProc(instance unsafe.Pointer, name string) unsafe.Pointer {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return C.vkc_instance_proc(instance, cname)
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// handlePointer converts a non-dispatchable handle to the unsafe.Pointer an
// engine's binding holds it as (a pointer-sized value on 64-bit
// platforms), without the garbage collector ever treating it as a Go
// pointer on the way.
func handlePointer(h uint64) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&h)) }

// pointerHandle is the inverse of handlePointer.
func pointerHandle(p unsafe.Pointer) uint64 { return uint64(uintptr(p)) }

// ---- Global calls.

// enumerateInstanceVersion returns the loader's instance version, 1.0 when
// the loader predates vkEnumerateInstanceVersion.
func enumerateInstanceVersion() (uint32, error) {
	var v C.uint32_t
	if r := C.vkc_enumerate_instance_version(&v); r != 0 {
		return 0, newError("vkEnumerateInstanceVersion", int32(r))
	}
	return uint32(v), nil
}

// hasInstanceLayer reports whether the loader offers the named layer.
func hasInstanceLayer(name string) (bool, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	r := C.vkc_has_instance_layer(cname)
	if r < 0 {
		return false, newError("vkEnumerateInstanceLayerProperties", int32(r))
	}
	return r == 1, nil
}

// hasInstanceExtension reports whether the loader offers the named
// instance extension.
func hasInstanceExtension(name string) (bool, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	r := C.vkc_has_instance_extension(cname)
	if r < 0 {
		return false, newError("vkEnumerateInstanceExtensionProperties", int32(r))
	}
	return r == 1, nil
}

// createInstanceC creates an instance (see vkc_create_instance).
func createInstanceC(apiVersion uint32, validate, portability bool) (unsafe.Pointer, error) {
	var h unsafe.Pointer
	r := C.vkc_create_instance(C.uint32_t(apiVersion), cbool(validate), cbool(portability), &h)
	return h, check("vkCreateInstance", int32(r))
}

// ---- Instance calls.

// instanceFuncs is the instance-level function table of one VkInstance,
// in C memory. free releases it (not the instance).
type instanceFuncs struct{ t *C.vkc_instance }

// loadInstanceFuncs loads the table of instance.
func loadInstanceFuncs(instance unsafe.Pointer) (instanceFuncs, error) {
	t := (*C.vkc_instance)(C.calloc(1, C.sizeof_vkc_instance))
	if t == nil {
		return instanceFuncs{}, newError("calloc", resultOutOfHostMemory)
	}
	if missing := C.vkc_load_instance(t, instance); missing != nil {
		C.free(unsafe.Pointer(t))
		return instanceFuncs{}, fmt.Errorf("vk: vkGetInstanceProcAddr gave no %s", C.GoString(missing))
	}
	return instanceFuncs{t}, nil
}

func (f instanceFuncs) free() {
	if f.t != nil {
		C.free(unsafe.Pointer(f.t))
	}
}

func (f instanceFuncs) handle() unsafe.Pointer {
	if f.t == nil {
		return nil
	}
	return f.t.instance
}

func (f instanceFuncs) destroyInstance() { C.vkc_destroy_instance(f.t) }

// physicalDevices enumerates the instance's devices.
func (f instanceFuncs) physicalDevices() ([]unsafe.Pointer, error) {
	max := 16
	for {
		// The handles are written to C memory: Go memory never holds them
		// before they are typed as pointers.
		buf := (*[1 << 16]unsafe.Pointer)(C.calloc(C.size_t(max), C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)))))
		if buf == nil {
			return nil, newError("calloc", resultOutOfHostMemory)
		}
		n := C.vkc_physical_devices(f.t, &buf[0], C.uint32_t(max))
		var pds []unsafe.Pointer
		if n >= 0 && int(n) <= max {
			pds = append(pds, buf[:n]...)
		}
		C.free(unsafe.Pointer(buf))
		if n < 0 {
			return nil, newError("vkEnumeratePhysicalDevices", int32(n))
		}
		if int(n) <= max {
			return pds, nil
		}
		max = int(n)
	}
}

// deviceProperties are what the library reads of VkPhysicalDeviceProperties.
type deviceProperties struct {
	apiVersion, driverVersion, vendorID, deviceID uint32
	deviceType                                    int32
	name                                          string
	maxStorageBufferRange                         uint32
	minStorageBufferOffsetAlignment               uint64
	maxWorkgroupCount, maxWorkgroupSize           [3]uint32
	maxWorkgroupInvocations                       uint32
	maxSharedMemory, maxPushConstantsSize         uint32
	maxPerStageStorageBuffers                     uint32
	timestampPeriod                               float32
	pipelineCacheUUID                             [16]byte
}

func (f instanceFuncs) properties(pd unsafe.Pointer) deviceProperties {
	var p C.vkc_physical_device_properties
	C.vkc_properties(f.t, pd, &p)
	l := &p.limits
	return deviceProperties{
		apiVersion:                      uint32(p.apiVersion),
		driverVersion:                   uint32(p.driverVersion),
		vendorID:                        uint32(p.vendorID),
		deviceID:                        uint32(p.deviceID),
		deviceType:                      int32(p.deviceType),
		name:                            C.GoStringN(&p.deviceName[0], C.int(cstrlen(p.deviceName[:]))),
		maxStorageBufferRange:           uint32(l.maxStorageBufferRange),
		minStorageBufferOffsetAlignment: uint64(l.minStorageBufferOffsetAlignment),
		maxWorkgroupCount:               [3]uint32{uint32(l.maxComputeWorkGroupCount[0]), uint32(l.maxComputeWorkGroupCount[1]), uint32(l.maxComputeWorkGroupCount[2])},
		maxWorkgroupSize:                [3]uint32{uint32(l.maxComputeWorkGroupSize[0]), uint32(l.maxComputeWorkGroupSize[1]), uint32(l.maxComputeWorkGroupSize[2])},
		maxWorkgroupInvocations:         uint32(l.maxComputeWorkGroupInvocations),
		maxSharedMemory:                 uint32(l.maxComputeSharedMemorySize),
		maxPushConstantsSize:            uint32(l.maxPushConstantsSize),
		maxPerStageStorageBuffers:       uint32(l.maxPerStageDescriptorStorageBuffers),
		timestampPeriod:                 float32(l.timestampPeriod),
		pipelineCacheUUID:               *(*[16]byte)(unsafe.Pointer(&p.pipelineCacheUUID[0])),
	}
}

// cstrlen is the length of a NUL-terminated string in a fixed array.
func cstrlen(s []C.char) int {
	for i, c := range s {
		if c == 0 {
			return i
		}
	}
	return len(s)
}

func goString(s []C.char) string { return C.GoStringN(&s[0], C.int(cstrlen(s))) }

// Memory property bits (VkMemoryPropertyFlagBits) and the heap bit.
const (
	memDeviceLocal  = 0x1
	memHostVisible  = 0x2
	memHostCoherent = 0x4
	memHostCached   = 0x8

	heapDeviceLocal = 0x1
)

// memoryTypes are a device's memory types and heaps.
type memoryTypes struct {
	flags     []uint32
	heap      []uint32
	heaps     []uint64
	heapFlags []uint32
}

func (f instanceFuncs) memoryTypes(pd unsafe.Pointer) memoryTypes {
	var p C.vkc_memory_properties
	C.vkc_memory(f.t, pd, &p)
	var m memoryTypes
	for i := 0; i < int(p.memoryTypeCount) && i < len(p.memoryTypes); i++ {
		m.flags = append(m.flags, uint32(p.memoryTypes[i].propertyFlags))
		m.heap = append(m.heap, uint32(p.memoryTypes[i].heapIndex))
	}
	for i := 0; i < int(p.memoryHeapCount) && i < len(p.memoryHeaps); i++ {
		m.heaps = append(m.heaps, uint64(p.memoryHeaps[i].size))
		m.heapFlags = append(m.heapFlags, uint32(p.memoryHeaps[i].flags))
	}
	return m
}

// shaderInt64And64 reports the shaderInt64 and shaderFloat64 features.
func (f instanceFuncs) shaderInt64And64(pd unsafe.Pointer) (int64, float64 bool) {
	var features [C.VKC_FEATURE_COUNT]C.uint32_t
	C.vkc_features(f.t, pd, &features[0])
	return features[C.VKC_FEATURE_SHADER_INT64] != 0, features[C.VKC_FEATURE_SHADER_FLOAT64] != 0
}

// queueFamily is one queue family's properties.
type queueFamily struct {
	flags, count, timestampBits uint32
}

func (f instanceFuncs) queueFamilies(pd unsafe.Pointer) []queueFamily {
	const max = 64
	var flags, counts, bits [max]C.uint32_t
	n := int(C.vkc_queue_families(f.t, pd, max, &flags[0], &counts[0], &bits[0]))
	fams := make([]queueFamily, min(n, max))
	for i := range fams {
		fams[i] = queueFamily{uint32(flags[i]), uint32(counts[i]), uint32(bits[i])}
	}
	return fams
}

// deviceExtensions lists the device's extensions.
func (f instanceFuncs) deviceExtensions(pd unsafe.Pointer) (map[string]bool, error) {
	buf := make([]byte, 64<<10)
	for {
		n := C.vkc_device_extensions(f.t, pd, (*C.char)(unsafe.Pointer(&buf[0])), C.int64_t(len(buf)))
		if n < 0 {
			return nil, newError("vkEnumerateDeviceExtensionProperties", int32(n))
		}
		if int(n) > len(buf) {
			buf = make([]byte, n)
			continue
		}
		exts := map[string]bool{}
		for _, name := range strings.Split(string(buf[:n]), "\x00") {
			if name != "" {
				exts[name] = true
			}
		}
		return exts, nil
	}
}

// device11 is what the Vulkan 1.1 queries report (see vkc_query11).
type device11 struct {
	subgroupSize, subgroupStages, subgroupOperations uint32
	minSubgroupSize, maxSubgroupSize                 uint32
	requiredSizeStages                               uint32
	sizeControl, fullSubgroups                       bool
	driverName, driverInfo                           string
	computeUnits, perUnit                            uint32
}

// query11 reads the Vulkan 1.1 properties; ok is false where the instance
// has no vkGetPhysicalDeviceProperties2.
func (f instanceFuncs) query11(pd unsafe.Pointer, sizeControl, driverProps, nv, amd bool) (d device11, ok bool) {
	var out C.vkc_device11
	if C.vkc_query11(f.t, pd, cbool(sizeControl), cbool(driverProps), cbool(nv), cbool(amd), &out) == 0 {
		return d, false
	}
	return device11{
		subgroupSize:       uint32(out.subgroupSize),
		subgroupStages:     uint32(out.subgroupStages),
		subgroupOperations: uint32(out.subgroupOperations),
		minSubgroupSize:    uint32(out.minSubgroupSize),
		maxSubgroupSize:    uint32(out.maxSubgroupSize),
		requiredSizeStages: uint32(out.requiredSizeStages),
		sizeControl:        out.sizeControl != 0,
		fullSubgroups:      out.fullSubgroups != 0,
		driverName:         goString(out.driverName[:]),
		driverInfo:         goString(out.driverInfo[:]),
		computeUnits:       uint32(out.computeUnits),
		perUnit:            uint32(out.perUnit),
	}, true
}

// deviceOptions are what createDevice enables.
type deviceOptions struct {
	family                      uint32
	push                        bool // VK_KHR_push_descriptor
	int64, float64              bool
	sizeControl, sizeControlExt bool
	statistics                  bool // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo
	portabilitySubset           bool // the device offers VK_KHR_portability_subset, which must then be enabled
}

// createDevice creates a device (see vkc_create_device).
func (f instanceFuncs) createDevice(pd unsafe.Pointer, o deviceOptions) (unsafe.Pointer, error) {
	var h unsafe.Pointer
	r := C.vkc_create_device(f.t, pd, C.uint32_t(o.family), cbool(o.push), cbool(o.int64), cbool(o.float64),
		cbool(o.sizeControl), cbool(o.sizeControlExt), cbool(o.statistics), cbool(o.portabilitySubset), &h)
	return h, check("vkCreateDevice", int32(r))
}

// ---- Validation messages.

// messageQueue is the C queue the debug-report callback fills.
type messageQueue struct{ q *C.vkc_messages }

func (f instanceFuncs) attachMessages() (messageQueue, error) {
	var q *C.vkc_messages
	if err := check("vkCreateDebugReportCallbackEXT", int32(C.vkc_attach_messages(f.t, &q))); err != nil {
		return messageQueue{}, err
	}
	return messageQueue{q}, nil
}

func (f instanceFuncs) detachMessages(m messageQueue) { C.vkc_detach_messages(f.t, m.q) }

// Debug-report flags (VkDebugReportFlagBitsEXT).
const (
	reportWarning     = 0x2
	reportPerformance = 0x4
	reportError       = 0x8
)

// take drains the queue.
func (m messageQueue) take() []Message {
	var out []Message
	for {
		p := C.vkc_take_message(m.q)
		if p == nil {
			return out
		}
		sev := "warning"
		switch {
		case p.flags&reportError != 0:
			sev = "error"
		case p.flags&reportPerformance != 0:
			sev = "performance"
		}
		out = append(out, Message{Severity: sev, Layer: C.GoString(p.layer), Code: int32(p.code), Text: C.GoString(p.text)})
		C.vkc_free_message(p)
	}
}

func (m messageQueue) free() { C.vkc_free_messages(m.q) }

// newSizeControlFeatures allocates, in C memory, a
// VkPhysicalDeviceSubgroupSizeControlFeatures enabling subgroupSizeControl
// and computeFullSubgroups, chained to next; free it with freeC.
func newSizeControlFeatures(next unsafe.Pointer) unsafe.Pointer {
	f := (*C.vkc_subgroup_size_control_features)(C.calloc(1, C.sizeof_vkc_subgroup_size_control_features))
	f.sType = 1000225002 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES
	f.pNext = next
	f.subgroupSizeControl = 1
	f.computeFullSubgroups = 1
	return unsafe.Pointer(f)
}

// freeC frees C memory.
func freeC(p unsafe.Pointer) { C.free(p) }
