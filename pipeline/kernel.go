// Package pipeline turns SPIR-V into cached compute pipelines and records
// sequences of dispatches, with the buffer memory barriers between them,
// into a command buffer: the caller's (Record) or one it owns and submits
// (Run). It knows nothing of what the kernels compute.
package pipeline

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/spvspec"
	"github.com/vkcompact/vkcompact/vk"
)

// LoopBudget is the most iterations a kernel's loop may take on any
// device: lavapipe ends a shader's loop after 65535 iterations (and the
// output it was writing with it), so the plans cut their work to half of
// that per loop.
const LoopBudget = 32768

// Use is how a kernel uses one of its storage-buffer bindings (what the
// recorder's barriers are made from; vk.Access is a Vulkan access mask).
type Use uint8

const (
	Read      Use            = 1 << iota // the kernel only reads the binding
	Write                                // the kernel only writes the binding
	ReadWrite = Read | Write             // the kernel reads and writes the binding
)

// Kernel describes a compute shader: its SPIR-V, its storage-buffer
// bindings (binding i used as Bindings[i]), its push constants, and whether
// it relies on full subgroups. Specialization constant 0 is the workgroup
// size (local_size_x_id = 0) by convention; the rest are the kernel's own.
type Kernel struct {
	Name          string   // the kernel's name in errors and statistics
	SPIRV         []uint32 // the compiled shader
	Bindings      []Use    // binding i is a storage buffer used as Bindings[i]
	PushWords     int      // 32-bit words of push constants
	FullSubgroups bool     // require full subgroups where the device allows it
}

// Pipeline is a kernel created for one device with one set of
// specialization constants.
type Pipeline struct {
	Kernel        *Kernel  // what it runs
	Constants     []uint32 // its specialization constants, by constant id
	WorkgroupSize uint32   // Constants[0]
	ctx           *vk.Context
	p             *vk.ComputePipeline
}

// Cache holds a context's pipelines, created once per (kernel, constants)
// and destroyed when the context is released. It is safe for concurrent
// use, first use included.
type Cache struct {
	ctx *vk.Context
	mu  sync.Mutex
	m   map[string]*Pipeline
}

var caches = struct {
	sync.Mutex
	m map[*vk.Context]*Cache
}{m: map[*vk.Context]*Cache{}}

// For returns ctx's pipeline cache, creating it on first use.
func For(ctx *vk.Context) *Cache {
	if ctx == nil {
		return &Cache{} // Get reports the nil context
	}
	caches.Lock()
	defer caches.Unlock()
	if c, ok := caches.m[ctx]; ok {
		return c
	}
	c := &Cache{ctx: ctx, m: map[string]*Pipeline{}}
	if !ctx.OnRelease(func() {
		caches.Lock()
		delete(caches.m, ctx)
		caches.Unlock()
		c.release()
	}) {
		c.m = nil // the context is released: Get reports it
		return c
	}
	caches.m[ctx] = c
	return c
}

func key(k *Kernel, constants []uint32) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%p", k)
	for _, v := range constants {
		fmt.Fprintf(&b, ",%d", v)
	}
	return b.String()
}

// Get returns the pipeline for k with the given specialization constants,
// creating it on first use. constants[0] is the workgroup size: a positive
// multiple of the device's largest subgroup size when k needs full
// subgroups, within the device's workgroup limits.
func (c *Cache) Get(k *Kernel, constants ...uint32) (*Pipeline, error) {
	if c == nil || c.ctx == nil {
		return nil, errs.Invalidf("pipeline: cache of a nil context")
	}
	if k == nil || len(k.SPIRV) == 0 {
		return nil, errs.Invalidf("pipeline: kernel has no SPIR-V")
	}
	if len(constants) == 0 {
		return nil, errs.Invalidf("pipeline %s: specialization constant 0 (the workgroup size) is missing", k.Name)
	}
	info := c.ctx.Info()
	wg := constants[0]
	if wg == 0 || wg > info.MaxWorkgroupSize[0] || wg > info.MaxWorkgroupInvocations {
		return nil, errs.Invalidf("pipeline %s: workgroup size %d outside 1..%d", k.Name, wg, min(info.MaxWorkgroupSize[0], info.MaxWorkgroupInvocations))
	}
	if k.FullSubgroups && c.ctx.FullSubgroups() && wg%info.MaxSubgroupSize != 0 {
		return nil, errs.Invalidf("pipeline %s: workgroup size %d is not a multiple of the largest subgroup size %d", k.Name, wg, info.MaxSubgroupSize)
	}
	id := key(k, constants)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		return nil, c.ctx.Err() // the context is released
	}
	if p, ok := c.m[id]; ok {
		return p, nil
	}
	desc := vk.PipelineDesc{
		Name:          k.Name,
		Code:          k.SPIRV,
		Bindings:      len(k.Bindings),
		PushSize:      uint32(4 * k.PushWords),
		Constants:     constants,
		FullSubgroups: k.FullSubgroups,
	}
	if SpecializesSPIRV(info) {
		// The constants frozen into the module, its dead branches gone;
		// where the pass does not apply, the driver specializes as before.
		if code, changed, err := spvspec.Specialize(k.SPIRV, constants); err == nil && changed {
			desc.Code, desc.Constants = code, nil
		}
	}
	vp, err := c.ctx.NewComputePipeline(desc)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{Kernel: k, Constants: slices.Clone(constants), WorkgroupSize: wg, ctx: c.ctx, p: vp}
	c.m[id] = p
	return p, nil
}

