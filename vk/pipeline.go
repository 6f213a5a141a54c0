package vk

import (
	"fmt"
	"math"
)

// ComputePipeline is a compute pipeline with its layout: Bindings storage
// buffers in set 0 (pushed with VK_KHR_push_descriptor, or in a descriptor
// set), and PushSize bytes of push constants.
type ComputePipeline struct {
	ctx      *Context
	module   uint64 // VkShaderModule
	setSpec  uint64 // VkDescriptorSetLayout: the pipeline's own (push), or the context's shared one (sets)
	ownSpec  bool   // setSpec is the pipeline's own
	layout   uint64 // VkPipelineLayout
	pipeline uint64 // VkPipeline
	Bindings int    // storage-buffer bindings 0 .. Bindings-1
	PushSize uint32 // bytes of push constants
}

// PipelineDesc describes a compute pipeline to create.
type PipelineDesc struct {
	Name          string   // for error messages
	Code          []uint32 // SPIR-V words
	Bindings      int      // storage buffers at bindings 0..Bindings-1
	PushSize      uint32   // bytes of push constants
	Constants     []uint32 // specialization constants: constant_id i is Constants[i]
	FullSubgroups bool     // require full subgroups (only where the context allows it)
}

// Pipeline stage create flags (VkPipelineShaderStageCreateFlagBits).
const stageRequireFullSubgroups = 0x2

// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR (VkPipelineCreateFlagBits).
const pipelineCaptureStatistics = 0x40

// extExecutableProperties reports the compiler's statistics per pipeline.
const extExecutableProperties = "VK_KHR_pipeline_executable_properties"

// PipelineStatistic is one statistic the driver reports about a compiled
// pipeline (VK_KHR_pipeline_executable_properties), such as NVIDIA's
// register count per invocation.
type PipelineStatistic struct {
	Executable   string  // the executable's name (a pipeline may compile to several)
	SubgroupSize uint32  // the executable's subgroup size, 0 if the driver does not say
	Name         string  // the statistic's name, as the driver spells it
	Description  string  // the driver's description
	Value        float64 // booleans as 0 or 1
}

// Statistics returns the driver's statistics for the pipeline. It needs a
// context opened with Options.Statistics on a device that has
// VK_KHR_pipeline_executable_properties; otherwise it returns
// ErrUnsupported.
func (p *ComputePipeline) Statistics() ([]PipelineStatistic, error) {
	if p == nil || p.ctx == nil {
		return nil, invalidf("statistics of a nil pipeline")
	}
	c := p.ctx
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.exit()
	if !c.statistics {
		why := "the context was opened without Options.Statistics"
		if !c.info.PipelineStatistics {
			why = c.info.Name + " lacks " + extExecutableProperties
		} else if c.borrowed {
			why = "a borrowed context does not enable " + extExecutableProperties
		}
		return nil, errorf(ErrUnsupported, "vk: pipeline statistics: %s", why)
	}
	c.mu.Lock() // the pipeline stays alive while owned (Release destroys it under c.mu)
	_, owned := c.children[p]
	var raw []rawStatistic
	var r int32
	if owned {
		raw, r = c.fns.pipelineStatistics(p.pipeline)
	}
	c.mu.Unlock()
	if !owned {
		return nil, released("the pipeline")
	}
	if err := check("vkGetPipelineExecutableStatisticsKHR", r); err != nil {
		return nil, c.noteResult(err)
	}
	out := make([]PipelineStatistic, 0, len(raw))
	for _, s := range raw {
		st := PipelineStatistic{Executable: s.executable, SubgroupSize: s.subgroupSize, Name: s.name, Description: s.statDescription}
		switch s.format {
		case 0: // VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR
			if uint32(s.value) != 0 {
				st.Value = 1
			}
		case 1: // INT64
			st.Value = float64(int64(s.value))
		case 2: // UINT64
			st.Value = float64(s.value)
		case 3: // FLOAT64
			st.Value = math.Float64frombits(s.value)
		default:
			continue
		}
		out = append(out, st)
	}
	return out, nil
}

