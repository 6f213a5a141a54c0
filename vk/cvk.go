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

// vkc_compute_units reads the number of compute units (NVIDIA SMs, AMD CUs)
// from VK_NV_shader_sm_builtins or VK_AMD_shader_core_properties, through
// vkGetPhysicalDeviceProperties2 (fn). It leaves *units 0 when neither is
// offered.
typedef struct { int32_t sType; void* pNext; uint32_t shaderSMCount; uint32_t shaderWarpsPerSM; } vkc_sm_builtins_props;
typedef struct { int32_t sType; void* pNext; uint32_t shaderEngineCount; uint32_t shaderArraysPerEngineCount;
	uint32_t computeUnitsPerShaderArray; uint32_t simdPerComputeUnit; uint32_t wavefrontsPerSimd; uint32_t wavefrontSize;
	uint32_t rest[8]; } vkc_amd_core_props;
typedef struct { int32_t sType; void* pNext; uint64_t properties[103]; } vkc_properties2; // VkPhysicalDeviceProperties is 824 bytes
static void vkc_compute_units(void* fn, void* pd, int nv, int amd, uint32_t* units, uint32_t* perUnit) {
	vkc_sm_builtins_props sm = { 1000154001, NULL, 0, 0 };
	vkc_amd_core_props core;
	memset(&core, 0, sizeof core);
	core.sType = 1000185000;
	vkc_properties2 p2;
	memset(&p2, 0, sizeof p2);
	p2.sType = 1000059001; // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
	p2.pNext = nv ? (void*)&sm : amd ? (void*)&core : NULL;
	((vkc_pd_query_fn)fn)(pd, &p2);
	*units = 0;
	*perUnit = 0;
	if (nv) {
		*units = sm.shaderSMCount;
		*perUnit = sm.shaderWarpsPerSM;
	} else if (amd) {
		*units = core.shaderEngineCount * core.shaderArraysPerEngineCount * core.computeUnitsPerShaderArray;
		*perUnit = core.simdPerComputeUnit * core.wavefrontsPerSimd;
	}
}

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

// ---- Calls whose binding versions pass slices through unpackArgS*: the
// binding frees those C copies from a finalizer on an unreachable cell, so
// a garbage collection during the call can free memory the driver is
// using. These versions take flat values and build the structs here.

typedef int32_t (*vkc_enum_layers_fn)(uint32_t*, void*);
typedef struct { char layerName[256]; uint32_t specVersion; uint32_t implementationVersion; char description[256]; } vkc_layer_properties;

// vkc_has_instance_layer: 1 if the loader offers the layer, 0 if not, a
// negative VkResult on failure.
static int32_t vkc_has_instance_layer(void* fn, const char* name) {
	uint32_t n = 0;
	int32_t r = ((vkc_enum_layers_fn)fn)(&n, NULL);
	if (r != 0) return r;
	vkc_layer_properties* p = calloc(n ? n : 1, sizeof *p);
	if (p == NULL) return -1;
	r = ((vkc_enum_layers_fn)fn)(&n, p);
	int32_t found = 0;
	for (uint32_t i = 0; r >= 0 && i < n; i++) {
		if (strncmp(p[i].layerName, name, 256) == 0) found = 1;
	}
	free(p);
	return r < 0 ? r : found;
}

typedef int32_t (*vkc_enum_dev_ext_fn)(void*, const char*, uint32_t*, void*);
typedef struct { char extensionName[256]; uint32_t specVersion; } vkc_extension_properties;

// vkc_device_extensions writes the device's extension names, NUL-separated,
// into out (cap bytes); it returns a negative VkResult on failure, else the
// bytes written (or needed, if more than cap).
static int64_t vkc_device_extensions(void* fn, void* pd, char* out, int64_t cap) {
	uint32_t n = 0;
	int32_t r = ((vkc_enum_dev_ext_fn)fn)(pd, NULL, &n, NULL);
	if (r != 0) return r;
	vkc_extension_properties* p = calloc(n ? n : 1, sizeof *p);
	if (p == NULL) return -1;
	r = ((vkc_enum_dev_ext_fn)fn)(pd, NULL, &n, p);
	if (r < 0) { free(p); return r; }
	int64_t w = 0;
	for (uint32_t i = 0; i < n; i++) {
		size_t len = strnlen(p[i].extensionName, 256);
		if (w + (int64_t)len + 1 <= cap) {
			memcpy(out + w, p[i].extensionName, len);
			out[w + len] = 0;
		}
		w += len + 1;
	}
	free(p);
	return w;
}

