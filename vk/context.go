package vk

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Options chooses the device a Context opens.
type Options struct {
	// Device is a device index ("0"), or a case-insensitive substring of the
	// device's name ("llvmpipe", "h100"). Empty: the VKCOMPACT_DEVICE
	// environment variable, and when that is empty too, the first usable
	// device by type: discrete GPU, then integrated, virtual, CPU; within
	// a type, one with VK_KHR_push_descriptor first.
	Device string
	// Validate enables VK_LAYER_KHRONOS_validation with synchronisation
	// validation and collects its messages (see Context.Messages). It is also
	// enabled by VKCOMPACT_VALIDATE=1.
	Validate bool
	// Timeout bounds each wait of the library's own submissions; 0 means
	// one minute.
	Timeout time.Duration
	// Statistics asks the driver to keep, for every pipeline, the
	// statistics of VK_KHR_pipeline_executable_properties (on NVIDIA:
	// registers per invocation, shared memory, ...), read with
	// ComputePipeline.Statistics. Ignored where the device lacks the
	// extension (DeviceInfo.PipelineStatistics); Statistics then reports
	// ErrUnsupported. It may slow pipeline creation.
	Statistics bool
	// PushDescriptors pushes the kernels' buffers with
	// VK_KHR_push_descriptor where the device has it, instead of binding
	// descriptor sets the context caches (one per distinct set of buffer
	// ranges, so that a frame loop over the same plans and buffers
	// allocates none after its first frame). Sets are the default: on the
	// H100 they took 3 to 7% less GPU time than push descriptors from
	// 2^16 to 2^22 elements, every operation (BENCHMARKS.md). It is also
	// set by VKCOMPACT_PUSH_DESCRIPTORS=1.
	PushDescriptors bool
}

// pushRequested reports whether VKCOMPACT_PUSH_DESCRIPTORS asks for push
// descriptors.
func pushRequested() bool {
	v := strings.TrimSpace(os.Getenv("VKCOMPACT_PUSH_DESCRIPTORS"))
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// Context is one Vulkan device and one compute queue, either created by the
// library (Open) or borrowed from an engine (Borrow). Its methods are safe
// for concurrent use; queue submission is serialised inside it.
type Context struct {
	inst     *instance     // nil when borrowed
	ifns     instanceFuncs // the instance's functions (inst.fns, or a table of the engine's instance)
	physical unsafe.Pointer
	device   unsafe.Pointer
	queue    unsafe.Pointer
	family   uint32
	borrowed bool
	info     DeviceInfo
	fns      *deviceFuncs
	memory   memoryTypes
	push     bool      // buffers are bound with VK_KHR_push_descriptor, else with sets
	sets     *setCache // the descriptor sets, when !push

	fullSubgroups bool // pipelines may require full subgroups
	statistics    bool // pipelines are created capturing their executable statistics
	timeout       time.Duration

	queueMu sync.Mutex // serialises vkQueueSubmit: the queue is externally synchronised

	mu          sync.Mutex // guards the fields below
	released    bool
	releaseDone chan struct{} // closed when Release has finished
	freePools   []uint64      // command pools free for the next submission
	freeFences  []uint64
	children    map[child]struct{}  // live buffers, pipelines and timers, released with the context
	inFlight    []*submission       // submissions whose wait timed out
	retire      []retiree           // objects released while submissions were outstanding
	nextSerial  uint64              // serial of the newest submission
	outstanding map[uint64]struct{} // serials of submissions being recorded or not yet known complete
	onRelease   []func()
	staging     *Buffer // reused for uploads and downloads; guarded by stagingMu
	stagingMu   sync.Mutex

	lost atomic.Bool

	// allocated is the device memory held by the context's own buffers
	// (staging and retired ones included), in bytes.
	allocated atomic.Uint64

	// active counts calls in progress that use the device (submissions,
	// transfers, object creation); Release waits for them.
	active sync.WaitGroup
}

// child is an object the context created and destroys at its Release if
// the caller has not. destroyLocked runs with the context's mu held.
type child interface{ destroyLocked() }

// enter marks the start of a call that uses the device. It fails once the
// context is released or its device lost; otherwise exit must follow.
func (c *Context) enter() error {
	if c == nil {
		return invalidf("nil context")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.unusableLocked(); err != nil {
		return err
	}
	c.active.Add(1)
	return nil
}

func (c *Context) exit() { c.active.Done() }

// adopt registers a child; it fails (and the caller destroys the child)
// when the context was released meanwhile.
func (c *Context) adopt(x child) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		x.destroyLocked()
		return released("the context")
	}
	c.children[x] = struct{}{}
	return nil
}

