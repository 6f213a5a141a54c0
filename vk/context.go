package vk

import (
	"errors"
	"os"
	"slices"
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
	// Timeout bounds each wait of the library's own submissions (Submit,
	// Upload, Download, every operation's Run). 0 (or less), the default,
	// means no bound: a wait lasts as long as the work does (a CPU driver
	// may legitimately work for minutes), and only a lost device ends it
	// early, with an error matching ErrDeviceLost. A wait past a bound
	// returns an error matching ErrTimeout with the work still in flight;
	// see Context.SetTimeout, which changes it later.
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
	// 2^16 to 2^22 elements, every operation (docs/tuning.md). It is also
	// set by VKCOMPACT_PUSH_DESCRIPTORS=1.
	PushDescriptors bool
	// CachedDescriptorSets bounds the descriptor sets the context keeps
	// for reuse while no recording holds them (binding with sets, not push
	// descriptors): beyond it, the least recently used is rewritten for
	// the next new set of buffer ranges. Sets held by recordings that may
	// still run (the library's submissions in flight, an engine's command
	// buffers until the library knows them complete: Context.Wrap) come
	// on top. 0 means
	// DefaultCachedDescriptorSets.
	CachedDescriptorSets int
	// PipelineCacheDir is the directory of the persistent pipeline cache:
	// the context loads its compiled pipelines from a file there at Open
	// and saves them at Release when it compiled new ones, so that the
	// next process skips compiles the driver can reuse. Empty: the
	// default, DefaultPipelineCacheDir; PipelineCacheOff ("off"): no
	// cache. The VKCOMPACT_PIPELINE_CACHE environment variable, a
	// directory or "off", overrides it. A missing, unreadable or
	// mismatched file only means an empty cache (Context.PipelineCache
	// says why), and a failed save is not an error.
	PipelineCacheDir string
}

// DefaultCachedDescriptorSets is the default of
// Options.CachedDescriptorSets and Handles.CachedDescriptorSets: more than
// the distinct buffer ranges of a frame of many operations, so that a
// frame loop over the same ranges allocates nothing, and a few hundred
// kilobytes at most.
const DefaultCachedDescriptorSets = 256

// cachedSets checks a requested bound on idle descriptor sets and applies
// the default.
func cachedSets(n int, field string) (int, error) {
	switch {
	case n < 0:
		return 0, invalidf("%s.CachedDescriptorSets %d: want 0 (the default, %d) or more", field, n, DefaultCachedDescriptorSets)
	case n == 0:
		return DefaultCachedDescriptorSets, nil
	}
	return n, nil
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
	idleSets int       // the bound on idle cached sets (Options.CachedDescriptorSets)
	pcache   pipelineCache

	fullSubgroups bool // pipelines may require full subgroups
	shaderInt64   bool // the device was created with shaderInt64: kernels may use 64-bit integers
	statistics    bool // pipelines are created capturing their executable statistics
	timeout       time.Duration

	queueMu sync.Mutex // serialises vkQueueSubmit: the queue is externally synchronised

	mu          sync.Mutex // guards the fields below
	released    bool
	releaseDone chan struct{}       // closed when Release has finished
	releaseErr  error               // what Release found wrong (Close returns it)
	free        []*submission       // command buffers, with their pools and fences, free for the next submission
	children    map[child]struct{}  // live buffers, pipelines and timers, released with the context
	inFlight    []*submission       // submissions whose wait timed out
	retire      []retiree           // objects released while submissions were outstanding
	nextSerial  uint64              // serial of the newest submission
	outstanding map[uint64]struct{} // serials of submissions being recorded or not yet known complete
	onRelease   []func()
	staging     *Buffer // reused for uploads and downloads; guarded by stagingMu
	stagingMu   sync.Mutex

	lost   atomic.Bool
	closed atomic.Bool // set as Release starts: recording methods then record nothing

	wrapMu  sync.Mutex
	wrapped map[unsafe.Pointer]*wrappedCmd // the engine's command buffers (Wrap), until known complete

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
	c.wrapped = map[unsafe.Pointer]*wrappedCmd{}
	if !c.push {
		c.sets = newSetCache(c.idleSets)
	}
	c.openPipelineCache()
	return nil
}

// Info returns the device's information (zero for a nil context).
func (c *Context) Info() DeviceInfo {
	if c == nil {
		return DeviceInfo{}
	}
	return c.info
}

// Borrowed reports whether the context was built on an engine's device.
func (c *Context) Borrowed() bool { return c != nil && c.borrowed }

// FullSubgroups reports whether kernels may require full subgroups (the
// device has subgroup size control and it is enabled).
func (c *Context) FullSubgroups() bool { return c != nil && c.fullSubgroups }

