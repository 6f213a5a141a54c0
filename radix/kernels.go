package radix

import (
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// The Go side of each kernel's interface: its push constants are a Go
// struct whose fields follow the GLSL Push block's members in order, and
// its specialization constants a Go struct whose field i is constant_id i
// (0 the workgroup size, local_size_x_id = 0); an embedded struct's
// fields stand in its place. glslblock.Words turns either into the words
// Vulkan takes, and TestKernelBlocks holds every struct to its kernel's
// GLSL, names (the glsl tags), order and types.

// keySpec is specialization constants 1 to 4 of every kernel that reads
// keys (shaders/radix/radix.glsl).
type keySpec struct {
	KeyType    uint32 `glsl:"KEY_TYPE"` // keyCode
	Descending bool   `glsl:"DESCENDING"`
	RadixBits  uint32 `glsl:"RADIX_BITS"` // the digit's bits, 1 to 8
	KPL        uint32 `glsl:"KPL"`        // keys per lane per round
}

// countSpec is radix_count's specialization constants.
type countSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	keySpec
}

// countPush is radix_count's push constants, and the first six of the
// scatter's.
type countPush struct {
	N       uint32 `glsl:"n"`       // keys
	Chunk   uint32 `glsl:"chunk"`   // keys per processor
	Procs   uint32 `glsl:"nProcs"`  // processors
	Shift   uint32 `glsl:"shift"`   // the digit's first bit
	Width   uint32 `glsl:"width"`   // the digit's bits
	CountOn uint32 `glsl:"countOn"` // 1: take the key count from Buffers.Count
	// The dispatch runs processors [Proc0, ProcEnd): all of them, or past
	// one binding a window's (the keys bound from key Proc0 * Chunk).
	Proc0   uint32 `glsl:"proc0"`
	ProcEnd uint32 `glsl:"procEnd"`
}

// scanSpec is radix_scan's specialization constants. Its workgroups scan
// Buckets rows of Procs words each: a pass's digits of the three phases,
// or the single pass's passes (rows of 2^DigitBits digit counts).
type scanSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"` // pipeline.ScanWorkgroup
	Buckets       uint32 `glsl:"BUCKETS"`
}

// scanPush is radix_scan's push constants.
type scanPush struct {
	Procs uint32 `glsl:"nProcs"` // words per row
}

// scatterSpec is radix_scatter's specialization constants.
type scatterSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	keySpec
	Pairs        bool   `glsl:"PAIRS"`
	MaxSubgroups uint32 `glsl:"MAX_SUBGROUPS"` // per workgroup, at the smallest subgroup size
	Round        uint32 `glsl:"ROUND"`         // keys per round: workgroup size * KPL
	Next         bool   `glsl:"NEXT"`          // count the next pass's digits (fused counts)
}

// scatterCarrySpec is radix_scatter_carry's specialization constants.
type scatterCarrySpec struct {
	scatterSpec
	Sector uint32 `glsl:"SECTOR"` // TailSector
}

// scatterPush is the push constants of radix_scatter and
// radix_scatter_carry.
type scatterPush struct {
	countPush
	NextShift uint32 `glsl:"nextShift"` // with Next: the next pass's digit
	NextWidth uint32 `glsl:"nextWidth"`
	WinSlots  uint32 `glsl:"winSlots"` // the wide kernels: the slots of each output window
}

// histogramSpec is radix_histogram's specialization constants.
type histogramSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	keySpec
	Passes uint32 `glsl:"PASSES"`
}

// histogramPush is radix_histogram's push constants.
type histogramPush struct {
	N       uint32 `glsl:"n"`
	Chunk   uint32 `glsl:"chunk"`
	Procs   uint32 `glsl:"nProcs"`
	Begin   uint32 `glsl:"begin"` // the first pass's first bit
	End     uint32 `glsl:"end"`   // the bit after the last pass's last
	CountOn uint32 `glsl:"countOn"`
	// The dispatch runs workgroups [Proc0, ProcEnd): all of them, or past
	// one binding a window's (the keys bound from key Proc0 * Chunk).
	Proc0   uint32 `glsl:"proc0"`
	ProcEnd uint32 `glsl:"procEnd"`
}

// onesweepSpec is radix_onesweep's specialization constants.
type onesweepSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	keySpec
	Pairs        bool   `glsl:"PAIRS"`
	MaxSubgroups uint32 `glsl:"MAX_SUBGROUPS"`
	Tile         uint32 `glsl:"TILE"` // keys per tile: workgroup size * KPL
	SelfReset    bool   `glsl:"SELF_RESET"`
}