// disown unregisters a child and destroys it, or, while any submission is
// outstanding (it may use the child), retires it until those settle. It
// does nothing when the child was already released, by its own Release or
// the context's.
func (c *Context) disown(x child) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.children[x]; !ok {
		return
	}
	delete(c.children, x)
	if len(c.outstanding) > 0 {
		c.retire = append(c.retire, retiree{destroy: x.destroyLocked, after: c.nextSerial})
		c.reapLocked() // frees this and earlier retirees whose work has completed
		return
	}
	x.destroyLocked()
}

// Devices lists every Vulkan device with its information, and the index of
// the one Open would choose by default (-1 when none is usable).
func Devices() ([]DeviceInfo, int, error) {
	inst, err := createInstance(false)
	if err != nil {
		return nil, -1, err
	}
	defer inst.destroy()
	infos, _, err := queryAll(inst)
	if err != nil {
		return nil, -1, err
	}
	def := defaultDevice(infos)
	if def >= 0 {
		infos[def].Default = true
	}
	return infos, def, nil
}

func queryAll(inst *instance) ([]DeviceInfo, []unsafe.Pointer, error) {
	pds, err := inst.fns.physicalDevices()
	if err != nil {
		return nil, nil, err
	}
	infos := make([]DeviceInfo, len(pds))
	for i, pd := range pds {
		if infos[i], err = queryDevice(inst.fns, inst.apiVersion, pd, i); err != nil {
			return nil, nil, err
		}
	}
	return infos, pds, nil
}

// defaultDevice returns the preferred usable device, or -1: by type, and
// within a type the first with VK_KHR_push_descriptor (lavapipe before
// SwiftShader).
func defaultDevice(infos []DeviceInfo) int {
	best := -1
	for i := range infos {
		if !infos[i].Usable() {
			continue
		}
		if best < 0 || infos[i].typeRank < infos[best].typeRank ||
			infos[i].typeRank == infos[best].typeRank && infos[i].PushDescriptor && !infos[best].PushDescriptor {
			best = i
		}
	}
	return best
}

// selectDevice resolves a device request (index or name substring) against
// the list; an empty request picks the default.
func selectDevice(infos []DeviceInfo, request string) (int, error) {
	names := func() string {
		var b strings.Builder
		for i := range infos {
			fmt.Fprintf(&b, "; %d: %s", i, infos[i].Name)
		}
		if len(infos) == 0 {
			return "; no Vulkan devices were found (install a driver: mesa-vulkan-drivers gives lavapipe)"
		}
		return b.String()
	}
	request = strings.TrimSpace(request)
	pick := -1
	switch {
	case request == "":
		pick = defaultDevice(infos)
		if pick < 0 {
			var why []string
			for i := range infos {
				why = append(why, fmt.Sprintf("%d: %s lacks %s", i, infos[i].Name, strings.Join(infos[i].Problems, ", ")))
			}
			if len(infos) == 0 {
				return -1, errorf(ErrNoDevice, "vk: no Vulkan devices were found (install a driver: mesa-vulkan-drivers gives lavapipe)")
			}
			return -1, errorf(ErrUnsupported, "vk: no usable Vulkan device (%s)", strings.Join(why, "; "))
		}
	default:
		if n, err := strconv.Atoi(request); err == nil {
			if n < 0 || n >= len(infos) {
				return -1, errorf(ErrNoDevice, "vk: device index %d is out of range (%d device(s)%s)", n, len(infos), names())
			}
			pick = n
			break
		}
		want := strings.ToLower(request)
		for i := range infos {
			if strings.Contains(strings.ToLower(infos[i].Name), want) &&
				(pick < 0 || (!infos[pick].Usable() && infos[i].Usable()) ||
					(infos[i].Usable() == infos[pick].Usable() && infos[i].typeRank < infos[pick].typeRank)) {
				pick = i
			}
		}
		if pick < 0 {
			return -1, errorf(ErrNoDevice, "vk: no device name contains %q%s", request, names())
		}
	}
	if !infos[pick].Usable() {
		return -1, errorf(ErrUnsupported, "vk: %s lacks %s", infos[pick].Name, strings.Join(infos[pick].Problems, ", "))
	}
	return pick, nil
}

