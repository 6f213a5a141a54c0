// vkc.h: vkcompact's own C layer over Vulkan, included by cvk.go alone.
//
// Every function here is static and every name is prefixed vkc_, so the
// layer defines no global symbol: a program links any other Vulkan binding
// (vulkan-go/vulkan, goki/vulkan, ...) beside vkcompact. The loader is
// opened with dlopen (LoadLibrary on Windows), and every Vulkan function is reached through
// vkGetInstanceProcAddr and vkGetDeviceProcAddr into the two tables below.
// The only platform code is the seam below: opening the loader library
// (dlopen, or LoadLibrary on Windows) and one mutex (pthreads, or an SRW
// lock on Windows).
// The functions take flat values and arrays of integers (never Go memory
// that holds Go pointers) and build Vulkan's structs on the C stack. The
// structs mirror the Vulkan ABI, so no Vulkan header is needed to build;
// TestCLayout compares each with vulkan_core.h.
#ifndef VKCOMPACT_VKC_H
#define VKCOMPACT_VKC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// ---- The platform seam.

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#define NOMINMAX
#include <stdio.h>
#include <windows.h>

static void* vkc_lib_open(const char* name) { return (void*)LoadLibraryA(name); }
static void* vkc_lib_sym(void* lib, const char* name) { return (void*)GetProcAddress((HMODULE)lib, name); }
static void vkc_lib_close(void* lib) { FreeLibrary((HMODULE)lib); }

// vkc_lib_error describes the last failure of vkc_lib_open.
static const char* vkc_lib_error(void) {
	static char msg[256];
	DWORD code = GetLastError();
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, msg, sizeof msg, NULL);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.')) msg[--n] = 0;
	if (n == 0) {
		snprintf(msg, sizeof msg, "LoadLibrary: error %lu", (unsigned long)code);
	}
	return msg;
}

typedef SRWLOCK vkc_mutex;
static void vkc_mutex_init(vkc_mutex* m) { InitializeSRWLock(m); }
static void vkc_mutex_lock(vkc_mutex* m) { AcquireSRWLockExclusive(m); }
static void vkc_mutex_unlock(vkc_mutex* m) { ReleaseSRWLockExclusive(m); }
static void vkc_mutex_destroy(vkc_mutex* m) { (void)m; }
#else
#include <dlfcn.h>
#include <pthread.h>

static void* vkc_lib_open(const char* name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static void* vkc_lib_sym(void* lib, const char* name) { return dlsym(lib, name); }
static void vkc_lib_close(void* lib) { dlclose(lib); }
static const char* vkc_lib_error(void) { return dlerror(); }

typedef pthread_mutex_t vkc_mutex;
static void vkc_mutex_init(vkc_mutex* m) { pthread_mutex_init(m, NULL); }
static void vkc_mutex_lock(vkc_mutex* m) { pthread_mutex_lock(m); }
static void vkc_mutex_unlock(vkc_mutex* m) { pthread_mutex_unlock(m); }
static void vkc_mutex_destroy(vkc_mutex* m) { pthread_mutex_destroy(m); }
#endif

#define VKC_MAX_BINDINGS 32
#define VKC_MAX_BARRIERS 64
#define VKC_MAX_CONSTANTS 32
#define VKC_MAX_EXECUTABLES 8
#define VKC_MAX_STATISTICS 64

// VkResult values the C side returns itself.
#define VKC_ERROR_UNKNOWN (-13)
#define VKC_ERROR_OUT_OF_HOST_MEMORY (-1)

typedef void* (*vkc_gipa_fn)(void* instance, const char* name);
typedef void* (*vkc_gdpa_fn)(void* device, const char* name);

// ---- The loader.

static void* vkc_lib;
static vkc_gipa_fn vkc_gipa;

// vkc_open loads a Vulkan loader library. It returns NULL on success and a
// message otherwise.
static const char* vkc_open(const char* name) {
	void* h = vkc_lib_open(name);
	if (h == NULL) {
		return vkc_lib_error();
	}
	void* f = vkc_lib_sym(h, "vkGetInstanceProcAddr");
	if (f == NULL) {
		vkc_lib_close(h);
		return "the library has no vkGetInstanceProcAddr";
	}
	vkc_lib = h;
	vkc_gipa = (vkc_gipa_fn)f;
	return NULL;
}

static void* vkc_gipa_ptr(void) { return (void*)vkc_gipa; }

static void* vkc_instance_proc(void* instance, const char* name) { return vkc_gipa(instance, name); }

// ---- Struct mirrors (TestCLayout checks each against vulkan_core.h).

typedef struct { uint64_t buffer; uint64_t offset; uint64_t range; } vkc_descriptor_buffer_info;
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
typedef struct { int32_t sType; const void* pNext; uint32_t srcAccessMask; uint32_t dstAccessMask; } vkc_memory_barrier;
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
typedef struct { char layerName[256]; uint32_t specVersion; uint32_t implementationVersion; char description[256]; } vkc_layer_properties;
typedef struct { char extensionName[256]; uint32_t specVersion; } vkc_extension_properties;
typedef struct { uint32_t queueFlags; uint32_t queueCount; uint32_t timestampValidBits; uint32_t extent[3]; } vkc_queue_family_properties;
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
typedef struct { uint64_t srcOffset, dstOffset, size; } vkc_buffer_copy;
typedef struct { int32_t sType; const void* pNext; uint64_t memory; uint64_t offset; uint64_t size; } vkc_mapped_memory_range;
typedef struct { uint32_t constantID; uint32_t offset; size_t size; } vkc_specialization_map_entry;
typedef struct { uint32_t mapEntryCount; const vkc_specialization_map_entry* pMapEntries; size_t dataSize; const void* pData; } vkc_specialization_info;
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
typedef struct { int32_t sType; const void* pNext; uint64_t pipeline; } vkc_pipeline_info;
typedef struct { int32_t sType; void* pNext; uint32_t stages; char name[256]; char description[256]; uint32_t subgroupSize; } vkc_executable_properties;
typedef struct { int32_t sType; const void* pNext; uint64_t pipeline; uint32_t executableIndex; } vkc_executable_info;
typedef struct { int32_t sType; void* pNext; char name[256]; char description[256]; int32_t format; uint64_t value; } vkc_executable_statistic;
typedef struct { int32_t sType; const void* pNext; const char* pApplicationName; uint32_t applicationVersion;
	const char* pEngineName; uint32_t engineVersion; uint32_t apiVersion; } vkc_application_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; const vkc_application_info* pApplicationInfo;
	uint32_t enabledLayerCount; const char* const* ppEnabledLayerNames;
	uint32_t enabledExtensionCount; const char* const* ppEnabledExtensionNames; } vkc_instance_create_info;
typedef struct { int32_t sType; const void* pNext; uint32_t enabledValidationFeatureCount; const int32_t* pEnabledValidationFeatures;
	uint32_t disabledValidationFeatureCount; const int32_t* pDisabledValidationFeatures; } vkc_validation_features;
typedef struct { int32_t sType; void* pNext; uint32_t subgroupSizeControl; uint32_t computeFullSubgroups; } vkc_subgroup_size_control_features;
typedef struct { int32_t sType; void* pNext; uint32_t pipelineExecutableInfo; } vkc_pipeline_executable_features;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t queueFamilyIndex; uint32_t queueCount;
	const float* pQueuePriorities; } vkc_device_queue_create_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t queueCreateInfoCount;
	const vkc_device_queue_create_info* pQueueCreateInfos; uint32_t enabledLayerCount; const char* const* ppEnabledLayerNames;
	uint32_t enabledExtensionCount; const char* const* ppEnabledExtensionNames; const uint32_t* pEnabledFeatures; } vkc_device_create_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; size_t codeSize; const uint32_t* pCode; } vkc_shader_module_create_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; size_t initialDataSize; const void* pInitialData; } vkc_pipeline_cache_create_info;
