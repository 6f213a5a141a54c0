package vk

import (
	"strings"
	"sync"
	"unsafe"
)

// Embedding: what an engine that creates its own device needs from the
// library before Borrow, and buffers the engine owns.

// Requirements is what vkcompact needs of a device an engine creates, to
// merge into its own VkInstanceCreateInfo and VkDeviceCreateInfo.
type Requirements struct {
	// APIVersion is the least apiVersion the instance must be created
	// with: VK_API_VERSION_1_1.
	APIVersion uint32
	// Extensions are the device extensions to enable, none of them
	// required: VK_EXT_subgroup_size_control where the device is below
	// Vulkan 1.3 and offers it (with SubgroupSizeControl).
	Extensions []string
	// PushDescriptor tells that the device offers VK_KHR_push_descriptor:
	// enable it and set Handles.PushDescriptor for the library to push its
	// buffers instead of binding descriptor sets (optional, and not the
	// default: see Options.PushDescriptors).
	PushDescriptor bool
	// SubgroupSizeControl tells that the device offers the
	// subgroupSizeControl and computeFullSubgroups features (Vulkan 1.3
	// core, or VK_EXT_subgroup_size_control). Enable both, in
	// VkPhysicalDeviceSubgroupSizeControlFeatures or
	// VkPhysicalDeviceVulkan13Features, and set Handles.FullSubgroups: the
	// kernels then run with full subgroups. Optional: without them every
	// kernel still runs, relying on the driver's subgroups being full.
	SubgroupSizeControl bool
	// ShaderInt64 tells that the device offers the shaderInt64 feature.
	// Optional too: enable it (VkPhysicalDeviceFeatures.shaderInt64) and
	// set Handles.ShaderInt64, and on CPU drivers the lane-serial sort
	// moves 64-bit words (a 64-bit key in one load, 32-bit keys with
	// values packed as one word between its passes), a quarter to a third
	// less time on lavapipe; no kernel needs it.
	ShaderInt64 bool
	// SubgroupOperations are the subgroup operations the kernels use,
	// which VkPhysicalDeviceSubgroupProperties must report for the compute
	// stage: properties to check, not features to enable.
	SubgroupOperations []string
	// Missing lists what this device lacks; empty when Borrow can use it.
	// No feature is required: without shaderInt64, 64-bit keys are
	// handled as pairs of 32-bit words, and shaderFloat64 is never used.
	Missing []string
}

// DeviceRequirements returns what an engine must enable on physicalDevice,
// a VkPhysicalDevice of instance (both converted with unsafe.Pointer), to
// hand the device to Borrow: nothing but Vulkan 1.1 with subgroup basic,
// ballot and arithmetic operations in compute shaders (properties, not
// features), and optionally what Extensions, SubgroupSizeControl,
// ShaderInt64 and PushDescriptor say: each is worth enabling where
// offered, and saying so in Handles. apiVersion is the instance's
// apiVersion (0 means 1.1). It loads
// the Vulkan loader (libvulkan.so.1; vulkan-1.dll on Windows) if the
// library has not yet done so.
func DeviceRequirements(instance, physicalDevice unsafe.Pointer, apiVersion uint32) (Requirements, error) {
	if instance == nil || physicalDevice == nil {
		return Requirements{}, invalidf("DeviceRequirements needs an instance and a physical device; one is nil")
	}
	if err := load(); err != nil {
		return Requirements{}, err
	}
	ifns, err := loadInstanceFuncs(instance)
	if err != nil {
		return Requirements{}, err
	}
	defer ifns.free()
	if apiVersion == 0 {
		apiVersion = minAPIVersion
	}
	info, err := queryDevice(ifns, apiVersion, physicalDevice, -1)
	if err != nil {
		return Requirements{}, err
	}
	r := Requirements{
		APIVersion:          minAPIVersion,
		SubgroupSizeControl: info.SubgroupSizeControl,
		SubgroupOperations:  []string{"basic", "ballot", "arithmetic"},
		ShaderInt64:         info.ShaderInt64,
		Missing:             info.Problems,
		PushDescriptor:      info.PushDescriptor,
	}
	if info.SubgroupSizeControl && info.apiVersion < 1<<22|3<<12 {
		r.Extensions = append(r.Extensions, extSubgroupSizeCtl)
	}
	return r, nil
}