// Open creates an instance and a device. See Options for how the device is
// chosen. The first Open (or Devices) of the process also creates one
// instance that lives as long as the process, so that the Vulkan drivers
// stay loaded between contexts: NVIDIA's driver, loaded anew with every
// instance, takes static TLS that glibc does not always give back, and
// the 31st load in one process failed on an H100.
func Open(opts Options) (*Context, error) {
	request := opts.Device
	if request == "" {
		request = os.Getenv("VKCOMPACT_DEVICE")
	}
	inst, err := createInstance(opts.Validate || ValidationRequested())
	if err != nil {
		return nil, err
	}
	infos, pds, err := queryAll(inst)
	if err != nil {
		inst.destroy()
		return nil, err
	}
	pick, err := selectDevice(infos, request)
	if err != nil {
		inst.destroy()
		return nil, err
	}
	if def := defaultDevice(infos); def >= 0 {
		infos[def].Default = true
	}
	c := &Context{inst: inst, ifns: inst.fns, physical: pds[pick], info: infos[pick]}
	c.statistics = opts.Statistics && c.info.PipelineStatistics
	c.push = c.info.PushDescriptor && (opts.PushDescriptors || pushRequested())
	if err := c.createDevice(); err != nil {
		inst.destroy()
		return nil, err
	}
	if err := c.init(); err != nil {
		destroyBareDevice(inst.fns, c.device)
		inst.destroy()
		return nil, err
	}
	if opts.Timeout > 0 {
		c.timeout = opts.Timeout
	}
	return c, nil
}

// createDevice makes the device with one compute queue and the features
// vkcompact uses where the device has them.
func (c *Context) createDevice() error {
	d := &c.info
	c.family = uint32(d.ComputeQueueFamily)
	dev, err := c.ifns.createDevice(c.physical, deviceOptions{
		family:         c.family,
		push:           c.push,
		int64:          d.ShaderInt64,
		float64:        d.ShaderFloat64,
		sizeControl:    d.SubgroupSizeControl,
		sizeControlExt: d.SubgroupSizeControl && d.apiVersion < 1<<22|3<<12,
		statistics:     c.statistics,
	})
	if err != nil {
		return err
	}
	c.device = dev
	c.fullSubgroups = d.SubgroupSizeControl
	return nil
}

// destroyBareDevice destroys a device whose table could not be loaded.
func destroyBareDevice(inst instanceFuncs, device unsafe.Pointer) {
	if fns, err := loadDeviceFuncs(inst, device, false, false); err == nil {
		fns.destroyDevice()
		fns.free()
	}
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
	// PushDescriptor asks the library to push its kernels' buffers with
	// VK_KHR_push_descriptor, which the device must have been created
	// with (Options.PushDescriptors says why it is off by default). False:
	// it binds descriptor sets it allocates and caches (nothing new per
	// frame once a frame's plans and buffers have been recorded once).
	PushDescriptor bool
}

// Borrow builds a Context on an engine's device. Release on it destroys only
// what the library created (its command pool, pipelines, buffers), never
// the borrowed handles. Release waits for the library's own submissions
// only: the engine's command buffers that recorded library work must have
// completed first, and must not be submitted again afterwards (they refer
// to the library's pipelines). Release the context before destroying the
// device.
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
		push:          h.PushDescriptor,
	}
	c.info.ComputeQueueFamily = int(h.QueueFamily)
	if err := c.init(); err != nil {
		return nil, err
	}
	return c, nil
}

// init loads device functions and memory types.
func (c *Context) init() error {
	fns, err := loadDeviceFuncs(c.ifns, c.device, c.push, c.statistics)
	if err != nil {
		return err
	}
	c.fns = fns
	fns.owner = c
	if c.queue == nil {
		c.queue = fns.queue(c.family)
	}
	c.memory = c.ifns.memoryTypes(c.physical)
	c.children = map[child]struct{}{}
	c.outstanding = map[uint64]struct{}{}
	c.timeout = defaultTimeout
	if !c.push {
		c.sets = newSetCache()
	}
	return nil
}

// Info returns the device's information.
func (c *Context) Info() DeviceInfo { return c.info }

// Borrowed reports whether the context was built on an engine's device.
func (c *Context) Borrowed() bool { return c.borrowed }

// FullSubgroups reports whether kernels may require full subgroups (the
// device has subgroup size control and it is enabled).
func (c *Context) FullSubgroups() bool { return c.fullSubgroups }