typedef struct { uint32_t binding; int32_t descriptorType; uint32_t descriptorCount; uint32_t stageFlags; const void* pImmutableSamplers; } vkc_descriptor_set_layout_binding;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t bindingCount; const vkc_descriptor_set_layout_binding* pBindings; } vkc_descriptor_set_layout_create_info;
typedef struct { uint32_t stageFlags; uint32_t offset; uint32_t size; } vkc_push_constant_range;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t setLayoutCount; const uint64_t* pSetLayouts;
	uint32_t pushConstantRangeCount; const vkc_push_constant_range* pPushConstantRanges; } vkc_pipeline_layout_create_info;
typedef struct { int32_t sType; void* pNext; uint32_t shaderSMCount; uint32_t shaderWarpsPerSM; } vkc_sm_builtins_props;
typedef struct { int32_t sType; void* pNext; uint32_t shaderEngineCount; uint32_t shaderArraysPerEngineCount;
	uint32_t computeUnitsPerShaderArray; uint32_t simdPerComputeUnit; uint32_t wavefrontsPerSimd; uint32_t wavefrontSize;
	uint32_t rest[8]; } vkc_amd_core_props;
// vkc_limits mirrors VkPhysicalDeviceLimits whole.
typedef struct {
	uint32_t maxImageDimension1D;
	uint32_t maxImageDimension2D;
	uint32_t maxImageDimension3D;
	uint32_t maxImageDimensionCube;
	uint32_t maxImageArrayLayers;
	uint32_t maxTexelBufferElements;
	uint32_t maxUniformBufferRange;
	uint32_t maxStorageBufferRange;
	uint32_t maxPushConstantsSize;
	uint32_t maxMemoryAllocationCount;
	uint32_t maxSamplerAllocationCount;
	uint64_t bufferImageGranularity;
	uint64_t sparseAddressSpaceSize;
	uint32_t maxBoundDescriptorSets;
	uint32_t maxPerStageDescriptorSamplers;
	uint32_t maxPerStageDescriptorUniformBuffers;
	uint32_t maxPerStageDescriptorStorageBuffers;
	uint32_t maxPerStageDescriptorSampledImages;
	uint32_t maxPerStageDescriptorStorageImages;
	uint32_t maxPerStageDescriptorInputAttachments;
	uint32_t maxPerStageResources;
	uint32_t maxDescriptorSetSamplers;
	uint32_t maxDescriptorSetUniformBuffers;
	uint32_t maxDescriptorSetUniformBuffersDynamic;
	uint32_t maxDescriptorSetStorageBuffers;
	uint32_t maxDescriptorSetStorageBuffersDynamic;
	uint32_t maxDescriptorSetSampledImages;
	uint32_t maxDescriptorSetStorageImages;
	uint32_t maxDescriptorSetInputAttachments;
	uint32_t maxVertexInputAttributes;
	uint32_t maxVertexInputBindings;
	uint32_t maxVertexInputAttributeOffset;
	uint32_t maxVertexInputBindingStride;
	uint32_t maxVertexOutputComponents;
	uint32_t maxTessellationGenerationLevel;
	uint32_t maxTessellationPatchSize;
	uint32_t maxTessellationControlPerVertexInputComponents;
	uint32_t maxTessellationControlPerVertexOutputComponents;
	uint32_t maxTessellationControlPerPatchOutputComponents;
	uint32_t maxTessellationControlTotalOutputComponents;
	uint32_t maxTessellationEvaluationInputComponents;
	uint32_t maxTessellationEvaluationOutputComponents;
	uint32_t maxGeometryShaderInvocations;
	uint32_t maxGeometryInputComponents;
	uint32_t maxGeometryOutputComponents;
	uint32_t maxGeometryOutputVertices;
	uint32_t maxGeometryTotalOutputComponents;
	uint32_t maxFragmentInputComponents;
	uint32_t maxFragmentOutputAttachments;
	uint32_t maxFragmentDualSrcAttachments;
	uint32_t maxFragmentCombinedOutputResources;
	uint32_t maxComputeSharedMemorySize;
	uint32_t maxComputeWorkGroupCount[3];
	uint32_t maxComputeWorkGroupInvocations;
	uint32_t maxComputeWorkGroupSize[3];
	uint32_t subPixelPrecisionBits;
	uint32_t subTexelPrecisionBits;
	uint32_t mipmapPrecisionBits;
	uint32_t maxDrawIndexedIndexValue;
	uint32_t maxDrawIndirectCount;
	float maxSamplerLodBias;
	float maxSamplerAnisotropy;
	uint32_t maxViewports;
	uint32_t maxViewportDimensions[2];
	float viewportBoundsRange[2];
	uint32_t viewportSubPixelBits;
	size_t minMemoryMapAlignment;
	uint64_t minTexelBufferOffsetAlignment;
	uint64_t minUniformBufferOffsetAlignment;
	uint64_t minStorageBufferOffsetAlignment;
	int32_t minTexelOffset;
	uint32_t maxTexelOffset;
	int32_t minTexelGatherOffset;
	uint32_t maxTexelGatherOffset;
	float minInterpolationOffset;
	float maxInterpolationOffset;
	uint32_t subPixelInterpolationOffsetBits;
	uint32_t maxFramebufferWidth;
	uint32_t maxFramebufferHeight;
	uint32_t maxFramebufferLayers;
	uint32_t framebufferColorSampleCounts;
	uint32_t framebufferDepthSampleCounts;
	uint32_t framebufferStencilSampleCounts;
	uint32_t framebufferNoAttachmentsSampleCounts;
	uint32_t maxColorAttachments;
	uint32_t sampledImageColorSampleCounts;
	uint32_t sampledImageIntegerSampleCounts;
	uint32_t sampledImageDepthSampleCounts;
	uint32_t sampledImageStencilSampleCounts;
	uint32_t storageImageSampleCounts;
	uint32_t maxSampleMaskWords;
	uint32_t timestampComputeAndGraphics;
	float timestampPeriod;
	uint32_t maxClipDistances;
	uint32_t maxCullDistances;
	uint32_t maxCombinedClipAndCullDistances;
	uint32_t discreteQueuePriorities;
	float pointSizeRange[2];
	float lineWidthRange[2];
	float pointSizeGranularity;
	float lineWidthGranularity;
	uint32_t strictLines;
	uint32_t standardSampleLocations;
	uint64_t optimalBufferCopyOffsetAlignment;
	uint64_t optimalBufferCopyRowPitchAlignment;
	uint64_t nonCoherentAtomSize;
} vkc_limits;
typedef struct {
	uint32_t apiVersion;
	uint32_t driverVersion;
	uint32_t vendorID;
	uint32_t deviceID;
	int32_t deviceType;
	char deviceName[256];
	uint8_t pipelineCacheUUID[16];
	vkc_limits limits;
	uint32_t sparseProperties[5];
} vkc_physical_device_properties;
typedef struct { int32_t sType; void* pNext; vkc_physical_device_properties properties; } vkc_properties2;
typedef struct { uint32_t propertyFlags; uint32_t heapIndex; } vkc_memory_type;
typedef struct { uint64_t size; uint32_t flags; } vkc_memory_heap;
typedef struct {
	uint32_t memoryTypeCount;
	vkc_memory_type memoryTypes[32];
	uint32_t memoryHeapCount;
	vkc_memory_heap memoryHeaps[16];
} vkc_memory_properties;
typedef struct { int32_t sType; void* pNext; uint32_t subgroupSize; uint32_t supportedStages; uint32_t supportedOperations;
	uint32_t quadOperationsInAllStages; } vkc_subgroup_properties;
typedef struct { int32_t sType; void* pNext; uint32_t minSubgroupSize; uint32_t maxSubgroupSize; uint32_t maxComputeWorkgroupSubgroups;
	uint32_t requiredSubgroupSizeStages; } vkc_subgroup_size_control_properties;