// SubgroupSizeControlFeatures returns, in C memory, a
// VkPhysicalDeviceSubgroupSizeControlFeatures (the Vulkan 1.3 name of
// VkPhysicalDeviceSubgroupSizeControlFeaturesEXT: one structure, one
// sType) with subgroupSizeControl and computeFullSubgroups enabled and
// pNext set to next, for a binding that lacks the structure
// (vulkan-go/vulkan has none): chain it into VkDeviceCreateInfo's pNext
// where Requirements.SubgroupSizeControl is true, with the extensions
// Requirements.Extensions names, create the device, call free, and set
// Handles.FullSubgroups. next must be nil or C memory (cgo's rule: C
// memory holds no Go pointer), as the structures vulkan-go's PassRef
// returns are.
//
// Without the features every kernel still runs; what is lost is a
// guarantee: the kernels need every subgroup of a workgroup full, which
// Vulkan promises only to pipelines created with computeFullSubgroups
// asked for. Without it they rely on the driver launching full subgroups
// for workgroups whose size is a multiple of the subgroup size, as the
// drivers the tests run on do (lavapipe and SwiftShader: the vulkan-go
// engine's TestEngine creates its device without the features).
func SubgroupSizeControlFeatures(next unsafe.Pointer) (features unsafe.Pointer, free func()) {
	p := newSizeControlFeatures(next)
	var once sync.Once
	return p, func() { once.Do(func() { freeC(p) }) }
}

// LoaderProcAddr returns the loader's vkGetInstanceProcAddr, loading
// the Vulkan loader if needed: for an engine without a windowing library of
// its own to find it (with vulkan-go/vulkan or goki/vulkan:
// vulkan.SetGetInstanceProcAddr(p); vulkan.Init()).
func LoaderProcAddr() (unsafe.Pointer, error) {
	if err := load(); err != nil {
		return nil, err
	}
	return loaderProcAddr(), nil
}

// WrapBuffer makes an engine's VkBuffer (h, converted with unsafe.Pointer)
// of size bytes usable by the library's calls, on this context's device.
// The engine keeps ownership: Release on the result, or on the context,
// forgets the buffer but never destroys it or its memory, and the engine
// must not destroy it while a library call may use it. The buffer needs
// VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; Upload and Download through it need
// the transfer usages, and indirect arguments in it
// VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT: a buffer used as an operation's
// Scratch needs it too (an in-place compaction dispatches its copy-back
// from arguments it leaves there), as does a result block whose
// dispatch or draw arguments the engine uses. The library cannot see the
// usage flags: a missing one shows as a validation error. Upload and
// Download go through a staging buffer. Wrap a VkBuffer once: what the
// library knows of its contents at record time (Range.KnownZero) is kept
// per Buffer, so a write through a second wrapper of it would go unseen.
func (c *Context) WrapBuffer(h unsafe.Pointer, size uint64) (*Buffer, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.exit()
	if h == nil {
		return nil, invalidf("WrapBuffer: nil VkBuffer")
	}
	if size == 0 {
		return nil, invalidf("WrapBuffer: size 0: a buffer needs at least one byte")
	}
	b := &Buffer{ctx: c, buf: pointerHandle(h), size: size, kind: DeviceLocal, borrowed: true}
	if err := c.adopt(b); err != nil {
		return nil, err
	}
	return b, nil
}

// Borrowed reports whether the buffer is an engine's (WrapBuffer).
func (b *Buffer) Borrowed() bool { return b != nil && b.borrowed }

// Handles returns the context's Vulkan objects as Borrow takes them: for
// another library, or a second context, to use the same device. They stay
// the context's (or, for a borrowed context, the engine's): nothing
// receiving them may destroy them, and they die with the context's
// Release.
func (c *Context) Handles() Handles {
	if c == nil || c.fns == nil {
		return Handles{}
	}
	h := Handles{
		Instance:             c.ifns.handle(),
		PhysicalDevice:       c.physical,
		Device:               c.device,
		QueueFamily:          c.family,
		Queue:                c.queue,
		FullSubgroups:        c.fullSubgroups,
		ShaderInt64:          c.shaderInt64,
		PushDescriptor:       c.push,
		CachedDescriptorSets: c.idleSets,
		PipelineCacheDir:     c.pcache.opt,
		APIVersion:           c.info.apiVersion,
	}
	if c.inst != nil {
		h.APIVersion = c.inst.apiVersion
	}
	return h
}

