package vk

// This file is the package's own small C layer. The binding (goki/vulkan)
// covers Vulkan 1.0 and marshals every struct through C memory it allocates;
// it has no vkEnumerateInstanceVersion, vkGetPhysicalDeviceProperties2,
// vkGetPhysicalDeviceFeatures2 or vkCmdPushDescriptorSetKHR, and its barrier
// call allocates on every use. The functions below take only flat values and
// arrays of integers (never Go memory that holds Go pointers) and build the
// Vulkan structs on the C stack, so they are leak-free on the recording path.
// The struct declarations mirror the Vulkan ABI; no Vulkan header is needed.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void* (*vkc_gipa_fn)(void* instance, const char* name);
typedef void* (*vkc_gdpa_fn)(void* device, const char* name);

static void* vkc_lib;
static vkc_gipa_fn vkc_gipa;

// vkc_open loads a Vulkan loader library. It returns NULL on success and a
// message otherwise.
static const char* vkc_open(const char* name) {
	void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		return dlerror();
	}
	void* f = dlsym(h, "vkGetInstanceProcAddr");
	if (f == NULL) {
		dlclose(h);
		return "the library has no vkGetInstanceProcAddr";
	}
	vkc_lib = h;
	vkc_gipa = (vkc_gipa_fn)f;
	return NULL;
}

static void* vkc_gipa_ptr(void) { return (void*)vkc_gipa; }

static void* vkc_instance_proc(void* instance, const char* name) {
	return vkc_gipa(instance, name);
}

static void* vkc_device_proc(void* gdpa, void* device, const char* name) {
	return ((vkc_gdpa_fn)gdpa)(device, name);
}

typedef int32_t (*vkc_enum_version_fn)(uint32_t*);
static int32_t vkc_enumerate_instance_version(void* fn, uint32_t* v) {
	return ((vkc_enum_version_fn)fn)(v);
}

// vkGetPhysicalDeviceProperties2 and vkGetPhysicalDeviceFeatures2 share this shape.
typedef void (*vkc_pd_query_fn)(void* pd, void* out);
static void vkc_pd_query(void* fn, void* pd, void* out) { ((vkc_pd_query_fn)fn)(pd, out); }

typedef struct {
	uint64_t buffer;
	uint64_t offset;
	uint64_t range;
} vkc_descriptor_buffer_info;

typedef struct {
	int32_t sType;
	const void* pNext;
	uint64_t dstSet;
	uint32_t dstBinding;
	uint32_t dstArrayElement;
	uint32_t descriptorCount;
	int32_t descriptorType;
	const void* pImageInfo;
	const vkc_descriptor_buffer_info* pBufferInfo;
	const void* pTexelBufferView;
} vkc_write_descriptor_set;

typedef struct {
	int32_t sType;
	const void* pNext;
	uint32_t srcAccessMask;
	uint32_t dstAccessMask;
} vkc_memory_barrier;

typedef struct {
	int32_t sType;
	const void* pNext;
	uint32_t srcAccessMask;
	uint32_t dstAccessMask;
	uint32_t srcQueueFamilyIndex;
	uint32_t dstQueueFamilyIndex;
	uint64_t buffer;
	uint64_t offset;
	uint64_t size;
} vkc_buffer_memory_barrier;

#define VKC_MAX_BINDINGS 32
#define VKC_MAX_BARRIERS 64

typedef void (*vkc_push_descriptor_fn)(void* cmd, int32_t bindPoint, uint64_t layout, uint32_t set,
	uint32_t count, const vkc_write_descriptor_set* writes);

// vkc_push_storage_buffers pushes count storage-buffer descriptors, binding i
// taking (buffers[i], offsets[i], ranges[i]).
static int vkc_push_storage_buffers(void* fn, void* cmd, uint64_t layout, uint32_t count,
	const uint64_t* buffers, const uint64_t* offsets, const uint64_t* ranges) {
	vkc_descriptor_buffer_info infos[VKC_MAX_BINDINGS];
	vkc_write_descriptor_set writes[VKC_MAX_BINDINGS];
	if (count > VKC_MAX_BINDINGS) {
		return -1;
	}
	for (uint32_t i = 0; i < count; i++) {
		infos[i].buffer = buffers[i];
		infos[i].offset = offsets[i];
		infos[i].range = ranges[i];
		memset(&writes[i], 0, sizeof writes[i]);
		writes[i].sType = 35; // VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
		writes[i].dstBinding = i;
		writes[i].descriptorCount = 1;
		writes[i].descriptorType = 7; // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
		writes[i].pBufferInfo = &infos[i];
	}
	((vkc_push_descriptor_fn)fn)(cmd, 1 , layout, 0, count, writes); // 1: VK_PIPELINE_BIND_POINT_COMPUTE
	return 0;
}