typedef struct { int32_t sType; void* pNext; int32_t driverID; char driverName[256]; char driverInfo[256];
	uint8_t conformanceVersion[4]; } vkc_driver_properties;
#define VKC_FEATURE_COUNT 55 // VkBool32 members of VkPhysicalDeviceFeatures
#define VKC_FEATURE_SHADER_FLOAT64 39
#define VKC_FEATURE_SHADER_INT64 40
typedef struct { int32_t sType; void* pNext; uint32_t features[VKC_FEATURE_COUNT]; } vkc_features2;
typedef struct { uint64_t size; uint64_t alignment; uint32_t memoryTypeBits; } vkc_memory_requirements;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint64_t size; uint32_t usage; int32_t sharingMode;
	uint32_t queueFamilyIndexCount; const uint32_t* pQueueFamilyIndices; } vkc_buffer_create_info;
typedef struct { int32_t sType; const void* pNext; uint64_t allocationSize; uint32_t memoryTypeIndex; } vkc_memory_allocate_info;
typedef struct { int32_t sType; const void* pNext; uint64_t image; uint64_t buffer; } vkc_memory_dedicated_allocate_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t queueFamilyIndex; } vkc_command_pool_create_info;
typedef struct { int32_t sType; const void* pNext; uint64_t commandPool; int32_t level; uint32_t commandBufferCount; } vkc_command_buffer_allocate_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; const void* pInheritanceInfo; } vkc_command_buffer_begin_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; } vkc_fence_create_info;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; int32_t queryType; uint32_t queryCount;
	uint32_t pipelineStatistics; } vkc_query_pool_create_info;
typedef struct { int32_t type; uint32_t descriptorCount; } vkc_descriptor_pool_size;
typedef struct { int32_t sType; const void* pNext; uint32_t flags; uint32_t maxSets; uint32_t poolSizeCount;
	const vkc_descriptor_pool_size* pPoolSizes; } vkc_descriptor_pool_create_info;
typedef struct { int32_t sType; const void* pNext; uint64_t descriptorPool; uint32_t descriptorSetCount;
	const uint64_t* pSetLayouts; } vkc_descriptor_set_allocate_info;
typedef uint32_t (*vkc_debug_report_fn)(uint32_t flags, int32_t objectType, uint64_t object, size_t location,
	int32_t messageCode, const char* pLayerPrefix, const char* pMessage, void* pUserData);
typedef struct { int32_t sType; const void* pNext; uint32_t flags; vkc_debug_report_fn pfnCallback; void* pUserData; } vkc_debug_report_create_info;

// ---- Global functions (no instance).

typedef int32_t (*vkc_enum_version_fn)(uint32_t*);
typedef int32_t (*vkc_enum_layers_fn)(uint32_t*, void*);
typedef int32_t (*vkc_create_instance_fn)(const vkc_instance_create_info*, const void*, void**);

// vkc_enumerate_instance_version: the loader's version, 1.0 where the
// loader predates vkEnumerateInstanceVersion.
static int32_t vkc_enumerate_instance_version(uint32_t* v) {
	void* fn = vkc_gipa(NULL, "vkEnumerateInstanceVersion");
	if (fn == NULL) {
		*v = 1u << 22;
		return 0;
	}
	return ((vkc_enum_version_fn)fn)(v);
}

// vkc_has_instance_layer: 1 if the loader offers the layer, 0 if not, a
// negative VkResult on failure.
static int32_t vkc_has_instance_layer(const char* name) {
	void* fn = vkc_gipa(NULL, "vkEnumerateInstanceLayerProperties");
	if (fn == NULL) return VKC_ERROR_UNKNOWN;
	uint32_t n = 0;
	int32_t r = ((vkc_enum_layers_fn)fn)(&n, NULL);
	if (r != 0) return r;
	vkc_layer_properties* p = calloc(n ? n : 1, sizeof *p);
	if (p == NULL) return VKC_ERROR_OUT_OF_HOST_MEMORY;
	r = ((vkc_enum_layers_fn)fn)(&n, p);
	int32_t found = 0;
	for (uint32_t i = 0; r >= 0 && i < n; i++) {
		if (strncmp(p[i].layerName, name, 256) == 0) found = 1;
	}
	free(p);
	return r < 0 ? r : found;
}

// vkc_has_instance_extension: 1 if the loader (or its implicit layers)
// offers the instance extension, 0 if not, a negative VkResult on failure.
static int32_t vkc_has_instance_extension(const char* name) {
	typedef int32_t (*fn_t)(const char*, uint32_t*, vkc_extension_properties*);
	void* fn = vkc_gipa(NULL, "vkEnumerateInstanceExtensionProperties");
	if (fn == NULL) return VKC_ERROR_UNKNOWN;
	uint32_t n = 0;
	int32_t r = ((fn_t)fn)(NULL, &n, NULL);
	if (r != 0) return r;
	vkc_extension_properties* p = calloc(n ? n : 1, sizeof *p);
	if (p == NULL) return VKC_ERROR_OUT_OF_HOST_MEMORY;
	r = ((fn_t)fn)(NULL, &n, p);
	int32_t found = 0;
	for (uint32_t i = 0; r >= 0 && i < n; i++) {
		if (strncmp(p[i].extensionName, name, 256) == 0) found = 1;
	}
	free(p);
	return r < 0 ? r : found;
}

// vkc_create_instance creates an instance at apiVersion; with validate, it
// enables the Khronos validation layer with synchronisation validation and
// the debug-report extension; with portability, VK_KHR_portability_enumeration
// and its create flag, so that the loader lists portability drivers
// (MoltenVK) too.
static int32_t vkc_create_instance(uint32_t apiVersion, int validate, int portability, void** instance) {
	void* fn = vkc_gipa(NULL, "vkCreateInstance");
	if (fn == NULL) return VKC_ERROR_UNKNOWN;
	static const char* layers[] = { "VK_LAYER_KHRONOS_validation" };
	const char* exts[3];
	uint32_t extCount = 0;
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
		exts[extCount++] = "VK_EXT_debug_report";
		exts[extCount++] = "VK_EXT_validation_features";
	}
	if (portability) {
		exts[extCount++] = "VK_KHR_portability_enumeration";
		info.flags = 0x1; // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
	}
	info.enabledExtensionCount = extCount;
	info.ppEnabledExtensionNames = extCount > 0 ? exts : NULL;
	return ((vkc_create_instance_fn)fn)(&info, NULL, instance);
}

// ---- Instance functions.

// vkc_instance is the instance-level function table of one VkInstance.
typedef struct {
	void* instance;
	void* destroyInstance;
	void* enumeratePhysicalDevices;
	void* getProperties;
	void* getProperties2; // NULL before Vulkan 1.1 (or the KHR name)
	void* getFeatures;
	void* getFeatures2;
	void* getMemoryProperties;
	void* getQueueFamilies;
	void* enumerateDeviceExtensions;
	void* createDevice;
	void* getDeviceProcAddr;
	void* createDebugReport; // NULL unless VK_EXT_debug_report is enabled
	void* destroyDebugReport;
} vkc_instance;

