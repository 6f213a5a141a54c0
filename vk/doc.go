// Package vk is vkcompact's Vulkan layer, and all of its C: a C layer of
// its own (vkc.h, every function static, so it defines no global symbol)
// that loads the Vulkan loader (libvulkan.so.1 with dlopen on Linux,
// vulkan-1.dll with LoadLibrary on Windows) and reaches every Vulkan function
// through vkGetInstanceProcAddr and vkGetDeviceProcAddr. No Go Vulkan
// binding is imported, so a program may use vkcompact beside
// github.com/vulkan-go/vulkan or github.com/goki/vulkan. It creates or
// borrows a device with one compute queue, and offers buffers,
// submissions, command recording, compute pipelines, timestamps and the
// validation layer's messages. It knows no algorithm.
//
// # Contexts
//
// Open creates an instance (at the highest API version the loader offers,
// 1.1 at least) and a device: the one Options.Device or VKCOMPACT_DEVICE
// names (an index or a case-insensitive name substring), else the first
// usable device by type (discrete GPU, integrated, virtual, CPU). A device
// is usable with Vulkan 1.1, a compute queue, and subgroup basic, ballot
// and arithmetic operations in compute shaders; where it has subgroup size
// control, the context enables subgroupSizeControl and computeFullSubgroups
// and kernels that ask for it run with full subgroups. Kernels get their
// buffers through descriptor sets the context caches, or, with
// Options.PushDescriptors, through VK_KHR_push_descriptor.
//
// Borrow builds a context on an engine's own instance, device and queue
// (Handles). DeviceRequirements tells the engine, before it creates its
// device, what it may enable (nothing is required): for full subgroups
// the subgroup size control features, shaderInt64 for 64-bit words on CPU
// drivers; LoaderProcAddr gives it vkGetInstanceProcAddr when it has no
// windowing library to ask. WrapBuffer makes the engine's own VkBuffers
// usable by the library, and Context.Wrap its command buffers recordable;
// Context.Submitted hands the library the fence of each submission of
// one, so that the library sees for itself when the descriptor sets bound
// in it may be reused and Release waits for it (Context.Completed says it
// outright instead). Release on a borrowed context destroys only what the
// library created, never a borrowed device, queue or buffer. Handles
// returns any context's handles.
//
// # Memory over a program's life
//
// Whatever a call allocates is reused or freed: a submission reuses its
// command pool, command buffer and fence; the descriptor sets are one per
// distinct set of buffer ranges, of which at most
// Options.CachedDescriptorSets idle ones are kept (beyond them the least
// recently used is rewritten), plus those that recordings which may still
// run hold (the library's submissions until they complete, an engine's
// command buffers until the library knows them complete, and at most
// MaxWrappedDescriptorSets of those). Objects counts every Vulkan object
// the context holds, by kind.
//
// # Buffers and transfers
//
// NewBuffer makes a buffer with memory of its own. Upload and Download
// copy typed slices ([]T of plain values) through a staging buffer, or
// directly where the memory is host-visible. Download first records a
// barrier that makes device writes visible to the host: a signalled fence
// alone does not. Release is explicit and idempotent; there are no
// finalizers. Every object that owns Vulkan objects (Context, Buffer,
// ComputePipeline, Timer) has both Release, which returns nothing, and
// Close, which makes it an io.Closer: Release, then any error Release
// found and could not return (only a Context's has one).
//
// # Submission and errors
//
// Submit records a command buffer of the library's own, submits it (queue
// access serialised inside the context) and waits for it: without a bound
// by default, a CPU driver's minutes included, or up to Options.Timeout
// (Context.SetTimeout). A timed out wait returns an error matching
// ErrTimeout and leaves the work in flight and the context usable; until
// the work has completed nothing it uses is destroyed (objects released
// meanwhile are retired), and Release waits for it. A lost device ends
// any wait and makes every later call return ErrDeviceLost.
// Every failing Vulkan call is returned as an *Error naming the function
// and the VkResult.
//
// # Concurrency
//
// A Context, its Buffers and Upload/Download are safe for concurrent use.
// A CommandBuffer is not: record each from one goroutine.
//
// # Validation
//
// With Options.Validate or VKCOMPACT_VALIDATE=1 the context enables
// VK_LAYER_KHRONOS_validation with synchronisation validation and collects
// every warning and error (Messages). Package vktest fails a test on any.
package vk
