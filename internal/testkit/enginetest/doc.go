// Package enginetest tests vkcompact the way a Go engine embeds it, on
// each of the two Go Vulkan bindings an engine is written on: package goki
// (github.com/goki/vulkan) and package vulkango
// (github.com/vulkan-go/vulkan), which cannot share one binary (they
// define the same C symbols) but each link beside vkcompact. vulkango's
// engine is generated from goki's (internal/bindgen; TestBindingsGenerated
// checks it). This package holds the engine's kernels.
//
// The tests play the engine: with the raw binding they create their own
// instance (validation layer, synchronisation validation, their own
// debug-report callback), pick a device as the rest of the suite does
// (VKCOMPACT_DEVICE), merge vk.DeviceRequirements into their own device
// creation, and create their own buffers, memory, compute pipelines (from
// the GLSL here), descriptor sets, command pool, command buffer and fence.
// vkcompact gets the device through vk.Borrow and the buffers through
// Context.WrapBuffer, and records an in-place compaction and an in-place
// sort into the engine's command buffer between the engine's own
// dispatches, once per frame:
//
//	update (engine) → barrier → compaction (vkcompact) → barrier →
//	consume (engine, vkCmdDispatchIndirect from the result block) →
//	barrier → sort of consume's output (vkcompact, as many keys as kept)
//
// Later frames take their live count on the GPU from the previous frame's
// kept count (compact.Buffers.Count). The engine submits and waits itself,
// checks everything against a Go reference, then releases the vkcompact
// context first and destroys its own objects. TestFramesInFlight keeps two
// frames in flight instead, hands vkcompact each submission's fence
// (Context.Submitted), never calls Completed, and releases the context
// with its last frames running; TestReleaseWithFrameInFlight releases it
// with a frame that runs until the test ends it (vktest.Spin). Once the engine does not
// enable VK_KHR_push_descriptor (vkcompact binds descriptor sets), once it
// does where the device has it.
//
// The validation layer is on here unless VKCOMPACT_VALIDATE=0 (the Windows
// leg, under Wine, whose loader offers no layers, and long soaks), and any
// message from it fails the test, the leak reports of
// vkDestroyDevice included; TestLeakReported shows that such a report
// does arrive, and TestSyncValidation that a missing barrier does.
// Without a loader, the layer or a device the tests skip, except in CI or
// with VKCOMPACT_REQUIRE_DEVICE set, where they fail.
//
// After editing update.comp or consume.comp, run
// `go generate ./internal/testkit/enginetest` and commit the .spv files;
// TestShadersGenerated compares them with a fresh compilation. After
// editing the goki engine, run `go generate ./internal/testkit/enginetest/...`.
package enginetest

//go:generate glslc --target-env=vulkan1.1 -O -Werror update.comp -o update.spv
//go:generate glslc --target-env=vulkan1.1 -O -Werror consume.comp -o consume.spv