// vkc_load_instance fills t for instance. It returns NULL, or the name of a
// required function the loader did not give.
static const char* vkc_load_instance(vkc_instance* t, void* instance) {
	memset(t, 0, sizeof *t);
	t->instance = instance;
#define VKC_GET(field, name) t->field = vkc_gipa(instance, name)
	VKC_GET(destroyInstance, "vkDestroyInstance");
	VKC_GET(enumeratePhysicalDevices, "vkEnumeratePhysicalDevices");
	VKC_GET(getProperties, "vkGetPhysicalDeviceProperties");
	VKC_GET(getProperties2, "vkGetPhysicalDeviceProperties2");
	if (t->getProperties2 == NULL) VKC_GET(getProperties2, "vkGetPhysicalDeviceProperties2KHR");
	VKC_GET(getFeatures, "vkGetPhysicalDeviceFeatures");
	VKC_GET(getFeatures2, "vkGetPhysicalDeviceFeatures2");
	if (t->getFeatures2 == NULL) VKC_GET(getFeatures2, "vkGetPhysicalDeviceFeatures2KHR");
	VKC_GET(getMemoryProperties, "vkGetPhysicalDeviceMemoryProperties");
	VKC_GET(getQueueFamilies, "vkGetPhysicalDeviceQueueFamilyProperties");
	VKC_GET(enumerateDeviceExtensions, "vkEnumerateDeviceExtensionProperties");
	VKC_GET(createDevice, "vkCreateDevice");
	VKC_GET(getDeviceProcAddr, "vkGetDeviceProcAddr");
	VKC_GET(createDebugReport, "vkCreateDebugReportCallbackEXT");
	VKC_GET(destroyDebugReport, "vkDestroyDebugReportCallbackEXT");
#undef VKC_GET
	if (t->destroyInstance == NULL) return "vkDestroyInstance";
	if (t->enumeratePhysicalDevices == NULL) return "vkEnumeratePhysicalDevices";
	if (t->getProperties == NULL) return "vkGetPhysicalDeviceProperties";
	if (t->getFeatures == NULL) return "vkGetPhysicalDeviceFeatures";
	if (t->getMemoryProperties == NULL) return "vkGetPhysicalDeviceMemoryProperties";
	if (t->getQueueFamilies == NULL) return "vkGetPhysicalDeviceQueueFamilyProperties";
	if (t->enumerateDeviceExtensions == NULL) return "vkEnumerateDeviceExtensionProperties";
	if (t->createDevice == NULL) return "vkCreateDevice";
	if (t->getDeviceProcAddr == NULL) return "vkGetDeviceProcAddr";
	return NULL;
}

static void vkc_destroy_instance(const vkc_instance* t) {
	((void (*)(void*, const void*))t->destroyInstance)(t->instance, NULL);
}

// vkc_physical_devices writes up to max devices to out; it returns a
// negative VkResult, or the number of devices (which may exceed max).
static int64_t vkc_physical_devices(const vkc_instance* t, void** out, uint32_t max) {
	typedef int32_t (*fn_t)(void*, uint32_t*, void**);
	uint32_t n = 0;
	int32_t r = ((fn_t)t->enumeratePhysicalDevices)(t->instance, &n, NULL);
	if (r != 0) return r;
	if (n > max) return n;
	r = ((fn_t)t->enumeratePhysicalDevices)(t->instance, &n, out);
	if (r < 0) return r;
	return n;
}

static void vkc_properties(const vkc_instance* t, void* pd, vkc_physical_device_properties* out) {
	((void (*)(void*, void*))t->getProperties)(pd, out);
}

static void vkc_memory(const vkc_instance* t, void* pd, vkc_memory_properties* out) {
	((void (*)(void*, void*))t->getMemoryProperties)(pd, out);
}

static void vkc_features(const vkc_instance* t, void* pd, uint32_t* out) {
	((void (*)(void*, void*))t->getFeatures)(pd, out);
}

// vkc_queue_families fills up to max entries of flags, counts and
// timestamp bits, and returns the number of families.
static uint32_t vkc_queue_families(const vkc_instance* t, void* pd, uint32_t max, uint32_t* flags, uint32_t* counts, uint32_t* tsBits) {
	typedef void (*fn_t)(void*, uint32_t*, void*);
	uint32_t n = 0;
	((fn_t)t->getQueueFamilies)(pd, &n, NULL);
	vkc_queue_family_properties* p = calloc(n ? n : 1, sizeof *p);
	if (p == NULL) return 0;
	((fn_t)t->getQueueFamilies)(pd, &n, p);
	for (uint32_t i = 0; i < n && i < max; i++) {
		flags[i] = p[i].queueFlags;
		counts[i] = p[i].queueCount;
		tsBits[i] = p[i].timestampValidBits;
	}
	free(p);
	return n;
}

