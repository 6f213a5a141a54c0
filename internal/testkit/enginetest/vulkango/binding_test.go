package vulkango

import (
	"testing"
	"unsafe"

	vkb "github.com/vulkan-go/vulkan"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// What differs between the bindings (see ../goki/binding_test.go).

// bindingName names the engine's binding.
const bindingName = "vulkan-go/vulkan"

// soakHere runs TestSoak on this binding's engine: the soak runs on goki's engine only (the
// bindings record the same calls, and the soak takes a minute).
const soakHere = false

// hasSizeControl tells that the engine creates its device with the
// subgroupSizeControl and computeFullSubgroups features where the device
// offers them. vulkan-go/vulkan has no
// VkPhysicalDeviceSubgroupSizeControlFeatures: this engine creates its
// device without them, so that vkcompact's kernels rely on the driver's
// subgroups being full, except in TestSizeControlFromVK, which takes the
// structure from vk.SubgroupSizeControlFeatures.
var hasSizeControl = false

// sizeControlFeatures returns the structure enabling both features, from
// vkcompact (in C memory), and the function that frees it.
func sizeControlFeatures() (next unsafe.Pointer, free func()) {
	return vk.SubgroupSizeControlFeatures(nil)
}

// TestSizeControlFromVK creates the engine's device with the subgroup
// size control features through vk.SubgroupSizeControlFeatures, as a
// vulkan-go engine would, where the device offers them: the borrowed
// context runs its kernels with full subgroups, and a scenario of
// TestEngine comes out right, with no validation message.
func TestSizeControlFromVK(t *testing.T) {
	hasSizeControl = true
	defer func() { hasSizeControl = false }()
	e := newEngine(t, vkb.MakeVersion(1, 1, 0), false)
	if !e.req.SubgroupSizeControl {
		t.Skip("the device offers no subgroup size control")
	}
	ctx := e.borrow(t)
	if !ctx.FullSubgroups() {
		t.Fatal("a device created with the features from vk.SubgroupSizeControlFeatures: the context has no full subgroups")
	}
	k := e.newKernels(t)
	failOnReports(t, "creating the device with the features, and the pipelines")
	runScenario(t, e, ctx, k, scenarios[0], vktest.Rand(t))
	failOnReports(t, "recording and running the frames")
	e.close(t)
}