// Handles are an engine's Vulkan objects, given to Borrow. Each field is
// the handle converted with unsafe.Pointer (for example
// unsafe.Pointer(instance) with goki/vulkan or vulkan-go). The engine keeps
// ownership: the library never destroys them.
type Handles struct {
	Instance       unsafe.Pointer // VkInstance
	PhysicalDevice unsafe.Pointer // VkPhysicalDevice
	Device         unsafe.Pointer // VkDevice
	QueueFamily    uint32         // a family with compute
	Queue          unsafe.Pointer // VkQueue of QueueFamily; vkcompact submits to it only from its convenience calls
	// APIVersion is the apiVersion the engine created its instance with
	// (VK_MAKE_API_VERSION); 0 means 1.1.
	APIVersion uint32
	// FullSubgroups tells that the device was created with the
	// subgroupSizeControl and computeFullSubgroups features enabled; kernels
	// then require full subgroups.
	FullSubgroups bool
	// ShaderInt64 tells that the device was created with the shaderInt64
	// feature enabled; kernels may then use 64-bit integers (none needs
	// them: on CPU devices the lane-serial sort moves 64-bit words with
	// them, a quarter fewer memory operations). Ignored where the device
	// lacks the feature.
	ShaderInt64 bool
	// PushDescriptor asks the library to push its kernels' buffers with
	// VK_KHR_push_descriptor, which the device must have been created
	// with (Options.PushDescriptors says why it is off by default). False:
	// it binds descriptor sets it allocates and caches (nothing new per
	// frame once a frame's plans and buffers have been recorded once).
	PushDescriptor bool
	// CachedDescriptorSets is Options.CachedDescriptorSets: how many
	// descriptor sets the context keeps for reuse while no recording holds
	// them; 0 means DefaultCachedDescriptorSets.
	CachedDescriptorSets int
	// PipelineCacheDir is Options.PipelineCacheDir: the directory of the
	// persistent pipeline cache, empty for DefaultPipelineCacheDir,
	// PipelineCacheOff for none; VKCOMPACT_PIPELINE_CACHE overrides it.
	PipelineCacheDir string
}

// Borrow builds a Context on an engine's device. Release on it destroys only
// what the library created (its command pool, pipelines, buffers), never
// the borrowed handles. Release waits for the library's own submissions
// and for the engine's submissions reported with Context.Submitted (their
// fences), without a bound; the engine's other command buffers that
// recorded library work must have completed first (Close names those it
// was never told of), and none may be submitted again afterwards (they
// refer to the library's pipelines). Release the context before
// destroying the device, and before destroying the fences given to
// Submitted.
//
// vkcompact reaches Vulkan through function tables of its own, loaded
// through the engine's instance and device: the engine's binding (any
// binding) and its function tables are left alone.
func Borrow(h Handles) (*Context, error) {
	if h.Instance == nil || h.PhysicalDevice == nil || h.Device == nil || h.Queue == nil {
		return nil, invalidf("Borrow needs Instance, PhysicalDevice, Device and Queue; one is nil")
	}
	if err := load(); err != nil {
		return nil, err
	}
	ifns, err := loadInstanceFuncs(h.Instance)
	if err != nil {
		return nil, err
	}
	c, err := borrow(ifns, h)
	if err != nil {
		ifns.free()
		return nil, err
	}
	return c, nil
}

func borrow(ifns instanceFuncs, h Handles) (*Context, error) {
	idleSets, err := cachedSets(h.CachedDescriptorSets, "Handles")
	if err != nil {
		return nil, err
	}
	apiVersion := h.APIVersion
	if apiVersion == 0 {
		apiVersion = minAPIVersion
	}
	info, err := queryDevice(ifns, apiVersion, h.PhysicalDevice, -1)
	if err != nil {
		return nil, err
	}
	fams := ifns.queueFamilies(h.PhysicalDevice)
	const computeBit = 0x2
	if int(h.QueueFamily) >= len(fams) || fams[h.QueueFamily].flags&computeBit == 0 {
		return nil, invalidf("queue family %d is not a compute family of %s", h.QueueFamily, info.Name)
	}
	info.TimestampValidBits = fams[h.QueueFamily].timestampBits
	if len(info.Problems) > 0 {
		return nil, errorf(ErrUnsupported, "vk: %s lacks %s", info.Name, strings.Join(info.Problems, ", "))
	}
	if h.PushDescriptor && !info.PushDescriptor {
		return nil, invalidf("Handles.PushDescriptor is set, but %s has no %s", info.Name, extPushDescriptor)
	}
	c := &Context{
		ifns:          ifns,
		physical:      h.PhysicalDevice,
		device:        h.Device,
		queue:         h.Queue,
		family:        h.QueueFamily,
		borrowed:      true,
		info:          info,
		fullSubgroups: h.FullSubgroups && info.SubgroupSizeControl,
		shaderInt64:   h.ShaderInt64 && info.ShaderInt64,
		push:          h.PushDescriptor,
		idleSets:      idleSets,
	}
	c.pcache.opt = h.PipelineCacheDir
	c.info.ComputeQueueFamily = int(h.QueueFamily)
	if err := c.init(); err != nil {
		return nil, err
	}
	return c, nil
}
