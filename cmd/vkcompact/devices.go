package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vkcompact/vkcompact/vk"
)

// devicesOutput is the JSON of `vkcompact devices -json`: stable field
// names, documented in docs/cli.md.
type devicesOutput struct {
	Default int             `json:"default"` // index of the default device, -1 when none is usable
	Devices []vk.DeviceInfo `json:"devices"`
}

// runDevices runs `vkcompact devices`: every Vulkan device, whether the
// tool can use it and which one it takes by default, as text or JSON.
func runDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("devices", stderr)
	asJSON := fs.Bool("json", false, jsonHelp)
	if err := parse(fs, args); err != nil {
		return err
	}
	infos, def, err := vk.Devices()
	if err != nil {
		return err
	}
	if *asJSON {
		for i := range infos {
			if infos[i].Problems == nil {
				infos[i].Problems = []string{}
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(devicesOutput{Default: def, Devices: infos})
	}
	if len(infos) == 0 {
		fmt.Fprintln(stdout, "no Vulkan devices found (install a driver: mesa-vulkan-drivers gives lavapipe)")
		return nil
	}
	for i, d := range infos {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		printDevice(stdout, d)
	}
	return nil
}

// printDevice writes a device's properties as an indented table.
func printDevice(w io.Writer, d vk.DeviceInfo) {
	mark := ""
	if d.Default {
		mark = "  [default]"
	}
	fmt.Fprintf(w, "%d: %s (%s)%s\n", d.Index, d.Name, d.Type, mark)
	row := func(k, format string, args ...any) {
		fmt.Fprintf(w, "   %-34s "+format+"\n", append([]any{k}, args...)...)
	}
	row("vendor/device id", "0x%04x / 0x%04x", d.VendorID, d.DeviceID)
	row("driver", "%s %s (%s)", d.DriverName, d.DriverVersion, d.DriverInfo)
	row("Vulkan", "%s", d.APIVersion)
	if d.SubgroupSizeControl {
		row("subgroup size", "%d (size control: %d to %d)", d.SubgroupSize, d.MinSubgroupSize, d.MaxSubgroupSize)
	} else {
		row("subgroup size", "%d (no size control)", d.SubgroupSize)
	}
	row("subgroup operations", "%s (in compute: %v)", strings.Join(d.SubgroupOperations, " "), d.SubgroupInCompute)
	row("maxStorageBufferRange", "%d", d.MaxStorageBufferRange)
	row("minStorageBufferOffsetAlignment", "%d", d.MinStorageBufferOffsetAlignment)
	row("max storage buffers per stage", "%d", d.MaxPerStageStorageBuffers)
	row("max workgroup count", "%d x %d x %d", d.MaxWorkgroupCount[0], d.MaxWorkgroupCount[1], d.MaxWorkgroupCount[2])
	row("max workgroup size", "%d x %d x %d, %d invocations", d.MaxWorkgroupSize[0], d.MaxWorkgroupSize[1], d.MaxWorkgroupSize[2], d.MaxWorkgroupInvocations)
	row("shared memory", "%d bytes", d.MaxSharedMemory)
	var heaps []string
	for _, h := range d.MemoryHeaps {
		kind := "host"
		if h.DeviceLocal {
			kind = "device-local"
		}
		heaps = append(heaps, fmt.Sprintf("%.1f GiB %s", float64(h.Size)/(1<<30), kind))
	}
	row("memory heaps", "%s", strings.Join(heaps, ", "))
	row("timestamps", "%g ns/tick, %d valid bits", d.TimestampPeriod, d.TimestampValidBits)
	row("compute queue family", "%d", d.ComputeQueueFamily)
	row("shaderInt64 / shaderFloat64", "%v / %v", d.ShaderInt64, d.ShaderFloat64)
	if len(d.Problems) > 0 {
		row("NOT USABLE: lacks", "%s", strings.Join(d.Problems, ", "))
	}
}