// onesweepPush is radix_onesweep's push constants.
type onesweepPush struct {
	N       uint32 `glsl:"n"`
	Tiles   uint32 `glsl:"tiles"`
	Shift   uint32 `glsl:"shift"`
	Width   uint32 `glsl:"width"`
	CountOn uint32 `glsl:"countOn"`
	Spins   uint32 `glsl:"spins"`   // re-reads of an unpublished predecessor before the fallback
	Counter uint32 `glsl:"counter"` // the pass's tile counter: status[counter]
	Cur     uint32 `glsl:"cur"`     // the pass's status region
	Next    uint32 `glsl:"next"`    // the next pass's status region, zeroed by this one
	First   uint32 `glsl:"first"`   // the pass's row of digit counts in hist
	Done    uint32 `glsl:"done"`    // self-reset, the last pass: the count of workgroups done (status[done]); else 0
	// The dispatch runs tiles [Tile0, Tiles): all of them, or past one
	// binding a window's (the inputs bound from key Tile0 * tile).
	Tile0    uint32 `glsl:"tile0"`
	WinSlots uint32 `glsl:"winSlots"` // past one binding: the slots of each output window
}

// The kernels' storage-buffer bindings: field i is binding i (see
// pipeline.TypedKernel).
type (
	countBindings struct {
		Keys     vk.Range `use:"read"`
		Hist     vk.Range `use:"write"`
		GpuCount vk.Range `use:"read"`
	}
	scanBindings struct {
		Hist vk.Range `use:"readwrite"`
	}
	histogramBindings struct {
		Keys     vk.Range `use:"read"`
		Hist     vk.Range `use:"readwrite"`
		GpuCount vk.Range `use:"read"`
	}
	// scatterBindings: keys and values in, hist, keys and values out,
	// the GPU-side key count, the next pass's hist.
	scatterBindings struct {
		KeysIn, ValsIn, Hist vk.Range `use:"read"`
		KeysOut, ValsOut     vk.Range `use:"write"`
		GpuCount             vk.Range `use:"read"`
		HistNext             vk.Range `use:"readwrite"`
	}
	// scatterWideBindings: past one binding, the outputs' first windows
	// at 3 and 4, then the keys' next three windows and the values'
	// (maxOutWindows in all).
	scatterWideBindings struct {
		KeysIn, ValsIn, Hist                                       vk.Range `use:"read"`
		KeysOut, ValsOut                                           vk.Range `use:"write"`
		GpuCount                                                   vk.Range `use:"read"`
		HistNext                                                   vk.Range `use:"readwrite"`
		KeysOut1, KeysOut2, KeysOut3, ValsOut1, ValsOut2, ValsOut3 vk.Range `use:"write"`
	}
	// onesweepBindings: keys and values in, the digit counts (zeroed as
	// used with self-reset), the tile status, keys and values out, the
	// GPU-side key count.
	onesweepBindings struct {
		KeysIn, ValsIn   vk.Range `use:"read"`
		Hist, Status     vk.Range `use:"readwrite"`
		KeysOut, ValsOut vk.Range `use:"write"`
		GpuCount         vk.Range `use:"read"`
	}
	// onesweepWideBindings: past one binding, the outputs' first windows
	// at 4 and 5, then the keys' next three windows and the values'
	// (maxOutWindows in all).
	onesweepWideBindings struct {
		KeysIn, ValsIn                                             vk.Range `use:"read"`
		Hist, Status                                               vk.Range `use:"readwrite"`
		KeysOut, ValsOut                                           vk.Range `use:"write"`
		GpuCount                                                   vk.Range `use:"read"`
		KeysOut1, KeysOut2, KeysOut3, ValsOut1, ValsOut2, ValsOut3 vk.Range `use:"write"`
	}
)

// newKernel describes package shaders' kernel name as a typed kernel.
func newKernel[P, S, B any](name string, full bool) pipeline.TypedKernel[P, S, B] {
	return pipeline.NewTypedKernel[P, S, B](name, shaders.MustSPIRV(name), full)
}

// Whether a kernel needs full subgroups (pipeline.Kernel.FullSubgroups).
const (
	fullSubgroups   = true
	anySubgroupSize = false // shared-memory atomics only
)

var (
	countKernel            = newKernel[countPush, countSpec, countBindings]("radix_count", anySubgroupSize)
	scanKernel             = newKernel[scanPush, scanSpec, scanBindings]("radix_scan", fullSubgroups)
	scatterKernel          = newKernel[scatterPush, scatterSpec, scatterBindings]("radix_scatter", fullSubgroups)
	scatterCarryKernel     = newKernel[scatterPush, scatterCarrySpec, scatterBindings]("radix_scatter_carry", fullSubgroups)
	scatterWideKernel      = newKernel[scatterPush, scatterSpec, scatterWideBindings]("radix_scatter_wide", fullSubgroups)
	scatterCarryWideKernel = newKernel[scatterPush, scatterCarrySpec, scatterWideBindings]("radix_scatter_carry_wide", fullSubgroups)
	histogramKernel        = newKernel[histogramPush, histogramSpec, histogramBindings]("radix_histogram", anySubgroupSize)
	onesweepKernel         = newKernel[onesweepPush, onesweepSpec, onesweepBindings]("radix_onesweep", fullSubgroups)
	onesweepWideKernel     = newKernel[onesweepPush, onesweepSpec, onesweepWideBindings]("radix_onesweep_wide", fullSubgroups)
)