// ShaderInt64 reports whether kernels may use 64-bit integers: the device
// has shaderInt64 and it is enabled (Open enables it where the device has
// it; a borrowed device where Handles.ShaderInt64 says so). No kernel
// needs it; the lane-serial sort on CPU devices moves 64-bit words with
// it (radix).
func (c *Context) ShaderInt64() bool { return c != nil && c.shaderInt64 }

// Err returns nil while the context can take work, and otherwise why not:
// an error matching ErrReleased after Release, ErrDeviceLost once a call
// has seen the device lost (as context.Context's Err says why a context
// is done).
func (c *Context) Err() error {
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
	if c == nil || c.inst == nil || c.inst.val == nil {
		return nil
	}
	return c.inst.val.messages()
}

// ClearMessages forgets the validation messages collected so far.
func (c *Context) ClearMessages() {
	if c != nil && c.inst != nil && c.inst.val != nil {
		c.inst.val.reset()
	}
}

// Validating reports whether the validation layer is on for this context.
func (c *Context) Validating() bool { return c != nil && c.inst != nil && c.inst.val != nil }

// OnRelease registers f to run during Release, after the library's
// submissions have completed and before its objects and the device are
// destroyed. Layers above vk use it to destroy their cached pipelines. It
// returns false, and registers nothing, when the context is already
// released, or c or f is nil.
func (c *Context) OnRelease(f func()) bool {
	if c == nil || f == nil {
		return false
	}
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
//
// Release destroys nothing that work it knows of may still use, and waits
// for that work without a bound, whatever the context's timeout: the
// library's submissions whose wait timed out and the engine's submissions
// reported with Submitted, each until its fence has signalled, and, on a
// device of its own (Open), the whole device (vkDeviceWaitIdle). A lost
// device ends the waits at once. So on a CPU driver that takes minutes
// over a submission, Release takes those minutes. On a borrowed device it
// cannot know of an engine's command buffer that recorded library work
// and was reported neither with Submitted nor with Completed: such a
// command buffer must have completed before Release (Close names any).
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
	c.closed.Store(true)
	c.releaseDone = make(chan struct{})
	defer close(c.releaseDone)
	hooks := slices.Clone(c.onRelease)
	c.onRelease = nil
	c.mu.Unlock()
	c.active.Wait()

	// Wait until nothing of the library's may run, however long that
	// takes: the engine's submissions it reported (Submitted), and the
	// library's whose wait timed out (Release owns them from here:
	// Pending and reaping leave them alone), each until its fence has
	// signalled; on a device of the context's own, everything. A lost
	// device answers at once. Nothing is destroyed before these waits.
	unreported := c.waitWrapped()
	c.mu.Lock()
	if c.borrowed { // on a device of its own, the wait for the device covers them
		c.releaseErr = unreportedError(unreported)
	}
	inFlight := c.inFlight
	c.inFlight = nil
	c.mu.Unlock()
	for _, s := range inFlight {
		c.waitDone(s.fence)
	}
	if !c.borrowed {
		c.fns.waitIdle()
	}
	for _, s := range inFlight {
		s.destroy(c)
	}
	c.mu.Lock()
	clear(c.outstanding)
	c.mu.Unlock()

	if f := releaseWaited.Load(); f != nil {
		(*f)(c)
	}
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
	for _, s := range c.free {
		s.destroy(c)
	}
	c.wrapMu.Lock()
	c.wrapped = nil
	c.wrapMu.Unlock()
	if c.sets != nil {
		c.sets.destroy(c.fns)
	}
	c.closePipelineCache()
	if f := releaseLive.Load(); f != nil {
		(*f)(c, c.fns.liveObjects())
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
	c.free = nil
}

// Close releases the context (see Release): it makes a Context an
// io.Closer, for defer and for code that closes what it opens. It returns
// nil, or, on a borrowed device, an error matching ErrInvalid naming the
// engine's command buffers that recorded library work and that the
// engine reported neither with Submitted nor with Completed: Release
// cannot know whether they still run, and destroyed what they use.
func (c *Context) Close() error {
	c.Release()
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.releaseErr
}

// AllocatedBytes reports the device memory the context's own buffers hold
// now: those the caller has not released, the staging buffer, and those
// retired until a submission that may use them completes. Borrowed
// buffers (WrapBuffer) count nothing. It is 0 after Release.
func (c *Context) AllocatedBytes() uint64 {
	if c == nil {
		return 0
	}
	return c.allocated.Load()
}

// owns reports whether x is a live child of c.
func (c *Context) owns(x child) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.children[x]
	return ok
}

// Test seams, set only by this package's tests (export_test.go).
var (
	// releaseWaited runs in Release once the work it waits for has
	// ended, before it destroys anything.
	releaseWaited atomic.Pointer[func(*Context)]
	// releaseLive runs in Release with the objects still alive just
	// before the device (or, borrowed, the function table) goes.
	releaseLive atomic.Pointer[func(*Context, VulkanObjects)]
)