// NewComputePipeline creates a shader module, a push-descriptor set layout
// (or, binding with descriptor sets, takes the context's layout for its
// binding count), a pipeline layout and the pipeline. Partial creations
// are undone on failure.
func (c *Context) NewComputePipeline(d PipelineDesc) (p *ComputePipeline, err error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.exit()
	if len(d.Code) == 0 || d.Code[0] != 0x07230203 {
		return nil, invalidf("pipeline %s: code is not SPIR-V", d.Name)
	}
	if d.Bindings < 0 || d.Bindings > maxBindings {
		return nil, invalidf("pipeline %s: %d bindings (at most %d)", d.Name, d.Bindings, maxBindings)
	}
	if m := c.info.MaxPerStageStorageBuffers; m > 0 && uint32(d.Bindings) > m {
		return nil, invalidf("pipeline %s: %d storage buffers; the device binds at most %d to a compute shader (maxPerStageDescriptorStorageBuffers)", d.Name, d.Bindings, m)
	}
	if len(d.Constants) > maxConstants {
		return nil, invalidf("pipeline %s: %d specialization constants (at most %d)", d.Name, len(d.Constants), maxConstants)
	}
	if d.PushSize%4 != 0 || d.PushSize > c.info.MaxPushConstantsSize {
		return nil, invalidf("pipeline %s: %d bytes of push constants (a multiple of 4 up to %d)", d.Name, d.PushSize, c.info.MaxPushConstantsSize)
	}
	p = &ComputePipeline{ctx: c, Bindings: d.Bindings, PushSize: d.PushSize}
	// The failing returns below set p to nil before this runs: undo the
	// partial creation through a copy. (After a failed adopt, which has
	// destroyed it already, destroy finds nothing left.)
	partial := p
	defer func() {
		if err != nil {
			partial.destroy()
			p = nil
			err = c.noteResult(fmt.Errorf("pipeline %s: %w", d.Name, err))
		}
	}()

	module, r := c.fns.createShaderModule(d.Code)
	if err := check("vkCreateShaderModule", r); err != nil {
		return nil, err
	}
	p.module = module
	if c.push {
		setSpec, r := c.fns.createSetLayout(d.Bindings, true)
		if err := check("vkCreateDescriptorSetLayout", r); err != nil {
			return nil, err
		}
		p.setSpec, p.ownSpec = setSpec, true
	} else {
		setSpec, err := c.sets.layout(c.fns, d.Bindings)
		if err != nil {
			return nil, err
		}
		p.setSpec = setSpec
	}
	layout, r := c.fns.createPipelineLayout(p.setSpec, d.PushSize)
	if err := check("vkCreatePipelineLayout", r); err != nil {
		return nil, err
	}
	p.layout = layout

	var flags uint32
	if d.FullSubgroups && c.fullSubgroups {
		flags |= stageRequireFullSubgroups
	}
	var createFlags uint32
	if c.statistics {
		createFlags |= pipelineCaptureStatistics
	}
	pipe, res := c.fns.createComputePipeline(c.pcache.handle(), createFlags, flags, p.module, p.layout, d.Constants)
	if err := check("vkCreateComputePipelines", res); err != nil {
		return nil, err
	}
	p.pipeline = pipe
	c.pcache.created.Add(1)
	if err := c.adopt(p); err != nil {
		return nil, err
	}
	return p, nil
}

// Release destroys the pipeline. The caller must know the GPU no longer
// uses it. Release is idempotent, and does nothing after the context's
// Release, which destroys the pipelines left.
func (p *ComputePipeline) Release() {
	if p == nil || p.ctx == nil {
		return
	}
	p.ctx.disown(p)
}

// Close releases the pipeline (see Release) and returns nil, making a
// ComputePipeline an io.Closer: Release swallows no error.
func (p *ComputePipeline) Close() error {
	p.Release()
	return nil
}

func (p *ComputePipeline) destroyLocked() { p.destroy() }

func (p *ComputePipeline) destroy() {
	f := p.ctx.fns
	f.destroy(objPipeline, p.pipeline) // each ignores a 0 handle
	f.destroy(objPipelineLayout, p.layout)
	if p.ownSpec {
		f.destroy(objSetLayout, p.setSpec)
	}
	f.destroy(objShaderModule, p.module)
	p.pipeline, p.layout, p.setSpec, p.module = 0, 0, 0, 0
}
