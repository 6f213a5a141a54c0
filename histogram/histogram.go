package histogram

import (
	"github.com/vkcompact/vkcompact/internal/planrun"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// MaxBins is the most bins a histogram counts into: its counts, one
// replica at least, fill 16 KiB of shared memory, the least a Vulkan
// device offers.
const MaxBins = 4096

// MaxElements is the most samples a histogram takes: sample indices are
// 32-bit on the GPU.
const MaxElements = math.MaxUint32

// Histogram describes a histogram of uint32, int32 or float32 samples.
//
// Even bins (Edges false) split [Lower, Upper) into Bins bins. Integer
// samples x with Lower <= x < Upper count in bin floor((x - Lower) * Bins
// / (Upper - Lower)), computed exactly (CUB's rule for integer samples:
// bin i holds the x with Lower + i*w <= x < Lower + (i+1)*w, w = (Upper -
// Lower) / Bins, as real numbers). NumPy's edges for integer samples are
// float64s, which may land just above a whole-number edge (range [0, 14)
// in 100 bins: edge 50 is 7.000000000000001), so np.histogram counts 7 in
// bin 49 where this rule counts it in bin 50; with a power of two of bins
// the float64 edges are exact and the rules agree. float32 samples count in bin
// int(float32(x - Lower) * scale), scale = float32(Bins) / float32(Upper
// - Lower) rounded to float32, every operation rounded to float32 as CUB
// does, and at most Bins-1. Near an edge that rounding may put a sample
// one bin from where the exact edges would: NumPy's edges round
// differently, so np.histogram's float32 counts are those of the
// histogram by NumPyEdges (Edges, IncludeUpper). Where Lower is 0 and
// the bin width a power of two (range [0, 1) in 256 bins) every step is
// exact and the rules agree. NaN samples count nowhere; -0.0 is 0.0. Devices may flush
// subnormal floats to zero (Vulkan allows it), which moves only samples
// within 2^-126 of Lower or of zero in ranges narrower than Bins * 2^-126.
//
// Bins by edges (Edges true) take Bins+1 ascending edges of the sample
// type from Buffers.Edges (CUB's HistogramRange): sample x counts in bin
// i where edges[i] <= x < edges[i+1], found by binary search; samples
// below edges[0] or from edges[Bins] on count nowhere. Edges that are not
// ascending, or NaN, give counts of no meaning (never a write outside
// Counts); HistogramEdgesSlice refuses them.
//
// With IncludeUpper a sample equal to the upper edge (Upper, or
// edges[Bins]) counts in the last bin, as np.histogram counts it; without
// (CUB's rule) it counts nowhere.
type Histogram struct {
	// Elem is the samples' type: plain uint32 (the zero Elem), int32 or
	// float32 (vkcompact.Plain). HistogramSlice takes it from the
	// samples' Go type. Structs are refused.
	Elem vkcompact.Elem
	// Bins is the number of bins, 1 to MaxBins.
	Bins uint32
	// Lower and Upper bound the even bins, Lower < Upper; each must be a
	// value of the sample type (a whole number in its range for
	// integers, a finite float32 for float32), and for float32 samples
	// Upper - Lower and Bins / (Upper - Lower) finite in float32. Both
	// are zero with Edges.
	Lower, Upper float64
	// Edges takes the bins from Buffers.Edges instead of Lower and Upper.
	Edges bool
	// IncludeUpper counts samples equal to the upper edge in the last bin
	// (NumPy's rule) instead of ignoring them (CUB's).
	IncludeUpper bool
	// Accumulate adds to Buffers.Counts as they are, instead of clearing
	// them first: a histogram of several batches.
	Accumulate bool
	Options
}

// Options tunes a histogram. Zero values take per-device defaults.
type Options struct {
	// WorkgroupSize is the invocations per workgroup, a multiple of the
	// largest subgroup size. Default 256.
	WorkgroupSize uint32
	// LoadsPerLane is the uvec4 loads (4 samples each) each lane issues
	// per step before binning any, 1 to vkcompact.MaxLoadsPerLane.
	// Default 4; for bins by edges 1 on CPU devices.
	LoadsPerLane uint32
	// Workgroups is the grid: each workgroup walks tiles of the input a
	// grid apart. Default: enough to fill the device once (compute units
	// times the workgroups one keeps resident), fewer for small inputs.
	Workgroups uint32
	// Replicas is the sub-histograms each workgroup keeps in shared
	// memory, each subgroup adding to one of them. Default: on a GPU as
	// many as fit 16 KiB, up to one per subgroup; 1 on a CPU device.
	Replicas uint32
}

// Buffers are the ranges a recorded histogram uses. Every offset must be
// a multiple of the device's minStorageBufferOffsetAlignment, but
// Count's, a multiple of 4.
type Buffers struct {
	Src vk.Range // n samples, read
	// Edges holds Bins+1 edges of the sample type, read (Histogram.Edges
	// only; empty otherwise).
	Edges vk.Range
	// Counts is Bins uint32 counts, written (added to with Accumulate).
	Counts vk.Range
	// Count, when set, is a 4-byte range holding the sample count as a
	// uint32 written on the GPU (compact.Buffers.Count explains): the
	// histogram then counts the first min(count, n) samples.
	Count vk.Range
}

// Plan is a histogram of n samples checked, tuned and sized for one
// context. It is immutable and safe for concurrent use.
type Plan struct {
	ctx  *vk.Context
	n    uint32
	h    Histogram // checked: Elem plain, Lower and Upper valid
	push countPush // the bounds as the kernel takes them (Lower, Upper, Scale)
	tun  Tuning
	pass pipeline.TypedPipeline[countPush, countBindings]
}

// invalid is the package's error for bad input (vk.ErrInvalid).
func invalid(format string, args ...any) error { return errs.Invalidf(format, args...) }

// NewPlan checks h for n samples on ctx, picks its tuning and creates its
// pipeline.
func NewPlan(ctx *vk.Context, n uint64, h Histogram) (*Plan, error) {
	return newPlan(ctx, n, h, 0)
}

// newPlan is NewPlan with the bytes one dispatch binds lowered to
// segLimit where that is not zero (tests cut small inputs into segments
// with it).
func newPlan(ctx *vk.Context, n uint64, h Histogram, segLimit uint64) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("histogram: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := tune(ctx.Info(), n, h, segLimit)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	p.pass, err = countKernel.Get(pipeline.For(ctx), p.spec())
	if err != nil {
		return nil, err
	}
	return p, nil
}

// N returns the sample count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// Bins returns the plan's bin count.
func (p *Plan) Bins() uint32 {
	if p == nil {
		return 0
	}
	return p.h.Bins
}

// ScratchSize returns the bytes of scratch Record needs: none, as the
// workgroups count in shared memory and add to Counts. It is here for
// the operations' shared vocabulary.
func (p *Plan) ScratchSize() uint64 { return 0 }

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	return p.tun
}

// Run records the histogram on the context's own queue, waits, and
// returns the counts. A zero Counts range is allocated for the call and
// released after it.
func (p *Plan) Run(b Buffers) ([]uint32, error) {
	if p == nil {
		return nil, invalid("histogram: nil Plan")
	}
	size := uint64(p.h.Bins) * 4
	if b.Counts.Buffer == nil {
		if p.h.Accumulate {
			return nil, invalid("histogram: Accumulate adds to the caller's counts: Run needs Buffers.Counts")
		}
	}
	return planrun.Run(p.ctx, []planrun.Temp{{Range: &b.Counts, Size: size}}, func(r *pipeline.Recorder) { p.Record(r, b) },
		func() ([]uint32, error) {
			counts := make([]uint32, p.h.Bins)
			return counts, vk.Download(b.Counts.Sub(0, size), counts)
		})
}