// passKernels are the three phases' pipelines for one digit width; count
// and scatterNext only where a pass of that width uses them.
type passKernels struct {
	count                pipeline.TypedPipeline[countPush, countBindings]
	scan                 pipeline.TypedPipeline[scanPush, scanBindings]
	scatter, scatterNext scatterPipeline
}

// scatterPipeline is a scatter within one binding, or past one binding
// its wide variant: one of the two is set.
type scatterPipeline struct {
	one  pipeline.TypedPipeline[scatterPush, scatterBindings]
	wide pipeline.TypedPipeline[scatterPush, scatterWideBindings]
}

func (s scatterPipeline) ok() bool { return s.one.Pipeline != nil || s.wide.Pipeline != nil }

// dispatch records the scatter; within one binding, b's windows past the
// first are not bound.
func (s scatterPipeline) dispatch(r *pipeline.Recorder, groups uint64, push scatterPush, b scatterWideBindings) {
	if s.wide.Pipeline != nil {
		s.wide.Dispatch(r, groups, push, b)
		return
	}
	s.one.Dispatch(r, groups, push, scatterBindings{KeysIn: b.KeysIn, ValsIn: b.ValsIn, Hist: b.Hist,
		KeysOut: b.KeysOut, ValsOut: b.ValsOut, GpuCount: b.GpuCount, HistNext: b.HistNext})
}

// keySpec is the key constants of a kernel for digits of bits bits.
func (q *request) keySpec(bits uint32) keySpec {
	return keySpec{KeyType: q.code, Descending: q.sort.Descending, RadixBits: bits, KPL: q.kpl}
}

// createPipelines creates the single pass's pipelines: the histogram,
// the scan of its counts without self-reset, and the pass.
func (p *onesweepPlan) createPipelines(ctx *vk.Context) error {
	if p.passes == 0 {
		return nil // nothing to sort: Record copies at most
	}
	cache := pipeline.For(ctx)
	var err error
	if p.histogram, err = histogramKernel.Get(cache, histogramSpec{WorkgroupSize: p.wg, keySpec: p.keySpec(p.bits), Passes: p.passes}); err != nil {
		return err
	}
	if !p.selfReset {
		if p.scan, err = scanKernel.Get(cache, scanSpec{WorkgroupSize: pipeline.ScanWorkgroup(ctx.Info()), Buckets: p.passes}); err != nil {
			return err
		}
	}
	spec := onesweepSpec{WorkgroupSize: p.wg, keySpec: p.keySpec(p.bits), Pairs: p.sort.Values,
		MaxSubgroups: p.subgroups, Tile: p.status.tile, SelfReset: p.selfReset}
	if p.winTiles != 0 {
		p.wide, err = onesweepWideKernel.Get(cache, spec)
	} else {
		p.onePass, err = onesweepKernel.Get(cache, spec)
	}
	return err
}

// createPipelines creates the three phases' pipelines for each digit
// width (a narrower pass on a wider width's kernels would pay for the
// wider one's counters). Widths never grow from a pass to the next, so a
// fused scatter's counters for (digit, next digit) fit its own BUCKETS x
// BUCKETS.
func (p *threePhasePlan) createPipelines(ctx *vk.Context) error {
	cache := pipeline.For(ctx)
	var err error
	p.kernels = map[uint32]*passKernels{}
	for i := range p.passes {
		w := p.width(i)
		k := p.kernels[w]
		if k == nil {
			k = &passKernels{}
			p.kernels[w] = k
			if k.scan, err = scanKernel.Get(cache, scanSpec{WorkgroupSize: p.scanWG, Buckets: 1 << w}); err != nil {
				return err
			}
		}
		if p.counted(i) && k.count.Pipeline == nil {
			if k.count, err = countKernel.Get(cache, countSpec{WorkgroupSize: p.wg, keySpec: p.keySpec(w)}); err != nil {
				return err
			}
		}
		scatter := &k.scatter
		if p.fuses(i) {
			scatter = &k.scatterNext
		}
		if !scatter.ok() {
			if *scatter, err = p.scatterPipeline(cache, w, p.fuses(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// scatterPipeline returns the scatter for digits of w bits, counting the
// next pass's digits where next is set, holding tails back where the plan
// does, past one binding its wide variant.
func (p *threePhasePlan) scatterPipeline(cache *pipeline.Cache, w uint32, next bool) (scatterPipeline, error) {
	spec := scatterSpec{WorkgroupSize: p.wg, keySpec: p.keySpec(w), Pairs: p.sort.Values, MaxSubgroups: p.subgroups, Round: p.wg * p.kpl, Next: next}
	carrySpec := scatterCarrySpec{scatterSpec: spec, Sector: TailSector}
	var s scatterPipeline
	var err error
	switch {
	case p.winProcs > 0 && p.carry:
		s.wide, err = scatterCarryWideKernel.Get(cache, carrySpec)
	case p.winProcs > 0:
		s.wide, err = scatterWideKernel.Get(cache, spec)
	case p.carry:
		s.one, err = scatterCarryKernel.Get(cache, carrySpec)
	default:
		s.one, err = scatterKernel.Get(cache, spec)
	}
	return s, err
}
