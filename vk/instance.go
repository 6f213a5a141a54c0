package vk

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
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
	Code     int32  // the message ID number
	Text     string // the message
}

// String formats the message as "[severity layer code] text".
func (m Message) String() string {
	return fmt.Sprintf("[%s %s %d] %s", m.Severity, m.Layer, m.Code, m.Text)
}

// validator holds the validation messages of one instance: the C layer's
// queue, which the layer's debug-report callback fills, and the messages
// drained from it so far.
type validator struct {
	queue messageQueue

	mu   sync.Mutex
	msgs []Message
	done bool // the queue is freed: msgs holds everything
}

func (v *validator) messages() []Message {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.drainLocked()
	return append([]Message(nil), v.msgs...)
}

func (v *validator) drainLocked() {
	if !v.done {
		v.msgs = append(v.msgs, v.queue.take()...)
	}
}

func (v *validator) reset() {
	v.mu.Lock()
	v.drainLocked()
	v.msgs = nil
	v.mu.Unlock()
}

// close drains and frees the queue once its callback is destroyed.
func (v *validator) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.drainLocked()
	v.queue.free()
	v.done = true
}

// instance is a VkInstance the library created, with its function table
// and its validator when validation is on.
type instance struct {
	fns        instanceFuncs
	apiVersion uint32
	val        *validator
}

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
		return nil, errorf(ErrUnsupported, "vk: the Vulkan loader offers version %s; vkcompact needs 1.1 or later", versionString(version))
	}
	if validate {
		found, err := hasInstanceLayer(validationLayer)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("vk: validation was requested but %s is not installed (%s)", validationLayer, validationHint)
		}
	}
	keepDriversLoaded(version)
	h, err := createInstanceC(version, validate, portabilityEnumeration())
	if err != nil {
		return nil, err
	}
	fns, err := loadInstanceFuncs(h)
	if err != nil {
		destroyBareInstance(h)
		return nil, err
	}
	inst := &instance{fns: fns, apiVersion: version}
	if validate {
		q, err := fns.attachMessages()
		if err != nil {
			inst.destroy()
			return nil, err
		}
		inst.val = &validator{queue: q}
	}
	return inst, nil
}

// destroyBareInstance destroys an instance whose table could not be loaded.
func destroyBareInstance(h unsafe.Pointer) {
	if fns, err := loadInstanceFuncs(h); err == nil {
		fns.destroyInstance()
		fns.free()
	}
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
	handle unsafe.Pointer
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
	if h, err := createInstanceC(version, false, portabilityEnumeration()); err == nil {
		resident.handle = h
	}
}

// portabilityEnumeration reports whether instances enable
// VK_KHR_portability_enumeration (where the loader offers it): without it
// a loader from 1.3.216 on hides portability drivers such as MoltenVK.
// Enabling it changes nothing where there are none (every loader here).
func portabilityEnumeration() bool {
	ok, err := hasInstanceExtension("VK_KHR_portability_enumeration")
	return err == nil && ok
}

// destroy destroys the debug callback and the instance. Messages stay
// readable through the validator, those reported while the device was
// destroyed included.
func (inst *instance) destroy() {
	if inst.val != nil {
		inst.fns.detachMessages(inst.val.queue)
		inst.val.close()
	}
	inst.fns.destroyInstance()
	inst.fns.free()
	inst.fns = instanceFuncs{}
}

func versionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>22&0x7f, v>>12&0x3ff, v&0xfff)
}
