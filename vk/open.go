package vk

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// Choosing and opening a device: Devices, Open and the choice between
// devices.

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
	idleSets, err := cachedSets(opts.CachedDescriptorSets, "Options")
	if err != nil {
		return nil, err
	}
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
	c := &Context{inst: inst, ifns: inst.fns, physical: pds[pick], info: infos[pick], idleSets: idleSets}
	c.pcache.opt = opts.PipelineCacheDir
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
		family:            c.family,
		push:              c.push,
		int64:             d.ShaderInt64,
		float64:           d.ShaderFloat64,
		sizeControl:       d.SubgroupSizeControl,
		sizeControlExt:    d.SubgroupSizeControl && d.apiVersion < 1<<22|3<<12,
		statistics:        c.statistics,
		portabilitySubset: d.portabilitySubset,
	})
	if err != nil {
		return err
	}
	c.device = dev
	c.fullSubgroups = d.SubgroupSizeControl
	c.shaderInt64 = d.ShaderInt64
	return nil
}

// destroyBareDevice destroys a device whose table could not be loaded.
func destroyBareDevice(inst instanceFuncs, device unsafe.Pointer) {
	if fns, err := loadDeviceFuncs(inst, device, false, false); err == nil {
		fns.destroyDevice()
		fns.free()
	}
}
