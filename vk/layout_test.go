package vk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// cMirrors maps each struct the C layer declares to the Vulkan struct it
// mirrors, with the fields to compare.
var cMirrors = map[string]struct {
	vulkan string
	fields []string
}{
	"vkc_descriptor_buffer_info":            {"VkDescriptorBufferInfo", []string{"buffer", "offset", "range"}},
	"vkc_write_descriptor_set":              {"VkWriteDescriptorSet", []string{"sType", "pNext", "dstSet", "dstBinding", "dstArrayElement", "descriptorCount", "descriptorType", "pImageInfo", "pBufferInfo", "pTexelBufferView"}},
	"vkc_memory_barrier":                    {"VkMemoryBarrier", []string{"sType", "pNext", "srcAccessMask", "dstAccessMask"}},
	"vkc_buffer_memory_barrier":             {"VkBufferMemoryBarrier", []string{"sType", "pNext", "srcAccessMask", "dstAccessMask", "srcQueueFamilyIndex", "dstQueueFamilyIndex", "buffer", "offset", "size"}},
	"vkc_layer_properties":                  {"VkLayerProperties", []string{"layerName", "specVersion", "implementationVersion", "description"}},
	"vkc_extension_properties":              {"VkExtensionProperties", []string{"extensionName", "specVersion"}},
	"vkc_queue_family_properties":           {"VkQueueFamilyProperties", []string{"queueFlags", "queueCount", "timestampValidBits"}},
	"vkc_submit_info":                       {"VkSubmitInfo", []string{"sType", "pNext", "waitSemaphoreCount", "pWaitSemaphores", "pWaitDstStageMask", "commandBufferCount", "pCommandBuffers", "signalSemaphoreCount", "pSignalSemaphores"}},
	"vkc_buffer_copy":                       {"VkBufferCopy", []string{"srcOffset", "dstOffset", "size"}},
	"vkc_mapped_memory_range":               {"VkMappedMemoryRange", []string{"sType", "pNext", "memory", "offset", "size"}},
	"vkc_specialization_map_entry":          {"VkSpecializationMapEntry", []string{"constantID", "offset", "size"}},
	"vkc_specialization_info":               {"VkSpecializationInfo", []string{"mapEntryCount", "pMapEntries", "dataSize", "pData"}},
	"vkc_pipeline_shader_stage_create_info": {"VkPipelineShaderStageCreateInfo", []string{"sType", "pNext", "flags", "stage", "module", "pName", "pSpecializationInfo"}},
	"vkc_compute_pipeline_create_info":      {"VkComputePipelineCreateInfo", []string{"sType", "pNext", "flags", "stage", "layout", "basePipelineHandle", "basePipelineIndex"}},
	"vkc_application_info":                  {"VkApplicationInfo", []string{"sType", "pNext", "pApplicationName", "applicationVersion", "pEngineName", "engineVersion", "apiVersion"}},
	"vkc_instance_create_info":              {"VkInstanceCreateInfo", []string{"sType", "pNext", "flags", "pApplicationInfo", "enabledLayerCount", "ppEnabledLayerNames", "enabledExtensionCount", "ppEnabledExtensionNames"}},
	"vkc_validation_features":               {"VkValidationFeaturesEXT", []string{"sType", "pNext", "enabledValidationFeatureCount", "pEnabledValidationFeatures", "disabledValidationFeatureCount", "pDisabledValidationFeatures"}},
	"vkc_subgroup_size_control_features":    {"VkPhysicalDeviceSubgroupSizeControlFeatures", []string{"sType", "pNext", "subgroupSizeControl", "computeFullSubgroups"}},
	"vkc_device_queue_create_info":          {"VkDeviceQueueCreateInfo", []string{"sType", "pNext", "flags", "queueFamilyIndex", "queueCount", "pQueuePriorities"}},
	"vkc_device_create_info":                {"VkDeviceCreateInfo", []string{"sType", "pNext", "flags", "queueCreateInfoCount", "pQueueCreateInfos", "enabledLayerCount", "ppEnabledLayerNames", "enabledExtensionCount", "ppEnabledExtensionNames", "pEnabledFeatures"}},
	"vkc_shader_module_create_info":         {"VkShaderModuleCreateInfo", []string{"sType", "pNext", "flags", "codeSize", "pCode"}},
	"vkc_pipeline_cache_create_info":        {"VkPipelineCacheCreateInfo", []string{"sType", "pNext", "flags", "initialDataSize", "pInitialData"}},
	"vkc_descriptor_set_layout_binding":     {"VkDescriptorSetLayoutBinding", []string{"binding", "descriptorType", "descriptorCount", "stageFlags", "pImmutableSamplers"}},
	"vkc_descriptor_set_layout_create_info": {"VkDescriptorSetLayoutCreateInfo", []string{"sType", "pNext", "flags", "bindingCount", "pBindings"}},
	"vkc_push_constant_range":               {"VkPushConstantRange", []string{"stageFlags", "offset", "size"}},
	"vkc_sm_builtins_props":                 {"VkPhysicalDeviceShaderSMBuiltinsPropertiesNV", []string{"sType", "pNext", "shaderSMCount", "shaderWarpsPerSM"}},
	"vkc_amd_core_props":                    {"VkPhysicalDeviceShaderCorePropertiesAMD", []string{"sType", "pNext", "shaderEngineCount", "shaderArraysPerEngineCount", "computeUnitsPerShaderArray", "simdPerComputeUnit", "wavefrontsPerSimd", "wavefrontSize"}},
	"vkc_properties2":                       {"VkPhysicalDeviceProperties2", []string{"sType", "pNext", "properties"}},
	"vkc_pipeline_layout_create_info":       {"VkPipelineLayoutCreateInfo", []string{"sType", "pNext", "flags", "setLayoutCount", "pSetLayouts", "pushConstantRangeCount", "pPushConstantRanges"}},
	"vkc_pipeline_executable_features":      {"VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR", []string{"sType", "pNext", "pipelineExecutableInfo"}},
	"vkc_pipeline_info":                     {"VkPipelineInfoKHR", []string{"sType", "pNext", "pipeline"}},
	"vkc_executable_properties":             {"VkPipelineExecutablePropertiesKHR", []string{"sType", "pNext", "stages", "name", "description", "subgroupSize"}},
	"vkc_executable_info":                   {"VkPipelineExecutableInfoKHR", []string{"sType", "pNext", "pipeline", "executableIndex"}},
	"vkc_executable_statistic":              {"VkPipelineExecutableStatisticKHR", []string{"sType", "pNext", "name", "description", "format", "value"}},
	"vkc_limits":                            {"VkPhysicalDeviceLimits", []string{"maxImageDimension1D", "maxImageDimension2D", "maxImageDimension3D", "maxImageDimensionCube", "maxImageArrayLayers", "maxTexelBufferElements", "maxUniformBufferRange", "maxStorageBufferRange", "maxPushConstantsSize", "maxMemoryAllocationCount", "maxSamplerAllocationCount", "bufferImageGranularity", "sparseAddressSpaceSize", "maxBoundDescriptorSets", "maxPerStageDescriptorSamplers", "maxPerStageDescriptorUniformBuffers", "maxPerStageDescriptorStorageBuffers", "maxPerStageDescriptorSampledImages", "maxPerStageDescriptorStorageImages", "maxPerStageDescriptorInputAttachments", "maxPerStageResources", "maxDescriptorSetSamplers", "maxDescriptorSetUniformBuffers", "maxDescriptorSetUniformBuffersDynamic", "maxDescriptorSetStorageBuffers", "maxDescriptorSetStorageBuffersDynamic", "maxDescriptorSetSampledImages", "maxDescriptorSetStorageImages", "maxDescriptorSetInputAttachments", "maxVertexInputAttributes", "maxVertexInputBindings", "maxVertexInputAttributeOffset", "maxVertexInputBindingStride", "maxVertexOutputComponents", "maxTessellationGenerationLevel", "maxTessellationPatchSize", "maxTessellationControlPerVertexInputComponents", "maxTessellationControlPerVertexOutputComponents", "maxTessellationControlPerPatchOutputComponents", "maxTessellationControlTotalOutputComponents", "maxTessellationEvaluationInputComponents", "maxTessellationEvaluationOutputComponents", "maxGeometryShaderInvocations", "maxGeometryInputComponents", "maxGeometryOutputComponents", "maxGeometryOutputVertices", "maxGeometryTotalOutputComponents", "maxFragmentInputComponents", "maxFragmentOutputAttachments", "maxFragmentDualSrcAttachments", "maxFragmentCombinedOutputResources", "maxComputeSharedMemorySize", "maxComputeWorkGroupCount", "maxComputeWorkGroupInvocations", "maxComputeWorkGroupSize", "subPixelPrecisionBits", "subTexelPrecisionBits", "mipmapPrecisionBits", "maxDrawIndexedIndexValue", "maxDrawIndirectCount", "maxSamplerLodBias", "maxSamplerAnisotropy", "maxViewports", "maxViewportDimensions", "viewportBoundsRange", "viewportSubPixelBits", "minMemoryMapAlignment", "minTexelBufferOffsetAlignment", "minUniformBufferOffsetAlignment", "minStorageBufferOffsetAlignment", "minTexelOffset", "maxTexelOffset", "minTexelGatherOffset", "maxTexelGatherOffset", "minInterpolationOffset", "maxInterpolationOffset", "subPixelInterpolationOffsetBits", "maxFramebufferWidth", "maxFramebufferHeight", "maxFramebufferLayers", "framebufferColorSampleCounts", "framebufferDepthSampleCounts", "framebufferStencilSampleCounts", "framebufferNoAttachmentsSampleCounts", "maxColorAttachments", "sampledImageColorSampleCounts", "sampledImageIntegerSampleCounts", "sampledImageDepthSampleCounts", "sampledImageStencilSampleCounts", "storageImageSampleCounts", "maxSampleMaskWords", "timestampComputeAndGraphics", "timestampPeriod", "maxClipDistances", "maxCullDistances", "maxCombinedClipAndCullDistances", "discreteQueuePriorities", "pointSizeRange", "lineWidthRange", "pointSizeGranularity", "lineWidthGranularity", "strictLines", "standardSampleLocations", "optimalBufferCopyOffsetAlignment", "optimalBufferCopyRowPitchAlignment", "nonCoherentAtomSize"}},
	"vkc_physical_device_properties":        {"VkPhysicalDeviceProperties", []string{"apiVersion", "driverVersion", "vendorID", "deviceID", "deviceType", "deviceName", "pipelineCacheUUID", "limits", "sparseProperties"}},
	"vkc_memory_type":                       {"VkMemoryType", []string{"propertyFlags", "heapIndex"}},
	"vkc_memory_heap":                       {"VkMemoryHeap", []string{"size", "flags"}},
	"vkc_memory_properties":                 {"VkPhysicalDeviceMemoryProperties", []string{"memoryTypeCount", "memoryTypes", "memoryHeapCount", "memoryHeaps"}},
	"vkc_subgroup_properties":               {"VkPhysicalDeviceSubgroupProperties", []string{"sType", "pNext", "subgroupSize", "supportedStages", "supportedOperations", "quadOperationsInAllStages"}},
	"vkc_subgroup_size_control_properties":  {"VkPhysicalDeviceSubgroupSizeControlProperties", []string{"sType", "pNext", "minSubgroupSize", "maxSubgroupSize", "maxComputeWorkgroupSubgroups", "requiredSubgroupSizeStages"}},
	"vkc_driver_properties":                 {"VkPhysicalDeviceDriverProperties", []string{"sType", "pNext", "driverID", "driverName", "driverInfo", "conformanceVersion"}},
	"vkc_features2":                         {"VkPhysicalDeviceFeatures2", []string{"sType", "pNext", "features"}},
	"vkc_memory_requirements":               {"VkMemoryRequirements", []string{"size", "alignment", "memoryTypeBits"}},
	"vkc_buffer_create_info":                {"VkBufferCreateInfo", []string{"sType", "pNext", "flags", "size", "usage", "sharingMode", "queueFamilyIndexCount", "pQueueFamilyIndices"}},
	"vkc_memory_allocate_info":              {"VkMemoryAllocateInfo", []string{"sType", "pNext", "allocationSize", "memoryTypeIndex"}},
	"vkc_memory_dedicated_allocate_info":    {"VkMemoryDedicatedAllocateInfo", []string{"sType", "pNext", "image", "buffer"}},
	"vkc_command_pool_create_info":          {"VkCommandPoolCreateInfo", []string{"sType", "pNext", "flags", "queueFamilyIndex"}},
	"vkc_command_buffer_allocate_info":      {"VkCommandBufferAllocateInfo", []string{"sType", "pNext", "commandPool", "level", "commandBufferCount"}},
	"vkc_command_buffer_begin_info":         {"VkCommandBufferBeginInfo", []string{"sType", "pNext", "flags", "pInheritanceInfo"}},
	"vkc_fence_create_info":                 {"VkFenceCreateInfo", []string{"sType", "pNext", "flags"}},
	"vkc_query_pool_create_info":            {"VkQueryPoolCreateInfo", []string{"sType", "pNext", "flags", "queryType", "queryCount", "pipelineStatistics"}},
	"vkc_descriptor_pool_size":              {"VkDescriptorPoolSize", []string{"type", "descriptorCount"}},
	"vkc_descriptor_pool_create_info":       {"VkDescriptorPoolCreateInfo", []string{"sType", "pNext", "flags", "maxSets", "poolSizeCount", "pPoolSizes"}},
	"vkc_descriptor_set_allocate_info":      {"VkDescriptorSetAllocateInfo", []string{"sType", "pNext", "descriptorPool", "descriptorSetCount", "pSetLayouts"}},
	"vkc_debug_report_create_info":          {"VkDebugReportCallbackCreateInfoEXT", []string{"sType", "pNext", "flags", "pfnCallback", "pUserData"}},
}