// vkc_device_extensions writes the device's extension names, NUL-separated,
// into out (cap bytes); it returns a negative VkResult on failure, else the
// bytes written (or needed, if more than cap).
static int64_t vkc_device_extensions(const vkc_instance* t, void* pd, char* out, int64_t cap) {
	typedef int32_t (*fn_t)(void*, const char*, uint32_t*, void*);
	uint32_t n = 0;
	int32_t r = ((fn_t)t->enumerateDeviceExtensions)(pd, NULL, &n, NULL);
	if (r != 0) return r;
	vkc_extension_properties* p = calloc(n ? n : 1, sizeof *p);
	if (p == NULL) return VKC_ERROR_OUT_OF_HOST_MEMORY;
	r = ((fn_t)t->enumerateDeviceExtensions)(pd, NULL, &n, p);
	if (r < 0) {
		free(p);
		return r;
	}
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

// vkc_device11 is what vkc_query11 reads through the Vulkan 1.1 queries.
typedef struct {
	uint32_t subgroupSize, subgroupStages, subgroupOperations;
	uint32_t minSubgroupSize, maxSubgroupSize, requiredSizeStages;
	uint32_t sizeControl, fullSubgroups; // the two features
	char driverName[256], driverInfo[256];
	uint32_t computeUnits, perUnit;
} vkc_device11;

// vkc_query11 reads subgroup properties, subgroup size control (when
// sizeControl), the driver's name (when driverProps) and the compute units
// (NVIDIA SMs through VK_NV_shader_sm_builtins when nv, AMD CUs through
// VK_AMD_shader_core_properties when amd). It returns 0 when the instance
// has no vkGetPhysicalDeviceProperties2.
static int vkc_query11(const vkc_instance* t, void* pd, int sizeControl, int driverProps, int nv, int amd, vkc_device11* out) {
	typedef void (*fn_t)(void*, void*);
	memset(out, 0, sizeof *out);
	if (t->getProperties2 == NULL) return 0;
	vkc_driver_properties drv;
	vkc_subgroup_size_control_properties ctl;
	vkc_subgroup_properties sub;
	vkc_properties2 p2;
	memset(&drv, 0, sizeof drv);
	memset(&ctl, 0, sizeof ctl);
	memset(&sub, 0, sizeof sub);
	memset(&p2, 0, sizeof p2);
	drv.sType = 1000196000; // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES
	ctl.sType = 1000225000; // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES
	sub.sType = 1000094000; // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES
	p2.sType = 1000059001;  // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
	void* next = NULL;
	if (driverProps) {
		drv.pNext = next;
		next = &drv;
	}
	if (sizeControl) {
		ctl.pNext = next;
		next = &ctl;
	}
	sub.pNext = next;
	p2.pNext = &sub;
	((fn_t)t->getProperties2)(pd, &p2);
	out->subgroupSize = sub.subgroupSize;
	out->subgroupStages = sub.supportedStages;
	out->subgroupOperations = sub.supportedOperations;
	out->minSubgroupSize = sub.subgroupSize;
	out->maxSubgroupSize = sub.subgroupSize;
	if (driverProps) {
		memcpy(out->driverName, drv.driverName, 256);
		memcpy(out->driverInfo, drv.driverInfo, 256);
		out->driverName[255] = out->driverInfo[255] = 0;
	}
	if (sizeControl && t->getFeatures2 != NULL) {
		vkc_subgroup_size_control_features feat = { 1000225002, NULL, 0, 0 }; // ..._SUBGROUP_SIZE_CONTROL_FEATURES
		vkc_features2 f2;
		memset(&f2, 0, sizeof f2);
		f2.sType = 1000059000; // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
		f2.pNext = &feat;
		((fn_t)t->getFeatures2)(pd, &f2);
		out->sizeControl = feat.subgroupSizeControl;
		out->fullSubgroups = feat.computeFullSubgroups;
		out->minSubgroupSize = ctl.minSubgroupSize;
		out->maxSubgroupSize = ctl.maxSubgroupSize;
		out->requiredSizeStages = ctl.requiredSubgroupSizeStages;
	}
	if (nv || amd) {
		vkc_sm_builtins_props sm = { 1000154001, NULL, 0, 0 }; // ..._SHADER_SM_BUILTINS_PROPERTIES_NV
		vkc_amd_core_props core;
		memset(&core, 0, sizeof core);
		core.sType = 1000185000; // ..._SHADER_CORE_PROPERTIES_AMD
		memset(&p2, 0, sizeof p2);
		p2.sType = 1000059001;
		p2.pNext = nv ? (void*)&sm : (void*)&core;
		((fn_t)t->getProperties2)(pd, &p2);
		if (nv) {
			out->computeUnits = sm.shaderSMCount;
			out->perUnit = sm.shaderWarpsPerSM;
		} else {
			out->computeUnits = core.shaderEngineCount * core.shaderArraysPerEngineCount * core.computeUnitsPerShaderArray;
			out->perUnit = core.simdPerComputeUnit * core.wavefrontsPerSimd;
		}
	}
	return 1;
}

// vkc_create_device creates a device with one queue of family and what is
// asked for: VK_KHR_push_descriptor (push), shaderInt64 and shaderFloat64,
// subgroup size control (sizeControl; sizeControlExt adds
// VK_EXT_subgroup_size_control, before Vulkan 1.3), and pipeline
// executable statistics.
static int32_t vkc_create_device(const vkc_instance* t, void* pd, uint32_t family, int push, int int64, int float64,
	int sizeControl, int sizeControlExt, int statistics, int portabilitySubset, void** device) {
	typedef int32_t (*fn_t)(void*, const vkc_device_create_info*, const void*, void**);
	static const float priority = 1.0f;
	const char* exts[4] = { NULL, NULL, NULL, NULL };
	uint32_t extCount = 0;
	// A device that offers VK_KHR_portability_subset (MoltenVK) must have it enabled.
	if (portabilitySubset) exts[extCount++] = "VK_KHR_portability_subset";
	if (push) exts[extCount++] = "VK_KHR_push_descriptor";
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
	info.ppEnabledExtensionNames = extCount > 0 ? exts : NULL;
	info.pEnabledFeatures = features;
	return ((fn_t)t->createDevice)(pd, &info, NULL, device);
}

// ---- Validation messages: the debug-report callback queues each message
// in C memory; the Go side drains the queue. No Go code runs on the
// layer's threads.

typedef struct vkc_message {
	struct vkc_message* next;
	uint32_t flags;
	int32_t code;
	char* layer;
	char* text;
} vkc_message;

typedef struct {
	vkc_mutex mu;
	vkc_message* head;
	vkc_message* tail;
	uint64_t callback; // VkDebugReportCallbackEXT
} vkc_messages;

static char* vkc_strdup(const char* s) {
	if (s == NULL) s = "";
	size_t n = strlen(s) + 1;
	char* p = malloc(n);
	if (p != NULL) memcpy(p, s, n);
	return p;
}

static uint32_t vkc_debug_report(uint32_t flags, int32_t objectType, uint64_t object, size_t location,
	int32_t code, const char* layer, const char* text, void* userData) {
	(void)objectType;
	(void)object;
	(void)location;
	vkc_messages* q = userData;
	vkc_message* m = calloc(1, sizeof *m);
	if (q == NULL || m == NULL) {
		free(m);
		return 0;
	}
	m->flags = flags;
	m->code = code;
	m->layer = vkc_strdup(layer);
	m->text = vkc_strdup(text);
	vkc_mutex_lock(&q->mu);
	if (q->tail != NULL) q->tail->next = m;
	else q->head = m;
	q->tail = m;
	vkc_mutex_unlock(&q->mu);
	return 0; // VK_FALSE: do not abort the call
}

// vkc_attach_messages creates a message queue and a debug-report callback
// feeding it, for errors, warnings and performance warnings. It returns a
// VkResult; *out is the queue on success.
static int32_t vkc_attach_messages(const vkc_instance* t, vkc_messages** out) {
	typedef int32_t (*fn_t)(void*, const vkc_debug_report_create_info*, const void*, uint64_t*);
	*out = NULL;
	if (t->createDebugReport == NULL) return -7; // VK_ERROR_EXTENSION_NOT_PRESENT
	vkc_messages* q = calloc(1, sizeof *q);
	if (q == NULL) return VKC_ERROR_OUT_OF_HOST_MEMORY;
	vkc_mutex_init(&q->mu);
	// VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT; error 0x8, warning 0x2, performance 0x4
	vkc_debug_report_create_info info = { 1000011000, NULL, 0x8 | 0x2 | 0x4, vkc_debug_report, q };
	int32_t r = ((fn_t)t->createDebugReport)(t->instance, &info, NULL, &q->callback);
	if (r != 0) {
		vkc_mutex_destroy(&q->mu);
		free(q);
		return r;
	}
	*out = q;
	return 0;
}

// vkc_detach_messages destroys the callback; the queue stays readable.
static void vkc_detach_messages(const vkc_instance* t, vkc_messages* q) {
	if (q->callback != 0) {
		((void (*)(void*, uint64_t, const void*))t->destroyDebugReport)(t->instance, q->callback, NULL);
		q->callback = 0;
	}
}

// vkc_take_message removes the oldest message; the caller frees it with
// vkc_free_message. NULL when the queue is empty.
static vkc_message* vkc_take_message(vkc_messages* q) {
	vkc_mutex_lock(&q->mu);
	vkc_message* m = q->head;
	if (m != NULL) {
		q->head = m->next;
		if (q->head == NULL) q->tail = NULL;
	}
	vkc_mutex_unlock(&q->mu);
	return m;
}

static void vkc_free_message(vkc_message* m) {
	free(m->layer);
	free(m->text);
	free(m);
}

// vkc_free_messages frees a detached queue and what it still holds.
static void vkc_free_messages(vkc_messages* q) {
	vkc_message* m;
	while ((m = vkc_take_message(q)) != NULL) vkc_free_message(m);
	vkc_mutex_destroy(&q->mu);
	free(q);
}

// ---- Device functions.

// vkc_device is the device-level function table of one VkDevice. The
// fields from destroyDevice to cmdWriteTimestamp are required, in the
// order of vkc_device_names.
typedef struct {
	void* device;
	void* destroyDevice;
	void* getDeviceQueue;
	void* deviceWaitIdle;
	void* createBuffer;
	void* destroyBuffer;
	void* getBufferMemoryRequirements;
	void* allocateMemory;
	void* freeMemory;
	void* bindBufferMemory;
	void* mapMemory;
	void* flushRanges;
	void* invalidateRanges;
	void* createCommandPool;
	void* destroyCommandPool;
	void* resetCommandPool;
	void* allocateCommandBuffers;
	void* freeCommandBuffers;
	void* beginCommandBuffer;
	void* endCommandBuffer;
	void* createFence;
	void* destroyFence;
	void* resetFences;
	void* waitForFences;
	void* getFenceStatus;
	void* queueSubmit;
	void* createShaderModule;
	void* destroyShaderModule;
	void* createSetLayout;
	void* destroySetLayout;
	void* createPipelineLayout;
	void* destroyPipelineLayout;
	void* createComputePipelines;
	void* destroyPipeline;
	void* createPipelineCache;
	void* destroyPipelineCache;
	void* getPipelineCacheData;
	void* createQueryPool;
	void* destroyQueryPool;
	void* getQueryPoolResults;
	void* createDescriptorPool;
	void* destroyDescriptorPool;
	void* allocateDescriptorSets;
	void* freeDescriptorSets;
	void* updateDescriptorSets;
	void* cmdBindPipeline;
	void* cmdBindDescriptorSets;
	void* cmdPushConstants;
	void* cmdDispatch;
	void* cmdDispatchIndirect;
	void* cmdPipelineBarrier;
	void* cmdCopyBuffer;
	void* cmdFillBuffer;
	void* cmdResetQueryPool;
	void* cmdWriteTimestamp;
	// Optional:
	void* cmdPushDescriptorSet; // VK_KHR_push_descriptor
	void* getExecutables;       // VK_KHR_pipeline_executable_properties
	void* getStatistics;
} vkc_device;

static const char* const vkc_device_names[] = {
	"vkDestroyDevice", "vkGetDeviceQueue", "vkDeviceWaitIdle",
	"vkCreateBuffer", "vkDestroyBuffer", "vkGetBufferMemoryRequirements", "vkAllocateMemory", "vkFreeMemory",
	"vkBindBufferMemory", "vkMapMemory", "vkFlushMappedMemoryRanges", "vkInvalidateMappedMemoryRanges",
	"vkCreateCommandPool", "vkDestroyCommandPool", "vkResetCommandPool", "vkAllocateCommandBuffers",
	"vkFreeCommandBuffers", "vkBeginCommandBuffer", "vkEndCommandBuffer",
	"vkCreateFence", "vkDestroyFence", "vkResetFences", "vkWaitForFences", "vkGetFenceStatus", "vkQueueSubmit",
	"vkCreateShaderModule", "vkDestroyShaderModule", "vkCreateDescriptorSetLayout", "vkDestroyDescriptorSetLayout",
	"vkCreatePipelineLayout", "vkDestroyPipelineLayout", "vkCreateComputePipelines", "vkDestroyPipeline",
	"vkCreatePipelineCache", "vkDestroyPipelineCache", "vkGetPipelineCacheData",
	"vkCreateQueryPool", "vkDestroyQueryPool", "vkGetQueryPoolResults",
	"vkCreateDescriptorPool", "vkDestroyDescriptorPool", "vkAllocateDescriptorSets", "vkFreeDescriptorSets",
	"vkUpdateDescriptorSets",
	"vkCmdBindPipeline", "vkCmdBindDescriptorSets", "vkCmdPushConstants", "vkCmdDispatch", "vkCmdDispatchIndirect",
	"vkCmdPipelineBarrier", "vkCmdCopyBuffer", "vkCmdFillBuffer", "vkCmdResetQueryPool", "vkCmdWriteTimestamp",
};
#define VKC_DEVICE_REQUIRED (sizeof vkc_device_names / sizeof vkc_device_names[0])

// vkc_load_device fills t for device. push and statistics ask for the
// optional functions. It returns NULL, or the name of a function
// vkGetDeviceProcAddr did not give.
static const char* vkc_load_device(vkc_device* t, const vkc_instance* inst, void* device, int push, int statistics) {
	vkc_gdpa_fn gdpa = (vkc_gdpa_fn)inst->getDeviceProcAddr;
	memset(t, 0, sizeof *t);
	t->device = device;
	void** fns = &t->destroyDevice;
	for (size_t i = 0; i < VKC_DEVICE_REQUIRED; i++) {
		fns[i] = gdpa(device, vkc_device_names[i]);
		if (fns[i] == NULL) return vkc_device_names[i];
	}
	if (push) {
		t->cmdPushDescriptorSet = gdpa(device, "vkCmdPushDescriptorSetKHR");
		if (t->cmdPushDescriptorSet == NULL) return "vkCmdPushDescriptorSetKHR";
	}
	if (statistics) {
		t->getExecutables = gdpa(device, "vkGetPipelineExecutablePropertiesKHR");
		t->getStatistics = gdpa(device, "vkGetPipelineExecutableStatisticsKHR");
		if (t->getExecutables == NULL) return "vkGetPipelineExecutablePropertiesKHR";
		if (t->getStatistics == NULL) return "vkGetPipelineExecutableStatisticsKHR";
	}
	return NULL;
}

static void vkc_destroy_device(const vkc_device* t) { ((void (*)(void*, const void*))t->destroyDevice)(t->device, NULL); }

static void* vkc_get_queue(const vkc_device* t, uint32_t family) {
	void* q = NULL;
	((void (*)(void*, uint32_t, uint32_t, void**))t->getDeviceQueue)(t->device, family, 0, &q);
	return q;
}

static int32_t vkc_device_wait_idle(const vkc_device* t) { return ((int32_t (*)(void*))t->deviceWaitIdle)(t->device); }

// Destruction of non-dispatchable objects: every vkDestroy*/vkFree* of
// this shape (device, handle, allocator).
typedef void (*vkc_destroy_fn)(void*, uint64_t, const void*);
static void vkc_destroy(const vkc_device* t, void* fn, uint64_t h) {
	if (h != 0) ((vkc_destroy_fn)fn)(t->device, h, NULL);
}

// vkc_create_buffer creates an exclusive buffer of size bytes with usage.
static int32_t vkc_create_buffer(const vkc_device* t, uint64_t size, uint32_t usage, uint64_t* out) {
	vkc_buffer_create_info info = { 12, NULL, 0, size, usage, 0, 0, NULL }; // VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createBuffer)(t->device, &info, NULL, out);
}

static void vkc_buffer_requirements(const vkc_device* t, uint64_t buffer, vkc_memory_requirements* out) {
	((void (*)(void*, uint64_t, void*))t->getBufferMemoryRequirements)(t->device, buffer, out);
}

// vkc_allocate_memory allocates memory of typeIndex dedicated to buffer.
static int32_t vkc_allocate_memory(const vkc_device* t, uint64_t size, uint32_t typeIndex, uint64_t buffer, uint64_t* out) {
	vkc_memory_dedicated_allocate_info dedicated = { 1000127001, NULL, 0, buffer }; // ..._MEMORY_DEDICATED_ALLOCATE_INFO
	vkc_memory_allocate_info info = { 5, &dedicated, size, typeIndex };           // VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->allocateMemory)(t->device, &info, NULL, out);
}

static int32_t vkc_bind_buffer_memory(const vkc_device* t, uint64_t buffer, uint64_t memory) {
	return ((int32_t (*)(void*, uint64_t, uint64_t, uint64_t))t->bindBufferMemory)(t->device, buffer, memory, 0);
}

static int32_t vkc_map_memory(const vkc_device* t, uint64_t memory, void** out) {
	return ((int32_t (*)(void*, uint64_t, uint64_t, uint64_t, uint32_t, void**))t->mapMemory)(t->device, memory, 0, ~0ull, 0, out);
}

// vkc_whole_memory_range flushes (flush) or invalidates all of memory.
static int32_t vkc_whole_memory_range(const vkc_device* t, uint64_t memory, int flush) {
	vkc_mapped_memory_range r;
	memset(&r, 0, sizeof r);
	r.sType = 6; // VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE
	r.memory = memory;
	r.size = ~0ull; // VK_WHOLE_SIZE
	return ((int32_t (*)(void*, uint32_t, const void*))(flush ? t->flushRanges : t->invalidateRanges))(t->device, 1, &r);
}

// vkc_create_command_pool creates a transient command pool of family.
static int32_t vkc_create_command_pool(const vkc_device* t, uint32_t family, uint64_t* out) {
	vkc_command_pool_create_info info = { 39, NULL, 0x1, family }; // ..._COMMAND_POOL_CREATE_INFO, TRANSIENT
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createCommandPool)(t->device, &info, NULL, out);
}