typedef void (*vkc_queue_families_fn)(void*, uint32_t*, void*);
typedef struct { uint32_t queueFlags; uint32_t queueCount; uint32_t timestampValidBits; uint32_t extent[3]; } vkc_queue_family_properties;

// vkc_queue_families fills up to max entries of flags, counts and
// timestamp bits, and returns the number of families.
static uint32_t vkc_queue_families(void* fn, void* pd, uint32_t max, uint32_t* flags, uint32_t* counts, uint32_t* tsBits) {
	uint32_t n = 0;
	((vkc_queue_families_fn)fn)(pd, &n, NULL);
	vkc_queue_family_properties* p = calloc(n ? n : 1, sizeof *p);
	if (p == NULL) return 0;
	((vkc_queue_families_fn)fn)(pd, &n, p);
	for (uint32_t i = 0; i < n && i < max; i++) {
		flags[i] = p[i].queueFlags;
		counts[i] = p[i].queueCount;
		tsBits[i] = p[i].timestampValidBits;
	}
	free(p);
	return n;
}

typedef struct {
	int32_t sType;
	const void* pNext;
	uint32_t waitSemaphoreCount;
	const void* pWaitSemaphores;
	const void* pWaitDstStageMask;
	uint32_t commandBufferCount;
	void* const* pCommandBuffers;
	uint32_t signalSemaphoreCount;
	const void* pSignalSemaphores;
} vkc_submit_info;

typedef int32_t (*vkc_queue_submit_fn)(void*, uint32_t, const vkc_submit_info*, uint64_t);

static int32_t vkc_queue_submit(void* fn, void* queue, void* cmd, uint64_t fence) {
	vkc_submit_info info;
	memset(&info, 0, sizeof info);
	info.sType = 4; // VK_STRUCTURE_TYPE_SUBMIT_INFO
	info.commandBufferCount = 1;
	info.pCommandBuffers = &cmd;
	return ((vkc_queue_submit_fn)fn)(queue, 1, &info, fence);
}

typedef struct { uint64_t srcOffset, dstOffset, size; } vkc_buffer_copy;
typedef void (*vkc_copy_buffer_fn)(void*, uint64_t, uint64_t, uint32_t, const vkc_buffer_copy*);

static void vkc_copy_buffer(void* fn, void* cmd, uint64_t src, uint64_t dst, uint64_t srcOffset, uint64_t dstOffset, uint64_t size) {
	vkc_buffer_copy region = { srcOffset, dstOffset, size };
	((vkc_copy_buffer_fn)fn)(cmd, src, dst, 1, &region);
}

typedef struct {
	int32_t sType;
	const void* pNext;
	uint64_t memory;
	uint64_t offset;
	uint64_t size;
} vkc_mapped_memory_range;
typedef int32_t (*vkc_memory_ranges_fn)(void*, uint32_t, const vkc_mapped_memory_range*);

// vkc_whole_memory_range flushes or invalidates (by fn) all of memory.
static int32_t vkc_whole_memory_range(void* fn, void* device, uint64_t memory) {
	vkc_mapped_memory_range r;
	memset(&r, 0, sizeof r);
	r.sType = 6; // VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE
	r.memory = memory;
	r.size = ~0ull; // VK_WHOLE_SIZE
	return ((vkc_memory_ranges_fn)fn)(device, 1, &r);
}

typedef struct { uint32_t constantID; uint32_t offset; size_t size; } vkc_specialization_map_entry;
typedef struct {
	uint32_t mapEntryCount;
	const vkc_specialization_map_entry* pMapEntries;
	size_t dataSize;
	const void* pData;
} vkc_specialization_info;
typedef struct {
	int32_t sType;
	const void* pNext;
	uint32_t flags;
	uint32_t stage;
	uint64_t module;
	const char* pName;
	const vkc_specialization_info* pSpecializationInfo;
} vkc_pipeline_shader_stage_create_info;
typedef struct {
	int32_t sType;
	const void* pNext;
	uint32_t flags;
	vkc_pipeline_shader_stage_create_info stage;
	uint64_t layout;
	uint64_t basePipelineHandle;
	int32_t basePipelineIndex;
} vkc_compute_pipeline_create_info;
typedef int32_t (*vkc_create_compute_pipelines_fn)(void*, uint64_t, uint32_t, const vkc_compute_pipeline_create_info*, const void*, uint64_t*);

