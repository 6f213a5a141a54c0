package vk

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	vkb "github.com/goki/vulkan"
)

const (
	validationLayer    = "VK_LAYER_KHRONOS_validation"
	extPushDescriptor  = "VK_KHR_push_descriptor"
	extSubgroupSizeCtl = "VK_EXT_subgroup_size_control"

	// minAPIVersion is the oldest Vulkan the library runs on.
	minAPIVersion = 1<<22 | 1<<12 // 1.1.0
)

// ValidationRequested reports whether VKCOMPACT_VALIDATE asks for the
// Khronos validation layer.
func ValidationRequested() bool {
	v := strings.TrimSpace(os.Getenv("VKCOMPACT_VALIDATE"))
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// Message is one report from the validation layer.
type Message struct {
	Severity string // "error", "warning" or "performance"
	Layer    string // the layer prefix, e.g. "Validation"
	Code     int32
	Text     string
}

func (m Message) String() string {
	return fmt.Sprintf("[%s %s %d] %s", m.Severity, m.Layer, m.Code, m.Text)
}

// validator collects the messages of one instance's debug-report callback.
type validator struct {
	id       uint64
	userData unsafe.Pointer // C block holding id
	callback vkb.DebugReportCallback

	mu   sync.Mutex
	msgs []Message
}

// The binding delivers every debug-report message to one process-wide Go
// function; it finds the instance's validator through the user-data block.
var validators = struct {
	sync.Mutex
	next uint64
	byID map[uint64]*validator
}{byID: map[uint64]*validator{}}

func debugReport(flags vkb.DebugReportFlags, _ vkb.DebugReportObjectType, _ uint64, _ uint64, code int32, layer, text string, userData unsafe.Pointer) vkb.Bool32 {
	if userData == nil {
		return vkb.False
	}
	id := *(*uint64)(userData)
	validators.Lock()
	v := validators.byID[id]
	validators.Unlock()
	if v == nil {
		return vkb.False
	}
	sev := "warning"
	switch {
	case flags&vkb.DebugReportFlags(vkb.DebugReportErrorBit) != 0:
		sev = "error"
	case flags&vkb.DebugReportFlags(vkb.DebugReportPerformanceWarningBit) != 0:
		sev = "performance"
	}
	// The binding's strings point into the layer's C memory, valid only
	// during the callback: keep copies.
	v.mu.Lock()
	v.msgs = append(v.msgs, Message{Severity: sev, Layer: strings.Clone(layer), Code: code, Text: strings.Clone(text)})
	v.mu.Unlock()
	return vkb.False
}

func (v *validator) messages() []Message {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]Message(nil), v.msgs...)
}

func (v *validator) reset() {
	v.mu.Lock()
	v.msgs = nil
	v.mu.Unlock()
}

// instance is a VkInstance the library created, with its validator when
// validation is on.
type instance struct {
	handle     vkb.Instance
	apiVersion uint32
	val        *validator
}

var initInstanceOnce sync.Once

// createInstance makes an instance at the highest API version the loader
// offers, with the validation layer and synchronisation validation when
// validate is set.
func createInstance(validate bool) (*instance, error) {
	if err := load(); err != nil {
		return nil, err
	}
	version, err := enumerateInstanceVersion()
	if err != nil {
		return nil, err
	}
	if version < minAPIVersion {
		return nil, fmt.Errorf("%w: the Vulkan loader offers version %s; vkcompact needs 1.1 or later", ErrUnsupported, versionString(version))
	}
	if validate {
		found, err := hasInstanceLayer(validationLayer)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("vk: validation was requested but %s is not installed (on Debian: apt-get install vulkan-validationlayers)", validationLayer)
		}
	}
	keepDriversLoaded(version)
	h, err := createInstanceC(version, validate)
	if err != nil {
		return nil, err
	}
	// The binding resolves every entry point through vkGetInstanceProcAddr;
	// with a NULL instance the loader gives only the global ones. The
	// loader's trampolines it returns for one instance dispatch on the
	// handle, so one initialisation serves every instance.
	initInstanceOnce.Do(func() { err = vkb.InitInstance(h) })
	if err != nil {
		vkb.DestroyInstance(h, nil)
		return nil, fmt.Errorf("vk: loading instance functions: %w", err)
	}
	inst := &instance{handle: h, apiVersion: version}
	if validate {
		if err := inst.attachValidator(); err != nil {
			vkb.DestroyInstance(h, nil)
			return nil, err
		}
	}
	return inst, nil
}

// resident is an instance the library creates once per process and never
// destroys, so that the Vulkan drivers stay loaded. The loader loads the
// drivers (ICDs) with an instance and unloads them with the last one. A
// driver built with static TLS (NVIDIA's libnvidia-tls) takes a piece of the
// process's fixed static TLS space each time it is loaded, which glibc
// reclaims on unload only in some cases: on an H100 (driver 580.159.04,
// Debian 12's loader) the 31st Open after 30 Open/Release cycles failed
// with the loader's "cannot allocate memory in static TLS block"
// (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER), and so did every later
// one; that each load leaked the space is inferred from the message. With
// this instance alive, later instances find the drivers loaded. It enables
// no layer or extension of its own (implicit layers, or layers forced by
// the environment, load with it and stay loaded too).
var resident struct {
	sync.Mutex
	handle vkb.Instance
}

// keepDriversLoaded creates the resident instance if there is none yet. A
// failure is left for the caller's own vkCreateInstance to report; the
// next call tries again.
func keepDriversLoaded(version uint32) {
	resident.Lock()
	defer resident.Unlock()
	if resident.handle != nil {
		return
	}
	if h, err := createInstanceC(version, false); err == nil {
		resident.handle = h
	}
}

func (inst *instance) attachValidator() error {
	validators.Lock()
	validators.next++
	v := &validator{id: validators.next}
	validators.byID[v.id] = v
	validators.Unlock()
	v.userData = cUserData(v.id)
	info := &vkb.DebugReportCallbackCreateInfo{
		SType: vkb.StructureTypeDebugReportCallbackCreateInfo,
		Flags: vkb.DebugReportFlags(vkb.DebugReportErrorBit | vkb.DebugReportWarningBit |
			vkb.DebugReportPerformanceWarningBit),
		PfnCallback: debugReport,
		PUserData:   v.userData,
	}
	var callback vkb.DebugReportCallback // a local: v holds Go pointers, which cgo checks
	r := vkb.CreateDebugReportCallback(inst.handle, info, nil, &callback)
	info.Free()
	v.callback = callback
	if err := check("vkCreateDebugReportCallbackEXT", r); err != nil {
		v.forget()
		return err
	}
	inst.val = v
	return nil
}

func (v *validator) forget() {
	validators.Lock()
	delete(validators.byID, v.id)
	validators.Unlock()
	cFree(v.userData)
	v.userData = nil
}

// destroy destroys the debug callback and the instance. Messages stay
// readable through the validator.
func (inst *instance) destroy() {
	if inst.val != nil {
		vkb.DestroyDebugReportCallback(inst.handle, inst.val.callback, nil)
		inst.val.forget()
	}
	vkb.DestroyInstance(inst.handle, nil)
}

func versionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>22&0x7f, v>>12&0x3ff, v&0xfff)
}