// vkc_allocate_command_buffer allocates one primary command buffer from pool.
static int32_t vkc_allocate_command_buffer(const vkc_device* t, uint64_t pool, void** out) {
	vkc_command_buffer_allocate_info alloc = { 40, NULL, pool, 0, 1 }; // ..._COMMAND_BUFFER_ALLOCATE_INFO, PRIMARY
	return ((int32_t (*)(void*, const void*, void**))t->allocateCommandBuffers)(t->device, &alloc, out);
}

static void vkc_free_command_buffer(const vkc_device* t, uint64_t pool, void* cmd) {
	((void (*)(void*, uint64_t, uint32_t, void* const*))t->freeCommandBuffers)(t->device, pool, 1, &cmd);
}

static int32_t vkc_create_fence(const vkc_device* t, uint64_t* out) {
	vkc_fence_create_info info = { 8, NULL, 0 }; // VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createFence)(t->device, &info, NULL, out);
}

static int32_t vkc_begin(const vkc_device* t, void* cmd) {
	vkc_command_buffer_begin_info info = { 42, NULL, 0x1, NULL }; // ..._COMMAND_BUFFER_BEGIN_INFO, ONE_TIME_SUBMIT
	return ((int32_t (*)(void*, const void*))t->beginCommandBuffer)(cmd, &info);
}