#define VKC_MAX_CONSTANTS 32

// vkc_create_compute_pipeline creates one compute pipeline from module
// (entry point "main") with count 32-bit specialization constants, constant
// i at ID i.
static int32_t vkc_create_compute_pipeline(void* fn, void* device, uint32_t createFlags, uint32_t stageFlags, uint64_t module, uint64_t layout,
	uint32_t count, const uint32_t* constants, uint64_t* pipeline) {
	vkc_specialization_map_entry entries[VKC_MAX_CONSTANTS];
	uint32_t data[VKC_MAX_CONSTANTS];
	if (count > VKC_MAX_CONSTANTS) return -13; // VK_ERROR_UNKNOWN; the Go side checks first
	for (uint32_t i = 0; i < count; i++) {
		entries[i].constantID = i;
		entries[i].offset = 4 * i;
		entries[i].size = 4;
		data[i] = constants[i];
	}
	vkc_specialization_info spec = { count, entries, 4 * (size_t)count, data };
	vkc_compute_pipeline_create_info info;
	memset(&info, 0, sizeof info);
	info.sType = 29; // VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
	info.flags = createFlags;
	info.stage.sType = 18; // VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
	info.stage.flags = stageFlags;
	info.stage.stage = 0x20; // VK_SHADER_STAGE_COMPUTE_BIT
	info.stage.module = module;
	info.stage.pName = "main";
	info.stage.pSpecializationInfo = count > 0 ? &spec : NULL;
	info.layout = layout;
	info.basePipelineIndex = -1;
	return ((vkc_create_compute_pipelines_fn)fn)(device, 0, 1, &info, NULL, pipeline);
}

// ---- Pipeline executable statistics (VK_KHR_pipeline_executable_properties).

typedef struct { int32_t sType; const void* pNext; uint64_t pipeline; } vkc_pipeline_info;
typedef struct { int32_t sType; void* pNext; uint32_t stages; char name[256]; char description[256]; uint32_t subgroupSize; } vkc_executable_properties;
typedef struct { int32_t sType; const void* pNext; uint64_t pipeline; uint32_t executableIndex; } vkc_executable_info;
typedef struct { int32_t sType; void* pNext; char name[256]; char description[256]; int32_t format; uint64_t value; } vkc_executable_statistic;
typedef int32_t (*vkc_get_executables_fn)(void*, const vkc_pipeline_info*, uint32_t*, vkc_executable_properties*);
typedef int32_t (*vkc_get_statistics_fn)(void*, const vkc_executable_info*, uint32_t*, vkc_executable_statistic*);

#define VKC_MAX_EXECUTABLES 8
#define VKC_MAX_STATISTICS 64

// vkc_pipeline_statistics fills out with up to VKC_MAX_EXECUTABLES
// executables' properties and, for executable e, up to VKC_MAX_STATISTICS
// statistics at stats[e * VKC_MAX_STATISTICS], their counts in counts[e].
// It returns a VkResult; *executables is the number filled.
static int32_t vkc_pipeline_statistics(void* getExecutables, void* getStatistics, void* device, uint64_t pipeline,
	uint32_t* executables, vkc_executable_properties* props, uint32_t* counts, vkc_executable_statistic* stats) {
	vkc_pipeline_info pinfo = { 1000269001, NULL, pipeline }; // VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR
	uint32_t n = VKC_MAX_EXECUTABLES;
	for (uint32_t i = 0; i < n; i++) {
		memset(&props[i], 0, sizeof props[i]);
		props[i].sType = 1000269002; // VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR
	}
	int32_t r = ((vkc_get_executables_fn)getExecutables)(device, &pinfo, &n, props);
	if (r < 0) return r;
	*executables = n;
	for (uint32_t e = 0; e < n; e++) {
		vkc_executable_info einfo = { 1000269003, NULL, pipeline, e }; // VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR
		vkc_executable_statistic* s = &stats[e * VKC_MAX_STATISTICS];
		uint32_t m = VKC_MAX_STATISTICS;
		for (uint32_t i = 0; i < m; i++) {
			memset(&s[i], 0, sizeof s[i]);
			s[i].sType = 1000269004; // VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR
		}
		int32_t r2 = ((vkc_get_statistics_fn)getStatistics)(device, &einfo, &m, s);
		if (r2 < 0) return r2;
		counts[e] = m;
	}
	return r;
}

