package goki

import (
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	vkb "github.com/goki/vulkan"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// This file is the engine's side of the device: instance, validation
// messages, physical device, device and queue, created with the raw
// binding as a Go engine creates them, and destroyed in the order an
// engine destroys them.

const validationLayer = "VK_LAYER_KHRONOS_validation"

// withoutGC runs f, a call of the binding, with the garbage collector off:
// the binding's C copies of slice arguments are owned by a finalizer that
// a collection may run before the Vulkan call is made (docs/embedding.md
// warns engine authors). debug.SetGCPercent(-1) also
// waits for a cycle in progress to finish, so nothing allocated inside f
// is finalized before f returns. (vkcompact itself avoids those calls:
// see vk/cvk.go.)
func withoutGC(f func()) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	f()
}

// cstr terminates a string for the binding, which passes a Go string's
// bytes to C as they are, without adding a NUL.
func cstr(s string) string { return s + "\x00" }

// skipOrFail skips t for a missing loader, layer or device, or fails it
// where one is required (vktest.InCI: in CI and under the test script).
func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	if vktest.InCI() {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// reports collects every message of the debug-report callbacks. The binding
// delivers the debug reports of the whole process to one Go function, the
// first one ever given to it (a package variable in the binding), so one
// collector serves every instance here; TestEngine and TestLeakReported
// create their instances one after the other, never at the same time.
// newEngine checks that the collector does receive the reports.
var reports struct {
	sync.Mutex
	msgs []string
}

// debugReport is the engine's debug-report callback. The binding's string
// arguments point into the layer's memory, valid only during the call:
// fmt.Sprintf copies them. L is the type of the location argument, on
// which the bindings differ (goki/vulkan uint64, vulkan-go/vulkan uint).
func debugReport[L uint | uint64](flags vkb.DebugReportFlags, _ vkb.DebugReportObjectType, _ uint64, _ L, code int32, layer, text string, _ unsafe.Pointer) vkb.Bool32 {
	severity := "warning"
	switch {
	case flags&vkb.DebugReportFlags(vkb.DebugReportErrorBit) != 0:
		severity = "error"
	case flags&vkb.DebugReportFlags(vkb.DebugReportPerformanceWarningBit) != 0:
		severity = "performance"
	}
	msg := fmt.Sprintf("[%s %s %d] %s", severity, layer, code, text)
	reports.Lock()
	reports.msgs = append(reports.msgs, msg)
	reports.Unlock()
	return vkb.False
}

// takeReports returns the messages collected so far and forgets them.
func takeReports() []string {
	reports.Lock()
	defer reports.Unlock()
	msgs := reports.msgs
	reports.msgs = nil
	return msgs
}

// failOnReports fails t for every message collected since the last call.
func failOnReports(t testing.TB, when string) {
	t.Helper()
	for _, m := range takeReports() {
		t.Errorf("validation, %s: %s", when, m)
	}
}

// reportFlags are the reports the engine collects: errors and warnings of
// every kind; information and debug messages are not problems.
const reportFlags = vkb.DebugReportFlags(vkb.DebugReportErrorBit | vkb.DebugReportWarningBit | vkb.DebugReportPerformanceWarningBit)

// engine is what a Go engine holds of Vulkan, all of it created by the
// engine with its binding.
type engine struct {
	apiVersion uint32
	push       bool // enable VK_KHR_push_descriptor where the device has it, and tell vkcompact
	validate   bool // the validation layer and the engine's debug-report callback
	fullGroups bool // the device was created with subgroup size control
	instance   vkb.Instance
	callback   vkb.DebugReportCallback
	physical   vkb.PhysicalDevice
	minAlign   uint64 // minStorageBufferOffsetAlignment
	memory     []vkb.MemoryPropertyFlags
	family     uint32
	device     vkb.Device
	queue      vkb.Queue
	req        vk.Requirements

	ctx     *vk.Context // borrowed; released first at close
	objects []func()    // destroy the engine's objects, run in reverse
	closed  bool
}

// newEngine creates an instance at apiVersion with the validation layer,
// synchronisation validation and the engine's debug-report callback, picks
// the device VKCOMPACT_DEVICE names, and creates it with what vkcompact
// offers merged in: VK_KHR_push_descriptor only with push. It skips t
// without a loader, the layer or a device, except where vktest.InCI
// requires them. The engine is closed when t ends, and t fails on any
// validation message.
func newEngine(t testing.TB, apiVersion uint32, push bool) *engine {
	t.Helper()
	return newEngineValidated(t, apiVersion, push, validationOn())
}

// validationOn reports whether the engine enables the validation layer:
// always, unless VKCOMPACT_VALIDATE=0, which the Windows leg sets (under
// Wine the loader offers no layers) and long soaks may set (TestSoak).
func validationOn() bool { return os.Getenv("VKCOMPACT_VALIDATE") != "0" }

// requireValidation skips t, which checks what the layer reports, when the
// engine runs without it.
func requireValidation(t testing.TB) {
	t.Helper()
	if !validationOn() {
		t.Skip("VKCOMPACT_VALIDATE=0: the engine runs without the validation layer")
	}
}

// newEngineValidated is newEngine, without the validation layer and the
// engine's debug-report callback when validate is false.
func newEngineValidated(t testing.TB, apiVersion uint32, push, validate bool) *engine {
	t.Helper()
	// An engine gets vkGetInstanceProcAddr from its window library; this
	// one asks vkcompact, which loads libvulkan.so.1.
	p, err := vk.LoaderProcAddr()
	if err != nil {
		skipOrFail(t, "no Vulkan loader: %v", err)
	}
	vkb.SetGetInstanceProcAddr(p)
	if err := vkb.Init(); err != nil {
		t.Fatalf("vulkan.Init: %v", err)
	}
	if validate && !hasLayer(t, validationLayer) {
		skipOrFail(t, "%s is not installed (on Debian: apt-get install vulkan-validationlayers)", validationLayer)
	}
	if stale := takeReports(); len(stale) > 0 {
		t.Fatalf("validation messages from before this test: %q", stale)
	}

	e := &engine{apiVersion: apiVersion, push: push, validate: validate}
	t.Cleanup(func() { e.close(t) })
	e.createInstance(t)
	e.pickDevice(t)
	e.createDevice(t)
	failOnReports(t, "creating the instance and device")
	return e
}

// hasLayer reports whether the loader offers the named instance layer.
func hasLayer(t testing.TB, name string) bool {
	t.Helper()
	var n uint32
	if r := vkb.EnumerateInstanceLayerProperties(&n, nil); r != vkb.Success {
		t.Fatalf("vkEnumerateInstanceLayerProperties: %d", r)
	}
	layers := make([]vkb.LayerProperties, n)
	var r vkb.Result
	withoutGC(func() { r = vkb.EnumerateInstanceLayerProperties(&n, layers) })
	if r != vkb.Success && r != vkb.Incomplete {
		t.Fatalf("vkEnumerateInstanceLayerProperties: %d", r)
	}
	for i := range layers[:n] {
		layers[i].Deref()
		if goString(layers[i].LayerName[:]) == name {
			return true
		}
	}
	return false
}

// goString converts a NUL-terminated byte array.
func goString(b []byte) string {
	if i := slices.Index(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// createInstance creates the instance with VK_LAYER_KHRONOS_validation,
// synchronisation validation, and the debug-report callback: in the pNext
// chain (which covers vkCreateInstance and vkDestroyInstance) and as an
// object. Synchronisation validation is switched on through the layer's
// VK_LAYER_ENABLES setting (vulkan-go/vulkan has no
// VkValidationFeaturesEXT); TestSyncValidation shows that it is on.
func (e *engine) createInstance(t testing.TB) {
	t.Helper()
	if !e.validate {
		e.createBareInstance(t)
		return
	}
	t.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	callbackInfo := &vkb.DebugReportCallbackCreateInfo{
		SType: vkb.StructureTypeDebugReportCallbackCreateInfo,
		Flags: reportFlags,
	}
	callbackInfo.PfnCallback = debugReport // an assignment: it infers debugReport's type argument
	defer callbackInfo.Free()
	info := &vkb.InstanceCreateInfo{
		SType: vkb.StructureTypeInstanceCreateInfo,
		PApplicationInfo: &vkb.ApplicationInfo{
			SType:            vkb.StructureTypeApplicationInfo,
			PApplicationName: cstr("enginetest"),
			PEngineName:      cstr("enginetest"),
			ApiVersion:       e.apiVersion,
		},
		EnabledLayerCount:       1,
		PpEnabledLayerNames:     []string{cstr(validationLayer)},
		EnabledExtensionCount:   1,
		PpEnabledExtensionNames: []string{cstr("VK_EXT_debug_report")},
	}
	defer info.Free()
	var instance vkb.Instance
	var r vkb.Result
	withoutGC(func() {
		callbackRef, _ := callbackInfo.PassRef()
		info.PNext = unsafe.Pointer(callbackRef)
		r = vkb.CreateInstance(info, nil, &instance)
	})
	if r != vkb.Success {
		t.Fatalf("vkCreateInstance: %d", r)
	}
	e.instance = instance
	if err := vkb.InitInstance(instance); err != nil {
		t.Fatalf("vulkan.InitInstance: %v", err)
	}

	var callback vkb.DebugReportCallback
	object := &vkb.DebugReportCallbackCreateInfo{
		SType: vkb.StructureTypeDebugReportCallbackCreateInfo,
		Flags: reportFlags,
	}
	object.PfnCallback = debugReport
	r = vkb.CreateDebugReportCallback(instance, object, nil, &callback)
	object.Free()
	if r != vkb.Success {
		t.Fatalf("vkCreateDebugReportCallbackEXT: %d", r)
	}
	e.callback = callback

	// The binding keeps the first Go callback it was given, process-wide:
	// make sure that reports reach this one. (The loader delivers a
	// message the application injects once per installed driver, and once
	// more: count copies, not messages.)
	const probe = "enginetest: probe of the debug-report callback"
	vkb.DebugReportMessage(instance, vkb.DebugReportFlags(vkb.DebugReportWarningBit), vkb.DebugReportObjectTypeUnknown,
		0, 0, 0, cstr("enginetest"), cstr(probe))
	got := takeReports()
	if len(got) == 0 || slices.ContainsFunc(got, func(m string) bool { return !strings.Contains(m, probe) }) {
		t.Fatalf("the debug-report callback received %q after vkDebugReportMessageEXT, want the probe only: "+
			"did code in this process register another Go callback with %s first?", got, bindingName)
	}
}

// createBareInstance creates the instance with no layer and no extension.
func (e *engine) createBareInstance(t testing.TB) {
	t.Helper()
	info := &vkb.InstanceCreateInfo{
		SType: vkb.StructureTypeInstanceCreateInfo,
		PApplicationInfo: &vkb.ApplicationInfo{
			SType:            vkb.StructureTypeApplicationInfo,
			PApplicationName: cstr("enginetest"),
			PEngineName:      cstr("enginetest"),
			ApiVersion:       e.apiVersion,
		},
	}
	defer info.Free()
	var instance vkb.Instance
	var r vkb.Result
	withoutGC(func() { r = vkb.CreateInstance(info, nil, &instance) })
	if r != vkb.Success {
		t.Fatalf("vkCreateInstance: %d", r)
	}
	e.instance = instance
	if err := vkb.InitInstance(instance); err != nil {
		t.Fatalf("vulkan.InitInstance: %v", err)
	}
}

// pickDevice chooses the physical device as the rest of the suite does:
// VKCOMPACT_DEVICE is an index or a case-insensitive substring of the
// device's name; without it, the first device of the first type (discrete,
// integrated, virtual, CPU) that vkcompact can use. It then asks vkcompact
// what it requires there, and fails t if the device lacks anything.
func (e *engine) pickDevice(t testing.TB) {
	t.Helper()
	var n uint32
	if r := vkb.EnumeratePhysicalDevices(e.instance, &n, nil); r != vkb.Success {
		t.Fatalf("vkEnumeratePhysicalDevices: %d", r)
	}
	pds := make([]vkb.PhysicalDevice, n)
	if r := vkb.EnumeratePhysicalDevices(e.instance, &n, pds); r != vkb.Success {
		t.Fatalf("vkEnumeratePhysicalDevices: %d", r)
	}
	pds = pds[:n]
	if len(pds) == 0 {
		skipOrFail(t, "no Vulkan device (mesa-vulkan-drivers gives lavapipe)")
	}
	type candidate struct {
		pd   vkb.PhysicalDevice
		name string
		rank int
		req  vk.Requirements
	}
	typeRank := map[vkb.PhysicalDeviceType]int{
		vkb.PhysicalDeviceTypeDiscreteGpu: 0, vkb.PhysicalDeviceTypeIntegratedGpu: 1,
		vkb.PhysicalDeviceTypeVirtualGpu: 2, vkb.PhysicalDeviceTypeCpu: 3,
	}
	var all []candidate
	for _, pd := range pds {
		var props vkb.PhysicalDeviceProperties
		vkb.GetPhysicalDeviceProperties(pd, &props)
		props.Deref()
		rank, ok := typeRank[props.DeviceType]
		if !ok {
			rank = 4
		}
		c := candidate{pd: pd, name: goString(props.DeviceName[:]), rank: rank}
		props.Free()
		req, err := vk.DeviceRequirements(unsafe.Pointer(e.instance), unsafe.Pointer(pd), e.apiVersion)
		if err != nil {
			t.Fatalf("vk.DeviceRequirements(%s): %v", c.name, err)
		}
		c.req = req
		all = append(all, c)
	}
	pick := -1
	request := strings.TrimSpace(os.Getenv("VKCOMPACT_DEVICE"))
	if i, err := strconv.Atoi(request); err == nil {
		if i < 0 || i >= len(all) {
			skipOrFail(t, "VKCOMPACT_DEVICE=%s: there are %d devices", request, len(all))
		}
		pick = i
	} else if request != "" {
		for i, c := range all {
			if strings.Contains(strings.ToLower(c.name), strings.ToLower(request)) {
				pick = i
				break
			}
		}
		if pick < 0 {
			skipOrFail(t, "VKCOMPACT_DEVICE=%s: no device's name contains it", request)
		}
	} else {
		for i, c := range all {
			if len(c.req.Missing) == 0 && (pick < 0 || c.rank < all[pick].rank) {
				pick = i
			}
		}
		if pick < 0 {
			skipOrFail(t, "no device vkcompact can use among %d", len(all))
		}
	}
	c := all[pick]
	if len(c.req.Missing) > 0 {
		t.Fatalf("%s lacks what vkcompact requires: %v", c.name, c.req.Missing)
	}
	e.physical, e.req = c.pd, c.req
	t.Logf("device %s, instance API %d.%d, vkcompact requires extensions %v, subgroup size control %v",
		c.name, e.apiVersion>>22, e.apiVersion>>12&0x3ff, c.req.Extensions, c.req.SubgroupSizeControl)

	var props vkb.PhysicalDeviceProperties
	vkb.GetPhysicalDeviceProperties(e.physical, &props)
	props.Deref()
	props.Limits.Deref()
	e.minAlign = uint64(props.Limits.MinStorageBufferOffsetAlignment)
	props.Free()

	var mem vkb.PhysicalDeviceMemoryProperties
	vkb.GetPhysicalDeviceMemoryProperties(e.physical, &mem)
	mem.Deref()
	for i := range mem.MemoryTypes[:mem.MemoryTypeCount] {
		mem.MemoryTypes[i].Deref()
		e.memory = append(e.memory, mem.MemoryTypes[i].PropertyFlags)
	}
	mem.Free()

	var nf uint32
	vkb.GetPhysicalDeviceQueueFamilyProperties(e.physical, &nf, nil)
	families := make([]vkb.QueueFamilyProperties, nf)
	withoutGC(func() { vkb.GetPhysicalDeviceQueueFamilyProperties(e.physical, &nf, families) })
	e.family = ^uint32(0)
	for i := range families[:nf] {
		families[i].Deref()
		if families[i].QueueFlags&vkb.QueueFlags(vkb.QueueComputeBit) != 0 {
			e.family = uint32(i)
			break
		}
	}
	if e.family == ^uint32(0) {
		t.Fatalf("%s has no compute queue family", c.name)
	}
}

// engineExtensions are the device extensions the engine enables for its
// own use where the device has them; vkcompact's are merged in. Push
// descriptors are here to show that the merge keeps each name once.
var engineExtensions = []string{"VK_KHR_push_descriptor"}

// wanted returns the extensions the engine enables: its own and
// vkcompact's that the device has, push descriptors only with e.push, and
// subgroup size control only where the binding can enable its features.
func (e *engine) wanted(sizeControl bool) []string {
	var names []string
	for _, x := range mergeExtensions(engineExtensions, e.req.Extensions) {
		offered := slices.Contains(e.req.Extensions, x) || x == "VK_KHR_push_descriptor" && e.req.PushDescriptor
		switch {
		case !offered:
			// The device lacks it (vkcompact says what the device has).
		case x == "VK_KHR_push_descriptor" && !e.push:
		case x == "VK_EXT_subgroup_size_control" && !sizeControl:
		default:
			names = append(names, x)
		}
	}
	return names
}

// mergeExtensions returns own followed by those of more not already there.
func mergeExtensions(own, more []string) []string {
	all := slices.Clone(own)
	for _, x := range more {
		if !slices.Contains(all, x) {
			all = append(all, x)
		}
	}
	return all
}

// createDevice creates the device with one queue of the compute family,
// vkcompact's extensions merged into the engine's, and, where the device
// offers them and the binding has their structure, the
// subgroupSizeControl and computeFullSubgroups features.
func (e *engine) createDevice(t testing.TB) {
	t.Helper()
	e.fullGroups = e.req.SubgroupSizeControl && hasSizeControl
	var names []string
	for _, x := range e.wanted(e.fullGroups) {
		names = append(names, cstr(x))
	}
	e.push = e.push && slices.Contains(e.wanted(e.fullGroups), "VK_KHR_push_descriptor")
	info := &vkb.DeviceCreateInfo{
		SType:                vkb.StructureTypeDeviceCreateInfo,
		QueueCreateInfoCount: 1,
		PQueueCreateInfos: []vkb.DeviceQueueCreateInfo{{
			SType:            vkb.StructureTypeDeviceQueueCreateInfo,
			QueueFamilyIndex: e.family,
			QueueCount:       1,
			PQueuePriorities: []float32{1},
		}},
		EnabledExtensionCount:   uint32(len(names)),
		PpEnabledExtensionNames: names,
	}
	defer info.Free()
	var device vkb.Device
	var r vkb.Result
	withoutGC(func() {
		if e.fullGroups {
			next, free := sizeControlFeatures()
			defer free()
			info.PNext = next
		}
		r = vkb.CreateDevice(e.physical, info, nil, &device)
	})
	if r != vkb.Success {
		t.Fatalf("vkCreateDevice: %d", r)
	}
	e.device = device
	var queue vkb.Queue
	vkb.GetDeviceQueue(device, e.family, 0, &queue)
	e.queue = queue
}

// borrow hands the device to vkcompact. The context is released first
// when the engine closes.
func (e *engine) borrow(t testing.TB) *vk.Context {
	t.Helper()
	ctx, err := vk.Borrow(vk.Handles{
		Instance:       unsafe.Pointer(e.instance),
		PhysicalDevice: unsafe.Pointer(e.physical),
		Device:         unsafe.Pointer(e.device),
		QueueFamily:    e.family,
		Queue:          unsafe.Pointer(e.queue),
		APIVersion:     e.apiVersion,
		FullSubgroups:  e.fullGroups,
		PushDescriptor: e.push,
	})
	if err != nil {
		t.Fatalf("vk.Borrow: %v", err)
	}
	if ctx.FullSubgroups() != e.fullGroups {
		t.Errorf("the context's FullSubgroups is %v, the device was created with subgroup size control %v",
			ctx.FullSubgroups(), e.fullGroups)
	}
	if ctx.PushDescriptors() != e.push {
		t.Errorf("the context pushes descriptors: %v; the device was created with VK_KHR_push_descriptor: %v", ctx.PushDescriptors(), e.push)
	}
	info := ctx.Info()
	t.Logf("vkcompact borrowed %s through %s: subgroup size %d (%d to %d), full subgroups %v, push descriptors %v",
		info.Name, bindingName, info.SubgroupSize, info.MinSubgroupSize, info.MaxSubgroupSize, ctx.FullSubgroups(), ctx.PushDescriptors())
	e.ctx = ctx
	return ctx
}

// own registers the destruction of one of the engine's objects.
func (e *engine) own(destroy func()) { e.objects = append(e.objects, destroy) }

// destroyDevice destroys the engine's objects and the device: after the
// queue is idle, as an engine shuts down. Validation reports any child
// object of the device still alive here.
func (e *engine) destroyDevice(t testing.TB) {
	t.Helper()
	if e.device == nil {
		return
	}
	if r := vkb.DeviceWaitIdle(e.device); r != vkb.Success {
		t.Errorf("vkDeviceWaitIdle: %d", r)
	}
	for i := len(e.objects) - 1; i >= 0; i-- {
		e.objects[i]()
	}
	e.objects = nil
	vkb.DestroyDevice(e.device, nil)
	e.device, e.queue = nil, nil
}

// close shuts the engine down in an engine's order: the vkcompact context
// first (it destroys only what vkcompact created), then the engine's own
// objects, the device, the debug callback and the instance. Then it fails
// t on any validation message, those reported while destroying included.
func (e *engine) close(t testing.TB) {
	t.Helper()
	if e.closed {
		return
	}
	e.closed = true
	if e.ctx != nil {
		e.ctx.Release()
		e.ctx = nil
	}
	e.destroyDevice(t)
	if e.callback != nil {
		vkb.DestroyDebugReportCallback(e.instance, e.callback, nil)
		e.callback = nil
	}
	if e.instance != nil {
		vkb.DestroyInstance(e.instance, nil)
		e.instance = nil
	}
	failOnReports(t, "at teardown")
}