static int32_t vkc_end(const vkc_device* t, void* cmd) { return ((int32_t (*)(void*))t->endCommandBuffer)(cmd); }

static int32_t vkc_queue_submit(const vkc_device* t, void* queue, void* cmd, uint64_t fence) {
	vkc_submit_info info;
	memset(&info, 0, sizeof info);
	info.sType = 4; // VK_STRUCTURE_TYPE_SUBMIT_INFO
	info.commandBufferCount = 1;
	info.pCommandBuffers = &cmd;
	return ((int32_t (*)(void*, uint32_t, const vkc_submit_info*, uint64_t))t->queueSubmit)(queue, 1, &info, fence);
}

static int32_t vkc_wait_fence(const vkc_device* t, uint64_t fence, uint64_t timeout) {
	return ((int32_t (*)(void*, uint32_t, const uint64_t*, uint32_t, uint64_t))t->waitForFences)(t->device, 1, &fence, 1, timeout);
}

static int32_t vkc_fence_status(const vkc_device* t, uint64_t fence) {
	return ((int32_t (*)(void*, uint64_t))t->getFenceStatus)(t->device, fence);
}

static int32_t vkc_reset_fence(const vkc_device* t, uint64_t fence) {
	return ((int32_t (*)(void*, uint32_t, const uint64_t*))t->resetFences)(t->device, 1, &fence);
}

static int32_t vkc_reset_pool(const vkc_device* t, uint64_t pool) {
	return ((int32_t (*)(void*, uint64_t, uint32_t))t->resetCommandPool)(t->device, pool, 0);
}

static int32_t vkc_create_shader_module(const vkc_device* t, const uint32_t* code, size_t size, uint64_t* out) {
	vkc_shader_module_create_info info = { 16, NULL, 0, size, code }; // VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createShaderModule)(t->device, &info, NULL, out);
}

// vkc_create_set_layout creates a set layout of count storage buffers for
// the compute stage, at bindings 0..count-1; push makes it a
// push-descriptor layout.
static int32_t vkc_create_set_layout(const vkc_device* t, uint32_t count, int push, uint64_t* out) {
	vkc_descriptor_set_layout_binding b[VKC_MAX_BINDINGS];
	if (count > VKC_MAX_BINDINGS) return VKC_ERROR_UNKNOWN;
	for (uint32_t i = 0; i < count; i++) {
		b[i].binding = i;
		b[i].descriptorType = 7; // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
		b[i].descriptorCount = 1;
		b[i].stageFlags = 0x20; // VK_SHADER_STAGE_COMPUTE_BIT
		b[i].pImmutableSamplers = NULL;
	}
	// VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO; 0x1: ..._PUSH_DESCRIPTOR_BIT_KHR
	vkc_descriptor_set_layout_create_info info = { 32, NULL, push ? 0x1 : 0, count, count > 0 ? b : NULL };
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createSetLayout)(t->device, &info, NULL, out);
}

static int32_t vkc_create_pipeline_layout(const vkc_device* t, uint64_t setLayout, uint32_t pushSize, uint64_t* out) {
	vkc_push_constant_range range = { 0x20, 0, pushSize }; // VK_SHADER_STAGE_COMPUTE_BIT
	vkc_pipeline_layout_create_info info = { 30, NULL, 0, 1, &setLayout, pushSize > 0 ? 1 : 0, &range }; // ..._PIPELINE_LAYOUT_CREATE_INFO
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createPipelineLayout)(t->device, &info, NULL, out);
}

// vkc_create_compute_pipeline creates one compute pipeline from module
// (entry point "main") with count 32-bit specialization constants, constant
// i at ID i.
static int32_t vkc_create_compute_pipeline(const vkc_device* t, uint64_t cache, uint32_t createFlags, uint32_t stageFlags, uint64_t module,
	uint64_t layout, uint32_t count, const uint32_t* constants, uint64_t* out) {
	vkc_specialization_map_entry entries[VKC_MAX_CONSTANTS];
	uint32_t data[VKC_MAX_CONSTANTS];
	if (count > VKC_MAX_CONSTANTS) return VKC_ERROR_UNKNOWN; // the Go side checks first
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
	typedef int32_t (*fn_t)(void*, uint64_t, uint32_t, const vkc_compute_pipeline_create_info*, const void*, uint64_t*);
	return ((fn_t)t->createComputePipelines)(t->device, cache, 1, &info, NULL, out);
}

// vkc_create_pipeline_cache creates a pipeline cache holding size bytes of
// initial data (none when size is 0).
static int32_t vkc_create_pipeline_cache(const vkc_device* t, size_t size, const void* data, uint64_t* out) {
	vkc_pipeline_cache_create_info info = { 17, NULL, 0, size, size > 0 ? data : NULL }; // VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createPipelineCache)(t->device, &info, NULL, out);
}

// vkc_pipeline_cache_data is vkGetPipelineCacheData: with data NULL it
// sets *size to the cache's size; otherwise it writes up to *size bytes.
static int32_t vkc_pipeline_cache_data(const vkc_device* t, uint64_t cache, size_t* size, void* data) {
	return ((int32_t (*)(void*, uint64_t, size_t*, void*))t->getPipelineCacheData)(t->device, cache, size, data);
}

static int32_t vkc_create_query_pool(const vkc_device* t, uint32_t count, uint64_t* out) {
	vkc_query_pool_create_info info = { 11, NULL, 0, 2, count, 0 }; // ..._QUERY_POOL_CREATE_INFO, VK_QUERY_TYPE_TIMESTAMP
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createQueryPool)(t->device, &info, NULL, out);
}

// vkc_query_results reads count timestamps from first as (value,
// availability) pairs of 64-bit words, without waiting.
static int32_t vkc_query_results(const vkc_device* t, uint64_t pool, uint32_t first, uint32_t count, uint64_t* out) {
	typedef int32_t (*fn_t)(void*, uint64_t, uint32_t, uint32_t, size_t, void*, uint64_t, uint32_t);
	// VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT
	return ((fn_t)t->getQueryPoolResults)(t->device, pool, first, count, 16 * (size_t)count, out, 16, 0x1 | 0x4);
}

// vkc_create_descriptor_pool creates a pool of maxSets sets of storage
// buffers (descriptors in all), whose sets may be freed one by one.
static int32_t vkc_create_descriptor_pool(const vkc_device* t, uint32_t maxSets, uint32_t descriptors, uint64_t* out) {
	vkc_descriptor_pool_size size = { 7, descriptors }; // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
	// VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT
	vkc_descriptor_pool_create_info info = { 33, NULL, 0x1, maxSets, 1, &size };
	return ((int32_t (*)(void*, const void*, const void*, uint64_t*))t->createDescriptorPool)(t->device, &info, NULL, out);
}

// vkc_allocate_set allocates one set of layout from pool.
static int32_t vkc_allocate_set(const vkc_device* t, uint64_t pool, uint64_t layout, uint64_t* out) {
	vkc_descriptor_set_allocate_info alloc = { 34, NULL, pool, 1, &layout }; // ..._DESCRIPTOR_SET_ALLOCATE_INFO
	return ((int32_t (*)(void*, const void*, uint64_t*))t->allocateDescriptorSets)(t->device, &alloc, out);
}