// ---- Object creation with nested arrays. The binding's PassRef copies
// nested slices through the same finalizer-freed helpers (the parent takes
// them over a moment later, a small window); these build everything here.

typedef struct { int32_t sType; const void* pNext; const char* pApplicationName; uint32_t applicationVersion;
	const char* pEngineName; uint32_t engineVersion; uint32_t apiVersion; } vkc_application_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; const vkc_application_info* pApplicationInfo;
	uint32_t enabledLayerCount; const char* const* ppEnabledLayerNames;
	uint32_t enabledExtensionCount; const char* const* ppEnabledExtensionNames; } vkc_instance_create_info;
typedef struct { int32_t sType; const void* pNext; uint32_t enabledValidationFeatureCount; const int32_t* pEnabledValidationFeatures;
	uint32_t disabledValidationFeatureCount; const int32_t* pDisabledValidationFeatures; } vkc_validation_features;
typedef int32_t (*vkc_create_instance_fn)(const vkc_instance_create_info*, const void*, void**);

// vkc_create_instance creates an instance at apiVersion; with validate, it
// enables the Khronos validation layer with synchronisation validation and
// the debug-report extension.
static int32_t vkc_create_instance(void* fn, uint32_t apiVersion, int validate, void** instance) {
	static const char* layers[] = { "VK_LAYER_KHRONOS_validation" };
	static const char* exts[] = { "VK_EXT_debug_report", "VK_EXT_validation_features" };
	static const int32_t enables[] = { 4 }; // VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
	vkc_validation_features features = { 1000247000, NULL, 1, enables, 0, NULL }; // VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT
	vkc_application_info app = { 0, NULL, "vkcompact", 0, "vkcompact", 0, apiVersion }; // VK_STRUCTURE_TYPE_APPLICATION_INFO
	vkc_instance_create_info info;
	memset(&info, 0, sizeof info);
	info.sType = 1; // VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
	info.pApplicationInfo = &app;
	if (validate) {
		info.pNext = &features;
		info.enabledLayerCount = 1;
		info.ppEnabledLayerNames = layers;
		info.enabledExtensionCount = 2;
		info.ppEnabledExtensionNames = exts;
	}
	return ((vkc_create_instance_fn)fn)(&info, NULL, instance);
}

typedef struct { int32_t sType; void* pNext; uint32_t subgroupSizeControl; uint32_t computeFullSubgroups; } vkc_subgroup_size_control_features;
typedef struct { int32_t sType; void* pNext; uint32_t pipelineExecutableInfo; } vkc_pipeline_executable_features;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t queueFamilyIndex; uint32_t queueCount;
	const float* pQueuePriorities; } vkc_device_queue_create_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t queueCreateInfoCount;
	const vkc_device_queue_create_info* pQueueCreateInfos; uint32_t enabledLayerCount; const char* const* ppEnabledLayerNames;
	uint32_t enabledExtensionCount; const char* const* ppEnabledExtensionNames; const uint32_t* pEnabledFeatures; } vkc_device_create_info;
typedef int32_t (*vkc_create_device_fn)(void*, const vkc_device_create_info*, const void*, void**);

#define VKC_FEATURE_COUNT 55 // VkBool32 members of VkPhysicalDeviceFeatures
#define VKC_FEATURE_SHADER_FLOAT64 39
#define VKC_FEATURE_SHADER_INT64 40