typedef void (*vkc_barrier_fn)(void* cmd, uint32_t srcStage, uint32_t dstStage, uint32_t dependencyFlags,
	uint32_t memoryCount, const vkc_memory_barrier* memory,
	uint32_t bufferCount, const vkc_buffer_memory_barrier* buffers,
	uint32_t imageCount, const void* images);

// vkc_barrier records one vkCmdPipelineBarrier with an optional global memory
// barrier (when globalSrc|globalDst is nonzero) and count buffer barriers, all
// with the same access masks.
static int vkc_barrier(void* fn, void* cmd, uint32_t srcStage, uint32_t dstStage,
	uint32_t globalSrc, uint32_t globalDst,
	uint32_t srcAccess, uint32_t dstAccess, uint32_t count,
	const uint64_t* buffers, const uint64_t* offsets, const uint64_t* sizes) {
	vkc_memory_barrier global;
	vkc_buffer_memory_barrier b[VKC_MAX_BARRIERS];
	if (count > VKC_MAX_BARRIERS) {
		return -1;
	}
	memset(&global, 0, sizeof global);
	global.sType = 46; // VK_STRUCTURE_TYPE_MEMORY_BARRIER
	global.srcAccessMask = globalSrc;
	global.dstAccessMask = globalDst;
	for (uint32_t i = 0; i < count; i++) {
		memset(&b[i], 0, sizeof b[i]);
		b[i].sType = 44; // VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER
		b[i].srcAccessMask = srcAccess;
		b[i].dstAccessMask = dstAccess;
		b[i].srcQueueFamilyIndex = ~0u; // VK_QUEUE_FAMILY_IGNORED
		b[i].dstQueueFamilyIndex = ~0u;
		b[i].buffer = buffers[i];
		b[i].offset = offsets[i];
		b[i].size = sizes[i];
	}
	uint32_t memoryCount = (globalSrc | globalDst) != 0 ? 1 : 0;
	((vkc_barrier_fn)fn)(cmd, srcStage, dstStage, 0, memoryCount, &global, count, b, 0, NULL);
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	vkb "github.com/goki/vulkan"
)

// maxBindings and maxBarriers are the C layer's fixed array sizes.
const (
	maxBindings = C.VKC_MAX_BINDINGS
	maxBarriers = C.VKC_MAX_BARRIERS
)

// loaderNames are the libraries tried, in order. Users have the versioned
// name from libvulkan1; the unversioned one comes only with libvulkan-dev.
var loaderNames = []string{"libvulkan.so.1", "libvulkan.so"}

var (
	loadOnce sync.Once
	loadErr  error
)

// ErrNoLoader is returned when no Vulkan loader library can be opened.
var ErrNoLoader = errors.New("vk: no Vulkan loader (libvulkan.so.1) found: install libvulkan1 and a Vulkan driver " +
	"(on Debian or Ubuntu: apt-get install libvulkan1 mesa-vulkan-drivers; mesa-vulkan-drivers gives the lavapipe CPU driver)")

// load opens the loader once per process and hands its vkGetInstanceProcAddr
// to the binding.
func load() error {
	loadOnce.Do(func() { loadErr = openLoader(loaderNames) })
	return loadErr
}

// openLoader opens the first library of names that loads and hands its
// vkGetInstanceProcAddr to the binding.
func openLoader(names []string) error {
	var msgs []string
	for _, name := range names {
		cname := C.CString(name)
		msg := C.vkc_open(cname)
		C.free(unsafe.Pointer(cname))
		if msg == nil {
			vkb.SetGetInstanceProcAddr(C.vkc_gipa_ptr())
			if err := vkb.Init(); err != nil {
				return fmt.Errorf("vk: initialising the binding: %w", err)
			}
			return nil
		}
		msgs = append(msgs, C.GoString(msg))
	}
	return fmt.Errorf("%w (%s)", ErrNoLoader, strings.Join(msgs, "; "))
}

// instanceProc returns a function pointer from vkGetInstanceProcAddr, or nil.
func instanceProc(instance vkb.Instance, name string) unsafe.Pointer {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return C.vkc_instance_proc(unsafe.Pointer(instance), cname)
}