// SpecializesSPIRV reports whether pipelines for the device get their
// SPIR-V specialized ahead of the driver (package internal/spvspec: the
// specialization constants frozen, the branches they make dead removed):
// on SwiftShader, which runs every block of an if whatever its condition,
// where it made the compaction's count 15 times faster. The environment
// variable VKCOMPACT_SPECIALIZE_SPIRV=1 asks for it on any device (the
// tests run it on lavapipe too), =0 on none.
func SpecializesSPIRV(info vk.DeviceInfo) bool {
	switch os.Getenv("VKCOMPACT_SPECIALIZE_SPIRV") {
	case "1":
		return true
	case "0":
		return false
	}
	return info.CPU() && strings.HasPrefix(info.Name, "SwiftShader")
}

// Len reports how many pipelines the cache holds.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func (c *Cache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.m {
		p.p.Release()
	}
	c.m = nil
}

// ScanWorkgroup is the workgroup size for kernels built on
// shaders/include/block_scan.glsl: up to 1024 invocations, a multiple of the
// largest subgroup size, with at most 256 subgroups.
func ScanWorkgroup(info vk.DeviceInfo) uint32 {
	wg := min(1024, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0], 256*max(info.MinSubgroupSize, 1))
	return max(wg/info.MaxSubgroupSize, 1) * info.MaxSubgroupSize
}

// Grid is a dispatch's workgroup counts in x and y.
type Grid struct {
	X, Y uint32 // workgroups in x and in y
}

// GridFor spreads groups workgroups over x and then y within the device's
// maxComputeWorkGroupCount. The grid may hold up to X-1 more workgroups
// than asked for; kernels bound their work by their element counts.
func GridFor(info vk.DeviceInfo, groups uint64) (Grid, error) {
	if groups == 0 {
		return Grid{}, nil
	}
	maxX, maxY := uint64(info.MaxWorkgroupCount[0]), uint64(info.MaxWorkgroupCount[1])
	if groups <= maxX {
		return Grid{X: uint32(groups), Y: 1}, nil
	}
	y := (groups + maxX - 1) / maxX
	if y > maxY {
		return Grid{}, errs.Invalidf("pipeline: %d workgroups exceed the device's %d x %d grid", groups, maxX, maxY)
	}
	x := (groups + y - 1) / y // balance the rows: fewer idle workgroups
	return Grid{X: uint32(x), Y: uint32(y)}, nil
}

// Statistics returns the driver's statistics for the pipeline (see
// vk.Options.Statistics).
func (p *Pipeline) Statistics() ([]vk.PipelineStatistic, error) {
	if p == nil || p.p == nil {
		return nil, errs.Invalidf("statistics of a nil pipeline")
	}
	return p.p.Statistics()
}

// Pipelines returns the cache's pipelines, ordered by kernel name and then
// by specialization constants.
func (c *Cache) Pipelines() []*Pipeline {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	out := make([]*Pipeline, 0, len(c.m))
	for _, p := range c.m {
		out = append(out, p)
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b *Pipeline) int {
		if a.Kernel.Name != b.Kernel.Name {
			return strings.Compare(a.Kernel.Name, b.Kernel.Name)
		}
		return slices.Compare(a.Constants, b.Constants)
	})
	return out
}