// vkc_create_device creates a device with one queue of family, the
// push-descriptor extension, and the optional features asked for.
// sizeControlExt adds VK_EXT_subgroup_size_control (before Vulkan 1.3).
static int32_t vkc_create_device(void* fn, void* pd, uint32_t family, int int64, int float64,
	int sizeControl, int sizeControlExt, int statistics, void** device) {
	static const float priority = 1.0f;
	const char* exts[3] = { "VK_KHR_push_descriptor", NULL, NULL };
	uint32_t extCount = 1;
	if (sizeControlExt) exts[extCount++] = "VK_EXT_subgroup_size_control";
	if (statistics) exts[extCount++] = "VK_KHR_pipeline_executable_properties";
	uint32_t features[VKC_FEATURE_COUNT];
	memset(features, 0, sizeof features);
	features[VKC_FEATURE_SHADER_INT64] = int64 ? 1 : 0;
	features[VKC_FEATURE_SHADER_FLOAT64] = float64 ? 1 : 0;
	vkc_pipeline_executable_features exe = { 1000269000, NULL, 1 }; // ..._PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR
	vkc_subgroup_size_control_features ctl = { 1000225002, statistics ? &exe : NULL, 1, 1 }; // ..._SUBGROUP_SIZE_CONTROL_FEATURES
	vkc_device_queue_create_info queue = { 2, NULL, 0, family, 1, &priority }; // VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
	vkc_device_create_info info;
	memset(&info, 0, sizeof info);
	info.sType = 3; // VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
	info.pNext = sizeControl ? (void*)&ctl : statistics ? (void*)&exe : NULL;
	info.queueCreateInfoCount = 1;
	info.pQueueCreateInfos = &queue;
	info.enabledExtensionCount = extCount;
	info.ppEnabledExtensionNames = exts;
	info.pEnabledFeatures = features;
	return ((vkc_create_device_fn)fn)(pd, &info, NULL, device);
}

typedef struct { int32_t sType; const void* pNext; uint32_t flags; size_t codeSize; const uint32_t* pCode; } vkc_shader_module_create_info;
typedef int32_t (*vkc_create_shader_module_fn)(void*, const vkc_shader_module_create_info*, const void*, uint64_t*);

static int32_t vkc_create_shader_module(void* fn, void* device, const uint32_t* code, size_t size, uint64_t* module) {
	vkc_shader_module_create_info info = { 16, NULL, 0, size, code }; // VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
	return ((vkc_create_shader_module_fn)fn)(device, &info, NULL, module);
}

typedef struct { uint32_t binding; int32_t descriptorType; uint32_t descriptorCount; uint32_t stageFlags; const void* pImmutableSamplers; } vkc_descriptor_set_layout_binding;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t bindingCount; const vkc_descriptor_set_layout_binding* pBindings; } vkc_descriptor_set_layout_create_info;
typedef int32_t (*vkc_create_set_layout_fn)(void*, const vkc_descriptor_set_layout_create_info*, const void*, uint64_t*);

// vkc_create_push_set_layout creates a push-descriptor set layout of count
// storage buffers for the compute stage, at bindings 0..count-1.
static int32_t vkc_create_push_set_layout(void* fn, void* device, uint32_t count, uint64_t* layout) {
	vkc_descriptor_set_layout_binding b[VKC_MAX_BINDINGS];
	if (count > VKC_MAX_BINDINGS) return -13;
	for (uint32_t i = 0; i < count; i++) {
		b[i].binding = i;
		b[i].descriptorType = 7; // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
		b[i].descriptorCount = 1;
		b[i].stageFlags = 0x20; // VK_SHADER_STAGE_COMPUTE_BIT
		b[i].pImmutableSamplers = NULL;
	}
	// VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, ..._PUSH_DESCRIPTOR_BIT_KHR
	vkc_descriptor_set_layout_create_info info = { 32, NULL, 0x1, count, b };
	return ((vkc_create_set_layout_fn)fn)(device, &info, NULL, layout);
}

typedef struct { uint32_t stageFlags; uint32_t offset; uint32_t size; } vkc_push_constant_range;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t setLayoutCount; const uint64_t* pSetLayouts;
	uint32_t pushConstantRangeCount; const vkc_push_constant_range* pPushConstantRanges; } vkc_pipeline_layout_create_info;
typedef int32_t (*vkc_create_pipeline_layout_fn)(void*, const vkc_pipeline_layout_create_info*, const void*, uint64_t*);