// enumerateInstanceVersion returns the loader's instance version, 1.0 when
// the loader predates vkEnumerateInstanceVersion.
func enumerateInstanceVersion() (uint32, error) {
	fn := instanceProc(nil, "vkEnumerateInstanceVersion")
	if fn == nil {
		return vkb.MakeVersion(1, 0, 0), nil
	}
	var v C.uint32_t
	if r := C.vkc_enumerate_instance_version(fn, &v); r != 0 {
		return 0, newError("vkEnumerateInstanceVersion", int32(r))
	}
	return uint32(v), nil
}

// physicalDeviceQuery calls vkGetPhysicalDeviceProperties2 or
// vkGetPhysicalDeviceFeatures2 (by name) with a C-allocated structure chain.
func physicalDeviceQuery(instance vkb.Instance, pd vkb.PhysicalDevice, name string, out unsafe.Pointer) bool {
	fn := instanceProc(instance, name)
	if fn == nil {
		fn = instanceProc(instance, name+"KHR")
	}
	if fn == nil {
		return false
	}
	C.vkc_pd_query(fn, unsafe.Pointer(pd), out)
	return true
}

// deviceFuncs holds the device-level entry points the C layer calls.
type deviceFuncs struct {
	pushDescriptorSet unsafe.Pointer
	pipelineBarrier   unsafe.Pointer
}

func loadDeviceFuncs(instance vkb.Instance, device vkb.Device) (deviceFuncs, error) {
	gdpa := instanceProc(instance, "vkGetDeviceProcAddr")
	if gdpa == nil {
		return deviceFuncs{}, errors.New("vk: vkGetInstanceProcAddr gave no vkGetDeviceProcAddr")
	}
	get := func(name string) unsafe.Pointer {
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		return C.vkc_device_proc(gdpa, unsafe.Pointer(device), cname)
	}
	f := deviceFuncs{
		pushDescriptorSet: get("vkCmdPushDescriptorSetKHR"),
		pipelineBarrier:   get("vkCmdPipelineBarrier"),
	}
	if f.pushDescriptorSet == nil {
		return f, fmt.Errorf("%w: vkCmdPushDescriptorSetKHR is not available: enable the %s device extension",
			ErrUnsupported, extPushDescriptor)
	}
	if f.pipelineBarrier == nil {
		return f, errors.New("vk: vkGetDeviceProcAddr gave no vkCmdPipelineBarrier")
	}
	return f, nil
}

// handle converts a binding handle (a C pointer type, passed as
// unsafe.Pointer(h)) to the 64-bit value the C layer takes for
// non-dispatchable handles.
func handle(h unsafe.Pointer) uint64 { return uint64(uintptr(h)) }

func pushStorageBuffers(f *deviceFuncs, cmd vkb.CommandBuffer, layout vkb.PipelineLayout, buffers, offsets, ranges []uint64) {
	if len(buffers) == 0 {
		return
	}
	C.vkc_push_storage_buffers(f.pushDescriptorSet, unsafe.Pointer(cmd), C.uint64_t(handle(unsafe.Pointer(layout))), C.uint32_t(len(buffers)),
		(*C.uint64_t)(unsafe.Pointer(&buffers[0])), (*C.uint64_t)(unsafe.Pointer(&offsets[0])), (*C.uint64_t)(unsafe.Pointer(&ranges[0])))
}

func pipelineBarrier(f *deviceFuncs, cmd vkb.CommandBuffer, srcStage, dstStage PipelineStage, globalSrc, globalDst, srcAccess, dstAccess Access, buffers, offsets, sizes []uint64) {
	var pb, po, ps *C.uint64_t
	if len(buffers) > 0 {
		pb = (*C.uint64_t)(unsafe.Pointer(&buffers[0]))
		po = (*C.uint64_t)(unsafe.Pointer(&offsets[0]))
		ps = (*C.uint64_t)(unsafe.Pointer(&sizes[0]))
	}
	C.vkc_barrier(f.pipelineBarrier, unsafe.Pointer(cmd), C.uint32_t(srcStage), C.uint32_t(dstStage),
		C.uint32_t(globalSrc), C.uint32_t(globalDst), C.uint32_t(srcAccess), C.uint32_t(dstAccess),
		C.uint32_t(len(buffers)), pb, po, ps)
}

// cUserData allocates a small C block that carries an id through a C
// callback's user-data pointer.
func cUserData(id uint64) unsafe.Pointer {
	p := C.malloc(8)
	*(*uint64)(p) = id
	return p
}

func cFree(p unsafe.Pointer) { C.free(p) }

// cAlloc allocates n zeroed bytes of C memory; free them with cFree.
func cAlloc(n int) unsafe.Pointer { return C.calloc(1, C.size_t(n)) }