// cInternal are the C layer's own structs, which mirror nothing.
var cInternal = map[string]bool{"vkc_instance": true, "vkc_device": true, "vkc_device11": true, "vkc_message": true, "vkc_messages": true}

// TestCLayout compiles the C layer (vkc.h) beside the Vulkan headers
// with a static assertion on the size and every field offset of each
// mirrored struct, so the hand-written ABI cannot drift from Vulkan's.
func TestCLayout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the C layer's structs are checked with gcc and the Vulkan headers on the Linux legs: the mirrors are the same on Windows (x86-64)")
	}
	const header = "/usr/include/vulkan/vulkan_core.h"
	_, gccErr := exec.LookPath("gcc")
	_, hdrErr := os.Stat(header)
	if gccErr != nil || hdrErr != nil {
		if os.Getenv("CI") != "" || os.Getenv("VKCOMPACT_REQUIRE_DEVICE") != "" {
			t.Fatalf("gcc and %s are needed (the test script installs libvulkan-dev)", header)
		}
		t.Skip("gcc or the Vulkan headers are missing")
	}
	src, err := os.ReadFile("vkc.h")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	var b strings.Builder
	b.WriteString("#include <vulkan/vulkan_core.h>\n#include <stddef.h>\n")
	b.WriteString(text + "\n")
	// Every struct the header declares must be in a table.
	for _, m := range regexp.MustCompile(`\}\s*(vkc_[a-z0-9_]+);`).FindAllStringSubmatch(text, -1) {
		if _, ok := cMirrors[m[1]]; !ok && !cInternal[m[1]] {
			t.Errorf("C struct %s has no entry in cMirrors", m[1])
		}
	}
	for mine, v := range cMirrors {
		fmt.Fprintf(&b, "_Static_assert(sizeof(%s) == sizeof(%s), \"size of %s\");\n", mine, v.vulkan, mine)
		for _, f := range v.fields {
			fmt.Fprintf(&b, "_Static_assert(offsetof(%s, %s) == offsetof(%s, %s), \"%s.%s\");\n", mine, f, v.vulkan, f, mine, f)
		}
	}
	b.WriteString(`_Static_assert(VKC_FEATURE_COUNT * 4 == sizeof(VkPhysicalDeviceFeatures), "feature count");
_Static_assert(VKC_FEATURE_SHADER_INT64 * 4 == offsetof(VkPhysicalDeviceFeatures, shaderInt64), "shaderInt64");
_Static_assert(VKC_FEATURE_SHADER_FLOAT64 * 4 == offsetof(VkPhysicalDeviceFeatures, shaderFloat64), "shaderFloat64");
`)
	file := filepath.Join(t.TempDir(), "layout.c")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-c", "-Wno-unused-function", "-o", file+".o", file).CombinedOutput(); err != nil {
		t.Fatalf("the C layer's structs differ from Vulkan's:\n%s", out)
	}
}