// vkc_write_storage_set writes count storage-buffer descriptors into set,
// binding i taking (buffers[i], offsets[i], ranges[i]).
static int vkc_write_storage_set(const vkc_device* t, uint64_t set, uint32_t count,
	const uint64_t* buffers, const uint64_t* offsets, const uint64_t* ranges) {
	if (count > VKC_MAX_BINDINGS) return -1;
	vkc_descriptor_buffer_info infos[VKC_MAX_BINDINGS];
	vkc_write_descriptor_set writes[VKC_MAX_BINDINGS];
	for (uint32_t i = 0; i < count; i++) {
		infos[i].buffer = buffers[i];
		infos[i].offset = offsets[i];
		infos[i].range = ranges[i];
		memset(&writes[i], 0, sizeof writes[i]);
		writes[i].sType = 35; // VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
		writes[i].dstSet = set;
		writes[i].dstBinding = i;
		writes[i].descriptorCount = 1;
		writes[i].descriptorType = 7; // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
		writes[i].pBufferInfo = &infos[i];
	}
	if (count > 0) {
		((void (*)(void*, uint32_t, const void*, uint32_t, const void*))t->updateDescriptorSets)(t->device, count, writes, 0, NULL);
	}
	return 0;
}

static void vkc_free_set(const vkc_device* t, uint64_t pool, uint64_t set) {
	((int32_t (*)(void*, uint64_t, uint32_t, const uint64_t*))t->freeDescriptorSets)(t->device, pool, 1, &set);
}

// ---- Recording.

// vkc_dispatch records one dispatch: it binds pipeline, binds set (or,
// when set is 0, pushes count storage-buffer descriptors, binding i taking
// (buffers[i], offsets[i], ranges[i])), records pushWords words of push
// constants, and dispatches x*y*z workgroups, or, when indirect is not 0,
// the VkDispatchIndirectCommand at indirectOffset of buffer indirect.
static int vkc_dispatch(const vkc_device* t, void* cmd, uint64_t pipeline, uint64_t layout, uint64_t set, uint32_t count,
	const uint64_t* buffers, const uint64_t* offsets, const uint64_t* ranges, uint32_t pushWords, const uint32_t* push,
	uint32_t x, uint32_t y, uint32_t z, uint64_t indirect, uint64_t indirectOffset) {
	if (count > VKC_MAX_BINDINGS) return -1;
	((void (*)(void*, int32_t, uint64_t))t->cmdBindPipeline)(cmd, 1, pipeline); // VK_PIPELINE_BIND_POINT_COMPUTE
	if (set != 0) {
		typedef void (*fn_t)(void*, int32_t, uint64_t, uint32_t, uint32_t, const uint64_t*, uint32_t, const uint32_t*);
		((fn_t)t->cmdBindDescriptorSets)(cmd, 1, layout, 0, 1, &set, 0, NULL);
	} else if (count > 0) {
		vkc_descriptor_buffer_info infos[VKC_MAX_BINDINGS];
		vkc_write_descriptor_set writes[VKC_MAX_BINDINGS];
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
		typedef void (*fn_t)(void*, int32_t, uint64_t, uint32_t, uint32_t, const vkc_write_descriptor_set*);
		((fn_t)t->cmdPushDescriptorSet)(cmd, 1, layout, 0, count, writes);
	}
	if (pushWords > 0) {
		typedef void (*fn_t)(void*, uint64_t, uint32_t, uint32_t, uint32_t, const void*);
		((fn_t)t->cmdPushConstants)(cmd, layout, 0x20, 0, 4 * pushWords, push); // VK_SHADER_STAGE_COMPUTE_BIT
	}
	if (indirect != 0) {
		((void (*)(void*, uint64_t, uint64_t))t->cmdDispatchIndirect)(cmd, indirect, indirectOffset);
	} else {
		((void (*)(void*, uint32_t, uint32_t, uint32_t))t->cmdDispatch)(cmd, x, y, z);
	}
	return 0;
}

// vkc_barrier records one vkCmdPipelineBarrier with an optional global memory
// barrier (when globalSrc|globalDst is nonzero) and count buffer barriers, all
// with the same access masks.
static int vkc_barrier(const vkc_device* t, void* cmd, uint32_t srcStage, uint32_t dstStage,
	uint32_t globalSrc, uint32_t globalDst, uint32_t srcAccess, uint32_t dstAccess, uint32_t count,
	const uint64_t* buffers, const uint64_t* offsets, const uint64_t* sizes) {
	typedef void (*fn_t)(void*, uint32_t, uint32_t, uint32_t, uint32_t, const vkc_memory_barrier*,
		uint32_t, const vkc_buffer_memory_barrier*, uint32_t, const void*);
	vkc_memory_barrier global;
	vkc_buffer_memory_barrier b[VKC_MAX_BARRIERS];
	if (count > VKC_MAX_BARRIERS) return -1;
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
	((fn_t)t->cmdPipelineBarrier)(cmd, srcStage, dstStage, 0, memoryCount, &global, count, b, 0, NULL);
	return 0;
}

static void vkc_copy_buffer(const vkc_device* t, void* cmd, uint64_t src, uint64_t dst, uint64_t srcOffset, uint64_t dstOffset, uint64_t size) {
	vkc_buffer_copy region = { srcOffset, dstOffset, size };
	((void (*)(void*, uint64_t, uint64_t, uint32_t, const vkc_buffer_copy*))t->cmdCopyBuffer)(cmd, src, dst, 1, &region);
}

static void vkc_fill_buffer(const vkc_device* t, void* cmd, uint64_t buffer, uint64_t offset, uint64_t size, uint32_t value) {
	((void (*)(void*, uint64_t, uint64_t, uint64_t, uint32_t))t->cmdFillBuffer)(cmd, buffer, offset, size, value);
}

static void vkc_reset_queries(const vkc_device* t, void* cmd, uint64_t pool, uint32_t first, uint32_t count) {
	((void (*)(void*, uint64_t, uint32_t, uint32_t))t->cmdResetQueryPool)(cmd, pool, first, count);
}

static void vkc_write_timestamp(const vkc_device* t, void* cmd, uint32_t stage, uint64_t pool, uint32_t query) {
	((void (*)(void*, uint32_t, uint64_t, uint32_t))t->cmdWriteTimestamp)(cmd, stage, pool, query);
}

// ---- Pipeline executable statistics (VK_KHR_pipeline_executable_properties).

// vkc_pipeline_statistics fills props with up to VKC_MAX_EXECUTABLES
// executables' properties and, for executable e, up to VKC_MAX_STATISTICS
// statistics at stats[e * VKC_MAX_STATISTICS], their counts in counts[e].
// It returns a VkResult; *executables is the number filled.
static int32_t vkc_pipeline_statistics(const vkc_device* t, uint64_t pipeline,
	uint32_t* executables, vkc_executable_properties* props, uint32_t* counts, vkc_executable_statistic* stats) {
	typedef int32_t (*exe_fn)(void*, const vkc_pipeline_info*, uint32_t*, vkc_executable_properties*);
	typedef int32_t (*stat_fn)(void*, const vkc_executable_info*, uint32_t*, vkc_executable_statistic*);
	vkc_pipeline_info pinfo = { 1000269001, NULL, pipeline }; // VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR
	uint32_t n = VKC_MAX_EXECUTABLES;
	for (uint32_t i = 0; i < n; i++) {
		memset(&props[i], 0, sizeof props[i]);
		props[i].sType = 1000269002; // VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR
	}
	int32_t r = ((exe_fn)t->getExecutables)(t->device, &pinfo, &n, props);
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
		int32_t r2 = ((stat_fn)t->getStatistics)(t->device, &einfo, &m, s);
		if (r2 < 0) return r2;
		counts[e] = m;
	}
	return r;
}

#endif // VKCOMPACT_VKC_H
