package radix

import (
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

var (
	countKernel = &pipeline.Kernel{
		Name:     "radix_count",
		SPIRV:    shaders.MustSPIRV("radix_count"),
		Bindings: []pipeline.Access{pipeline.Read, pipeline.Write, pipeline.Read},
		// Shared-memory atomics only: any subgroup size works.
		PushWords: 6,
	}
	scanKernel = &pipeline.Kernel{
		Name:          "radix_scan",
		SPIRV:         shaders.MustSPIRV("radix_scan"),
		Bindings:      []pipeline.Access{pipeline.ReadWrite},
		PushWords:     1,
		FullSubgroups: true,
	}
	scatterKernel = &pipeline.Kernel{
		Name:          "radix_scatter",
		SPIRV:         shaders.MustSPIRV("radix_scatter"),
		Bindings:      []pipeline.Access{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.Write, pipeline.Write, pipeline.Read, pipeline.ReadWrite},
		PushWords:     8,
		FullSubgroups: true,
	}
	scatterCarryKernel = &pipeline.Kernel{
		Name:          "radix_scatter_carry",
		SPIRV:         shaders.MustSPIRV("radix_scatter_carry"),
		Bindings:      scatterKernel.Bindings,
		PushWords:     8,
		FullSubgroups: true,
	}
	histogramKernel = &pipeline.Kernel{
		Name:      "radix_histogram",
		SPIRV:     shaders.MustSPIRV("radix_histogram"),
		Bindings:  []pipeline.Access{pipeline.Read, pipeline.ReadWrite, pipeline.Read},
		PushWords: 6,
		// Shared-memory atomics only: any subgroup size works.
	}
	onesweepKernel = &pipeline.Kernel{
		Name:          "radix_onesweep",
		SPIRV:         shaders.MustSPIRV("radix_onesweep"),
		Bindings:      []pipeline.Access{pipeline.Read, pipeline.Read, pipeline.Read, pipeline.ReadWrite, pipeline.Write, pipeline.Write, pipeline.Read},
		PushWords:     10,
		FullSubgroups: true,
	}
)

// passKernels are the three phases' pipelines for one digit width; count
// and scatterNext only where a pass of that width uses them.
type passKernels struct {
	count, scan, scatter, scatterNext *pipeline.Pipeline
}

// createPipelines creates the plan's pipelines: the single pass's three,
// or the three phases' for each digit width.
func (p *Plan) createPipelines(info vk.DeviceInfo) error {
	desc, pairs := uint32(0), uint32(0)
	if p.sort.Descending {
		desc = 1
	}
	if p.sort.Values {
		pairs = 1
	}
	cache := pipeline.For(p.ctx)
	var err error
	if p.onesweep && p.passes == 0 {
		return nil // nothing to sort: Record copies at most
	}
	if p.onesweep {
		if p.histogram, err = cache.Get(histogramKernel, p.wg, p.code, desc, p.bits, p.kpl, p.passes); err != nil {
			return err
		}
		if p.scan, err = cache.Get(scanKernel, pipeline.ScanWorkgroup(info), p.passes); err != nil {
			return err
		}
		p.onePass, err = cache.Get(onesweepKernel, p.wg, p.code, desc, p.bits, p.kpl, pairs, p.subgroups, p.status.tile)
		return err
	}
	// Each width's kernels (a narrower pass on a wider width's kernels
	// would pay for the wider one's counters). Widths never grow from a
	// pass to the next, so a fused scatter's counters for (digit, next
	// digit) fit its own BUCKETS x BUCKETS.
	p.kernels = map[uint32]*passKernels{}
	for i := uint32(0); i < p.passes; i++ {
		w := p.width(i)
		k := p.kernels[w]
		if k == nil {
			k = &passKernels{}
			p.kernels[w] = k
			if k.scan, err = cache.Get(scanKernel, pipeline.ScanWorkgroup(info), uint32(1)<<w); err != nil {
				return err
			}
		}
		if p.counted(i) && k.count == nil {
			if k.count, err = cache.Get(countKernel, p.wg, p.code, desc, w, p.kpl); err != nil {
				return err
			}
		}
		next := uint32(0)
		if p.fuses(i) {
			next = 1
		}
		got := &k.scatter
		if next == 1 {
			got = &k.scatterNext
		}
		if *got == nil {
			if p.carry {
				*got, err = cache.Get(scatterCarryKernel, p.wg, p.code, desc, w, p.kpl, pairs, p.subgroups, p.wg*p.kpl, next, TailSector)
			} else {
				*got, err = cache.Get(scatterKernel, p.wg, p.code, desc, w, p.kpl, pairs, p.subgroups, p.wg*p.kpl, next)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