static int32_t vkc_create_pipeline_layout(void* fn, void* device, uint64_t setLayout, uint32_t pushSize, uint64_t* layout) {
	vkc_push_constant_range range = { 0x20, 0, pushSize }; // VK_SHADER_STAGE_COMPUTE_BIT
	vkc_pipeline_layout_create_info info = { 30, NULL, 0, 1, &setLayout, pushSize > 0 ? 1 : 0, &range }; // ..._PIPELINE_LAYOUT_CREATE_INFO
	return ((vkc_create_pipeline_layout_fn)fn)(device, &info, NULL, layout);
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

// loaderProcAddr returns the loaded vkGetInstanceProcAddr.
func loaderProcAddr() unsafe.Pointer { return unsafe.Pointer(C.vkc_gipa_ptr()) }

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

// computeUnits reports the device's compute units and the subgroups each
// keeps resident, where an extension says (see vkc_compute_units).
func computeUnits(instance vkb.Instance, pd vkb.PhysicalDevice, nv, amd bool) (units, perUnit uint32) {
	if !nv && !amd {
		return 0, 0
	}
	fn := instanceProc(instance, "vkGetPhysicalDeviceProperties2")
	if fn == nil {
		fn = instanceProc(instance, "vkGetPhysicalDeviceProperties2KHR")
	}
	if fn == nil {
		return 0, 0
	}
	var u, p C.uint32_t
	C.vkc_compute_units(fn, unsafe.Pointer(pd), cbool(nv), cbool(amd), &u, &p)
	return uint32(u), uint32(p)
}

// deviceFuncs holds the device-level entry points the C layer calls.
type deviceFuncs struct {
	pushDescriptorSet      unsafe.Pointer
	pipelineBarrier        unsafe.Pointer
	queueSubmit            unsafe.Pointer
	cmdCopyBuffer          unsafe.Pointer
	createComputePipelines unsafe.Pointer
	flushMemory            unsafe.Pointer
	invalidateMemory       unsafe.Pointer
	createShaderModule     unsafe.Pointer
	createSetLayout        unsafe.Pointer
	createPipelineLayout   unsafe.Pointer
	getExecutables         unsafe.Pointer // nil unless VK_KHR_pipeline_executable_properties is enabled
	getStatistics          unsafe.Pointer
}

func loadDeviceFuncs(instance vkb.Instance, device vkb.Device, statistics bool) (deviceFuncs, error) {
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
		pushDescriptorSet:      get("vkCmdPushDescriptorSetKHR"),
		pipelineBarrier:        get("vkCmdPipelineBarrier"),
		queueSubmit:            get("vkQueueSubmit"),
		cmdCopyBuffer:          get("vkCmdCopyBuffer"),
		createComputePipelines: get("vkCreateComputePipelines"),
		flushMemory:            get("vkFlushMappedMemoryRanges"),
		invalidateMemory:       get("vkInvalidateMappedMemoryRanges"),
		createShaderModule:     get("vkCreateShaderModule"),
		createSetLayout:        get("vkCreateDescriptorSetLayout"),
		createPipelineLayout:   get("vkCreatePipelineLayout"),
	}
	if statistics {
		f.getExecutables = get("vkGetPipelineExecutablePropertiesKHR")
		f.getStatistics = get("vkGetPipelineExecutableStatisticsKHR")
		if f.getExecutables == nil || f.getStatistics == nil {
			return f, errors.New("vk: vkGetDeviceProcAddr gave no vkGetPipelineExecutable{Properties,Statistics}KHR")
		}
	}
	if f.pushDescriptorSet == nil {
		return f, fmt.Errorf("%w: vkCmdPushDescriptorSetKHR is not available: enable the %s device extension",
			ErrUnsupported, extPushDescriptor)
	}
	for name, p := range map[string]unsafe.Pointer{"vkCmdPipelineBarrier": f.pipelineBarrier, "vkQueueSubmit": f.queueSubmit,
		"vkCmdCopyBuffer": f.cmdCopyBuffer, "vkCreateComputePipelines": f.createComputePipelines,
		"vkFlushMappedMemoryRanges": f.flushMemory, "vkInvalidateMappedMemoryRanges": f.invalidateMemory,
		"vkCreateShaderModule": f.createShaderModule, "vkCreateDescriptorSetLayout": f.createSetLayout,
		"vkCreatePipelineLayout": f.createPipelineLayout} {
		if p == nil {
			return f, errors.New("vk: vkGetDeviceProcAddr gave no " + name)
		}
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

// hasInstanceLayer reports whether the loader offers the named layer.
func hasInstanceLayer(name string) (bool, error) {
	fn := instanceProc(nil, "vkEnumerateInstanceLayerProperties")
	if fn == nil {
		return false, errors.New("vk: the loader has no vkEnumerateInstanceLayerProperties")
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	r := C.vkc_has_instance_layer(fn, cname)
	if r < 0 {
		return false, newError("vkEnumerateInstanceLayerProperties", int32(r))
	}
	return r == 1, nil
}

// deviceExtensions lists the device's extensions.
func deviceExtensions(instance vkb.Instance, pd vkb.PhysicalDevice) (map[string]bool, error) {
	fn := instanceProc(instance, "vkEnumerateDeviceExtensionProperties")
	if fn == nil {
		return nil, errors.New("vk: the loader has no vkEnumerateDeviceExtensionProperties")
	}
	buf := make([]byte, 64<<10)
	for {
		n := C.vkc_device_extensions(fn, unsafe.Pointer(pd), (*C.char)(unsafe.Pointer(&buf[0])), C.int64_t(len(buf)))
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

// queueFamily is one queue family's properties.
type queueFamily struct {
	flags, count, timestampBits uint32
}

func queueFamilies(instance vkb.Instance, pd vkb.PhysicalDevice) []queueFamily {
	fn := instanceProc(instance, "vkGetPhysicalDeviceQueueFamilyProperties")
	if fn == nil {
		return nil
	}
	const max = 64
	var flags, counts, bits [max]C.uint32_t
	n := int(C.vkc_queue_families(fn, unsafe.Pointer(pd), max, &flags[0], &counts[0], &bits[0]))
	fams := make([]queueFamily, min(n, max))
	for i := range fams {
		fams[i] = queueFamily{uint32(flags[i]), uint32(counts[i]), uint32(bits[i])}
	}
	return fams
}

func queueSubmit(f *deviceFuncs, queue vkb.Queue, cmd vkb.CommandBuffer, fence vkb.Fence) int32 {
	return int32(C.vkc_queue_submit(f.queueSubmit, unsafe.Pointer(queue), unsafe.Pointer(cmd), C.uint64_t(handle(unsafe.Pointer(fence)))))
}

func cmdCopyBuffer(f *deviceFuncs, cmd vkb.CommandBuffer, src, dst vkb.Buffer, srcOffset, dstOffset, size uint64) {
	C.vkc_copy_buffer(f.cmdCopyBuffer, unsafe.Pointer(cmd), C.uint64_t(handle(unsafe.Pointer(src))), C.uint64_t(handle(unsafe.Pointer(dst))),
		C.uint64_t(srcOffset), C.uint64_t(dstOffset), C.uint64_t(size))
}

// wholeMemoryRange flushes (flush true) or invalidates all of mem.
func wholeMemoryRange(f *deviceFuncs, device vkb.Device, mem vkb.DeviceMemory, flush bool) int32 {
	fn := f.invalidateMemory
	if flush {
		fn = f.flushMemory
	}
	return int32(C.vkc_whole_memory_range(fn, unsafe.Pointer(device), C.uint64_t(handle(unsafe.Pointer(mem)))))
}

// maxConstants is the most specialization constants a pipeline takes.
const maxConstants = C.VKC_MAX_CONSTANTS

func createComputePipeline(f *deviceFuncs, device vkb.Device, createFlags, stageFlags uint32, module vkb.ShaderModule, layout vkb.PipelineLayout, constants []uint32) (vkb.Pipeline, int32) {
	var pc *C.uint32_t
	if len(constants) > 0 {
		pc = (*C.uint32_t)(unsafe.Pointer(&constants[0]))
	}
	var out C.uint64_t
	r := C.vkc_create_compute_pipeline(f.createComputePipelines, unsafe.Pointer(device), C.uint32_t(createFlags), C.uint32_t(stageFlags),
		C.uint64_t(handle(unsafe.Pointer(module))), C.uint64_t(handle(unsafe.Pointer(layout))),
		C.uint32_t(len(constants)), pc, &out)
	// A non-dispatchable handle is a pointer-sized C value on 64-bit
	// platforms; convert it back through a C-typed cell.
	return *(*vkb.Pipeline)(unsafe.Pointer(&out)), int32(r)
}

// createInstanceC creates an instance (see vkc_create_instance).
func createInstanceC(apiVersion uint32, validate bool) (vkb.Instance, error) {
	fn := instanceProc(nil, "vkCreateInstance")
	if fn == nil {
		return nil, errors.New("vk: the loader has no vkCreateInstance")
	}
	v := C.int(0)
	if validate {
		v = 1
	}
	var h unsafe.Pointer
	r := C.vkc_create_instance(fn, C.uint32_t(apiVersion), v, &h)
	return vkb.Instance(h), check("vkCreateInstance", vkb.Result(r))
}

// deviceOptions are what createDeviceC enables.
type deviceOptions struct {
	family                      uint32
	int64, float64              bool
	sizeControl, sizeControlExt bool
	statistics                  bool // VK_KHR_pipeline_executable_properties with pipelineExecutableInfo
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// createDeviceC creates a device (see vkc_create_device).
func createDeviceC(instance vkb.Instance, pd vkb.PhysicalDevice, o deviceOptions) (vkb.Device, error) {
	fn := instanceProc(instance, "vkCreateDevice")
	if fn == nil {
		return nil, errors.New("vk: the loader has no vkCreateDevice")
	}
	var h unsafe.Pointer
	r := C.vkc_create_device(fn, unsafe.Pointer(pd), C.uint32_t(o.family), cbool(o.int64), cbool(o.float64),
		cbool(o.sizeControl), cbool(o.sizeControlExt), cbool(o.statistics), &h)
	return vkb.Device(h), check("vkCreateDevice", vkb.Result(r))
}

// A non-dispatchable handle comes back from C as a 64-bit value; on 64-bit
// platforms the binding's handle types are pointer-sized C values, read
// here through a C-typed cell.

func createShaderModuleC(f *deviceFuncs, device vkb.Device, code []uint32) (vkb.ShaderModule, int32) {
	var out C.uint64_t
	r := C.vkc_create_shader_module(f.createShaderModule, unsafe.Pointer(device), (*C.uint32_t)(unsafe.Pointer(&code[0])), C.size_t(4*len(code)), &out)
	return *(*vkb.ShaderModule)(unsafe.Pointer(&out)), int32(r)
}

func createPushSetLayoutC(f *deviceFuncs, device vkb.Device, bindings int) (vkb.DescriptorSetLayout, int32) {
	var out C.uint64_t
	r := C.vkc_create_push_set_layout(f.createSetLayout, unsafe.Pointer(device), C.uint32_t(bindings), &out)
	return *(*vkb.DescriptorSetLayout)(unsafe.Pointer(&out)), int32(r)
}

func createPipelineLayoutC(f *deviceFuncs, device vkb.Device, set vkb.DescriptorSetLayout, pushSize uint32) (vkb.PipelineLayout, int32) {
	var out C.uint64_t
	r := C.vkc_create_pipeline_layout(f.createPipelineLayout, unsafe.Pointer(device), C.uint64_t(handle(unsafe.Pointer(set))), C.uint32_t(pushSize), &out)
	return *(*vkb.PipelineLayout)(unsafe.Pointer(&out)), int32(r)
}

// rawStatistic is one statistic as the C layer returns it.
type rawStatistic struct {
	executable, description, name, statDescription string
	subgroupSize                                   uint32
	format                                         int32
	value                                          uint64
}

func pipelineStatisticsC(f *deviceFuncs, device vkb.Device, pipeline vkb.Pipeline) ([]rawStatistic, int32) {
	var n C.uint32_t
	var props [C.VKC_MAX_EXECUTABLES]C.vkc_executable_properties
	var counts [C.VKC_MAX_EXECUTABLES]C.uint32_t
	stats := (*[C.VKC_MAX_EXECUTABLES * C.VKC_MAX_STATISTICS]C.vkc_executable_statistic)(C.calloc(C.VKC_MAX_EXECUTABLES*C.VKC_MAX_STATISTICS, C.size_t(unsafe.Sizeof(C.vkc_executable_statistic{}))))
	defer C.free(unsafe.Pointer(stats))
	r := C.vkc_pipeline_statistics(f.getExecutables, f.getStatistics, unsafe.Pointer(device), C.uint64_t(handle(unsafe.Pointer(pipeline))),
		&n, &props[0], &counts[0], &stats[0])
	if r < 0 {
		return nil, int32(r)
	}
	var out []rawStatistic
	for e := 0; e < int(n) && e < C.VKC_MAX_EXECUTABLES; e++ {
		p := &props[e]
		for i := 0; i < int(counts[e]) && i < C.VKC_MAX_STATISTICS; i++ {
			s := &stats[e*C.VKC_MAX_STATISTICS+i]
			out = append(out, rawStatistic{
				executable:      C.GoString(&p.name[0]),
				description:     C.GoString(&p.description[0]),
				subgroupSize:    uint32(p.subgroupSize),
				name:            C.GoString(&s.name[0]),
				statDescription: C.GoString(&s.description[0]),
				format:          int32(s.format),
				value:           uint64(s.value),
			})
		}
	}
	return out, int32(r)
}