// Usable returns nil while the context can take work: not released and no
// device loss seen.
func (c *Context) Usable() error {
	if c == nil {
		return invalidf("nil context")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unusableLocked()
}

func (c *Context) unusableLocked() error {
	if c.lost.Load() {
		return ErrDeviceLost
	}
	if c.released {
		return released("the context")
	}
	return nil
}

// noteResult records device loss so that every later call reports it.
func (c *Context) noteResult(err error) error {
	if errors.Is(err, ErrDeviceLost) {
		c.lost.Store(true)
	}
	return err
}

// Messages returns the validation layer's messages so far (nil when
// validation is off or the context is borrowed). Messages stay readable
// after Release, which adds any report made while destroying the device,
// such as objects not destroyed.
func (c *Context) Messages() []Message {
	if c.inst == nil || c.inst.val == nil {
		return nil
	}
	return c.inst.val.messages()
}

// ClearMessages forgets the validation messages collected so far.
func (c *Context) ClearMessages() {
	if c.inst != nil && c.inst.val != nil {
		c.inst.val.reset()
	}
}

// Validating reports whether the validation layer is on for this context.
func (c *Context) Validating() bool { return c.inst != nil && c.inst.val != nil }

// OnRelease registers f to run during Release, after the library's
// submissions have completed and before its objects and the device are
// destroyed. Layers above vk use it to destroy their cached pipelines. It
// returns false, and registers nothing, when the context is already
// released.
func (c *Context) OnRelease(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return false
	}
	c.onRelease = append(c.onRelease, f)
	return true
}

// Release waits for the library's calls in progress and its submissions
// to finish, destroys what the library created (buffers, pipelines and
// timers the caller has not released included) and, for a context from
// Open, the device and its instance (not the process's resident one, which
// keeps the drivers loaded). It is idempotent. It must not be called
// from inside a Submit record callback.
func (c *Context) Release() {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.released {
		// Another call is releasing, or has: return only once it is done.
		done := c.releaseDone
		c.mu.Unlock()
		if done != nil {
			<-done
		}
		return
	}
	// From here on no new call can start; wait for those in progress.
	c.released = true
	c.releaseDone = make(chan struct{})
	defer close(c.releaseDone)
	hooks := slices.Clone(c.onRelease)
	c.onRelease = nil
	c.mu.Unlock()
	c.active.Wait()

	// Wait for submissions whose wait timed out. A lost device completes
	// nothing more, so nothing needs waiting for.
	// Release owns them from here: Pending and reaping leave them alone.
	c.mu.Lock()
	inFlight := c.inFlight
	c.inFlight = nil
	c.mu.Unlock()
	for _, s := range inFlight {
		// Wait even when the device is reported lost: a lost device
		// answers at once, and a loss reported by a wait alone (an
		// injected fault, or a driver that reports loss late) may leave
		// the work running.
		c.fns.waitFence(s.fence, uint64(releaseWait))
		s.destroy(c)
	}
	if !c.borrowed {
		// Nothing of the library's may run when its objects go (the
		// device is its own; a lost device answers at once).
		c.fns.waitIdle()
	}
	c.mu.Lock()
	clear(c.outstanding)
	c.mu.Unlock()

	for i := len(hooks) - 1; i >= 0; i-- {
		hooks[i]() // with nothing outstanding, what they release is destroyed at once
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.retire {
		r.destroy()
	}
	c.retire = nil
	c.staging = nil // a child: destroyed below
	for x := range c.children {
		x.destroyLocked()
	}
	c.children = nil
	for _, p := range c.freePools {
		c.fns.destroyCommandPool(p)
	}
	for _, f := range c.freeFences {
		c.fns.destroyFence(f)
	}
	if c.sets != nil {
		c.sets.destroy(c.fns)
	}
	if c.borrowed {
		c.ifns.free()
	} else {
		c.fns.destroyDevice()
		c.inst.destroy()
	}
	c.fns.free()
	// Forget every handle so that nothing can reach the destroyed objects.
	c.ifns, c.physical, c.device, c.queue = instanceFuncs{}, nil, nil, nil
	c.fns = nil
	c.freePools, c.freeFences = nil, nil
}

// releaseWait bounds Release's wait for each submission still in flight.
const releaseWait = 10 * time.Second

// Close releases the context (see Release) and returns nil: it makes a
// Context an io.Closer, for defer and for code that closes what it opens.
func (c *Context) Close() error {
	c.Release()
	return nil
}

// AllocatedBytes reports the device memory the context's own buffers hold
// now: those the caller has not released, the staging buffer, and those
// retired until a submission that may use them completes. Borrowed
// buffers (WrapBuffer) count nothing. It is 0 after Release.
func (c *Context) AllocatedBytes() uint64 { return c.allocated.Load() }

// owns reports whether x is a live child of c.
func (c *Context) owns(x child) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.children[x]
	return ok
}
