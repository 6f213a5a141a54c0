package vk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
}

// TestCLayout compiles the C layer's preamble beside the Vulkan headers
// with a static assertion on the size and every field offset of each
// mirrored struct, so the hand-written ABI cannot drift from Vulkan's.
func TestCLayout(t *testing.T) {
	const header = "/usr/include/vulkan/vulkan_core.h"
	_, gccErr := exec.LookPath("gcc")
	_, hdrErr := os.Stat(header)
	if gccErr != nil || hdrErr != nil {
		if os.Getenv("CI") != "" || os.Getenv("VKCOMPACT_REQUIRE_DEVICE") != "" {
			t.Fatalf("gcc and %s are needed (the test script installs libvulkan-dev)", header)
		}
		t.Skip("gcc or the Vulkan headers are missing")
	}
	src, err := os.ReadFile("cvk.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	start, end := strings.Index(text, "/*\n"), strings.Index(text, "*/\nimport \"C\"")
	if start < 0 || end < 0 {
		t.Fatal("cvk.go has no cgo preamble")
	}
	var b strings.Builder
	b.WriteString("#include <vulkan/vulkan_core.h>\n#include <stddef.h>\n")
	for _, line := range strings.Split(text[start+3:end], "\n") {
		if !strings.HasPrefix(line, "#cgo") {
			b.WriteString(line + "\n")
		}
	}
	// Every struct the preamble declares must be in the table.
	for _, m := range regexp.MustCompile(`\}\s*(vkc_[a-z0-9_]+);`).FindAllStringSubmatch(text[start:end], -1) {
		if _, ok := cMirrors[m[1]]; !ok {
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
