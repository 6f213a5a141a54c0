package radix

import (
	"github.com/vkcompact/vkcompact/internal/planrun"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// MaxKeysPerLane bounds Options.KeysPerLane.
const MaxKeysPerLane = 32

// MaxElements is the most keys a sort takes: slots are 32-bit on the GPU.
// A device's maxStorageBufferRange may allow fewer (see NewPlan).
const MaxElements = math.MaxUint32

// Options tunes a sort. Zero values take per-device defaults.
type Options struct {
	// Path picks the sort's algorithm: vkcompact.PathThreePhase is a count,
	// a scan and a scatter per digit, reading the keys twice per digit;
	// vkcompact.PathSinglePass counts every digit in one pass over the keys
	// first, then reads the keys once per digit (a chained scan over tiles
	// with decoupled look-back and fallback, Onesweep-style). The single
	// pass applies below 2^30 keys that fit one binding, with a workgroup
	// of at least 2^DigitBits invocations, when its tile status (two words
	// per tile and digit) fits one binding; NewPlan returns ErrInvalid,
	// naming the reason, when it is forced where it does not apply.
	// vkcompact.PathAuto takes, on CPU devices where the other Options
	// are left to it, the one-workgroup sort for small inputs
	// (Tuning.OneWorkgroup; on SwiftShader up to 2048 keys) and the lane-serial sort
	// up to 2^24 keys that fit one binding (Tuning.LaneSerial: each
	// invocation sorts its own run of keys, as a CPU thread would), the
	// three phases past them; it takes the three phases on a GPU for
	// 64-bit keys and past SmallSortKeys; on a GPU, for fewer 32-bit keys with
	// the digit width and keys per lane left to it, it picks the path,
	// digit width and keys per lane by the key count from a table of the
	// fastest measured (docs/tuning.md, "Radix sort on a GPU").
	Path vkcompact.Path
	// Spins is, on the single pass, how many times a tile re-reads a
	// predecessor's unpublished status word before counting that
	// predecessor's tile itself (compact.Options.Spins explains; the same
	// defaults).
	Spins int32
	// Processors is the number of workgroups, each owning one contiguous
	// chunk of the keys. Default: enough to fill the device once.
	Processors uint32
	// WorkgroupSize is the invocations per workgroup: a multiple of the
	// largest subgroup size. Default 256, or less where the scatter's
	// per-subgroup digit counts and its stage of one round's keys would
	// not fit shared memory.
	WorkgroupSize uint32
	// DigitBits is the most bits sorted per pass, 1 to 8. The three
	// phases take ceil(bits / DigitBits) passes and share the bits out
	// evenly, wider passes first: 32 bits at 6 are passes of 6, 6, 5, 5,
	// 5 and 5 bits (Tuning.DigitBits reports this bound, not the widest
	// pass; the single pass keeps DigitBits-bit passes, the last one
	// narrower). Default on a GPU: 6 for 32-bit keys, alone or with
	// values, 4 for 64-bit keys; 8 on a CPU device.
	DigitBits uint32
	// KeysPerLane is the keys each lane holds per round, 1 to
	// MaxKeysPerLane. Default on a GPU: 20 for 32-bit keys alone, 16 with
	// values, 8 for 64-bit keys, and 8 where there are fewer rounds than
	// the device holds workgroups; 4 on a CPU device; at most 8 on the
	// single pass. Where the scatter's stage of a round would not fit
	// shared memory, the default workgroup shrinks (WorkgroupSize).
	KeysPerLane uint32
	// Counts picks how the three phases count each pass's digits.
	Counts Counts
	// Tails picks how the three phases' scatter writes the ends of each
	// round's digit runs.
	Tails Tails
}

// Tails says how the scatter writes the last slots of each round's digit
// runs. A processor's keys of one digit fill one run of output slots, a
// round at a time; where a round's part of the run ends inside a 32-byte
// sector, the next round writes the rest of that sector.
type Tails uint8

const (
	// TailsAuto holds the tails back (TailsHold) for keys with values on
	// a GPU, where the carried keys fit shared memory and no pass loses
	// its fused counts to them (it never shrinks the workgroup for
	// them), and writes them (TailsWrite) elsewhere (docs/tuning.md,
	// "Radix sort on a GPU").
	TailsAuto Tails = iota
	// TailsWrite writes each round's runs out whole.
	TailsWrite
	// TailsHold writes, each round, only whole blocks of TailSector
	// slots of each run (but for the run's first, and the chunk's last
	// round, which writes all): the last partial block waits in shared
	// memory and goes out at the head of the digit's run in the next
	// round. The scatter's shared memory grows by TailSector keys (and
	// values) and three words per digit, and its stage by TailSector-1
	// keys per digit. NewPlan returns ErrInvalid, naming the reason,
	// where that does not fit the device or the single pass is taken.
	TailsHold
)

// TailSector is the block of slots TailsHold writes whole: 8 slots, a
// 32-byte sector of 32-bit keys or values.
const TailSector = 8

// Counts says how the three phases count each pass's digits per
// processor.
type Counts uint8

const (
	// CountsAuto fuses the counts of the passes whose counters fit the
	// scatter's shared memory (4^w words for a pass of w bits, followed
	// by a pass no wider), where each processor's chunk holds at least
	// 16 * 4^w keys for the widest of them (with smaller chunks the
	// counters' atomic adds cost more than a count phase); the pass
	// after any other keeps its count phase. It does not shrink the
	// workgroup to make the counters fit shared memory (a forced
	// CountsFused does): where none fit, every pass keeps a count phase.
	// docs/tuning.md, "Radix sort on a GPU", gives the measurements.
	CountsAuto Counts = iota
	// CountsSeparate gives every pass a count phase of its own, which
	// reads the keys.
	CountsSeparate
	// CountsFused has each scatter but the last count the next pass's
	// digits too (at most 4^DigitBits shared-memory counters, 4^w for a
	// pass of w bits, then at most twice as many atomic adds per
	// processor), so that only the first pass reads the keys to count
	// them. It applies to the three phases
	// with digits of at most MaxFusedBits bits where the counters fit the
	// device's shared memory beside the scatter's own; NewPlan returns
	// ErrInvalid, naming the reason, when it is asked for elsewhere.
	CountsFused
)

// MaxFusedBits is the widest digit whose next-pass counts a scatter
// keeps (4^bits shared-memory words: 16 KiB at 6 bits).
const MaxFusedBits = 6

// Sort describes a radix sort.
type Sort struct {
	// Elem is the keys: plain keys of type Uint32, Int32, Float32 or
	// Uint64 (vkcompact.Plain(t); a struct layout is StructSort's). The
	// zero Elem is Uint32 in a plan; the slice helpers take it from the
	// keys' Go type, and refuse any other.
	Elem vkcompact.Elem
	// Values sorts pairs: a uint32 value per key moves with its key.
	Values bool
	// Descending sorts from the largest key; equal keys still keep their
	// input order.
	Descending bool
	// BeginBit and EndBit select the bits [BeginBit, EndBit) of the
	// order-mapped key to sort by; an EndBit of 0 means the key's width.
	// Bits outside are ignored (keys equal inside keep their order).
	BeginBit, EndBit uint32
	// InPlace leaves the sorted keys (and values) in Keys (and Values);
	// KeysOut and ValuesOut stay empty.
	InPlace bool
	Options
}

// Buffers are the ranges a recorded sort uses. Every offset but Count's
// must be a multiple of the device's minStorageBufferOffsetAlignment.
type Buffers struct {
	Keys   vk.Range // n keys, read (and written in place)
	Values vk.Range // with Sort.Values: n uint32 values
	// KeysOut and ValuesOut receive the sorted keys and values; empty in
	// place.
	KeysOut, ValuesOut vk.Range
	Scratch            vk.Range // Plan.ScratchSize bytes
	// Count, when set, is a range whose first 4 bytes hold the key count
	// as a uint32 written on the GPU, at any offset that is a multiple of
	// 4, for instance the kept count of a compaction
	// (compact.Buffers.Count explains): the sort then covers
	// the first min(count, n) keys and values, and leaves the outputs
	// past them unwritten (in place, unchanged).
	Count vk.Range
}

// Plan is a sort of n keys checked, tuned and sized for one context. It is
// immutable and safe for concurrent use. It holds the common request and
// exactly one algorithm: the three phases or the single pass.
type Plan struct {
	ctx *vk.Context
	request
	three *threePhasePlan
	sweep *onesweepPlan
	// one, on a CPU device for a small sort (oneGroupShape), sorts
	// instead of the algorithm tune chose: one workgroup, no scratch.
	one *oneGroupPlan
	// lanes, on a CPU device (lanesShapeFor), sorts instead of the
	// algorithm tune chose: the lane-serial sort.
	lanes *lanesPlan
}

func invalid(format string, args ...any) error { return errs.Invalidf(format, args...) }

// NewPlan checks s for n keys on ctx, picks its tuning (a pure function
// of the device's information, n and s) and creates its pipelines. Keys
// past one binding (n times the key size more than the device's
// maxStorageBufferRange) are sorted by the three phases in windows: the
// count and the scatter take one dispatch per window of whole chunks of
// the keys (and values), and the scatter binds each output as up to four
// windows, so n is at most four times the keys one binding holds (the
// window offsets kept aligned: 4 * 33554432 u32 keys on lavapipe, 4 *
// 536870910 u64 keys on the H100), and the device must allow 13 storage
// buffers per stage (Tuning.WindowProcessors and OutWindows report
// them). Since slots are 32-bit, the last processor's chunk must also
// end by slot 2^32-1: on the H100 up to 4294517760 u32 keys alone (not
// the 4 * 1073741820 four windows hold).
func NewPlan(ctx *vk.Context, n uint64, s Sort) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("radix: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return newPlan(ctx, n, s, 0)
}

// newPlan is NewPlan with one binding's bytes lowered to limit where that
// is not 0 (tune).
func newPlan(ctx *vk.Context, n uint64, s Sort, limit uint64) (*Plan, error) {
	c, err := tune(ctx.Info(), n, s, limit)
	if err != nil {
		return nil, err
	}
	p := &Plan{ctx: ctx, request: c.request}
	if c.sweep != nil {
		p.sweep = &onesweepPlan{request: &p.request, onesweep: c.sweep}
	} else {
		p.three = &threePhasePlan{request: &p.request, threePhase: c.three}
	}
	// The algorithm tune chose stays the plan's config (Tuning reports
	// the one workgroup), its pipelines uncreated.
	if spec, ok := oneGroupShape(ctx.Info(), n, s); ok && c.passes > 0 {
		p.one = &oneGroupPlan{spec: spec}
		if p.one.block, err = segBlockKernel.Get(pipeline.For(ctx), spec); err != nil {
			return nil, err
		}
		return p, nil
	}
	if sh, ok := lanesShapeFor(ctx.Info(), n, s); ok && c.passes > 0 {
		p.digits = sh.d
		if p.lanes, err = newLanesPlan(ctx, &p.request, sh); err != nil {
			return nil, err
		}
		return p, nil
	}
	if p.sweep != nil {
		err = p.sweep.createPipelines(ctx)
	} else {
		err = p.three.createPipelines(ctx)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// config returns the plan's tuning: its request and its algorithm's.
func (p *Plan) config() config {
	if p.sweep != nil {
		return config{request: p.request, sweep: p.sweep.onesweep}
	}
	return config{request: p.request, three: p.three.threePhase}
}

// layout returns the plan's scratch layout, its algorithm's.
func (p *Plan) layout() scratchLayout {
	if p.lanes != nil {
		return p.lanes.layout
	}
	if p.sweep != nil {
		return p.sweep.layout
	}
	return p.three.layout
}

// N returns the key count the plan was made for.
func (p *Plan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// Passes returns the number of digit passes.
func (p *Plan) Passes() uint32 {
	if p == nil {
		return 0
	}
	return p.passes
}

// ScratchSize returns the bytes of scratch Record needs: the per-processor
// digit counts, and room for n keys (and values) between passes (twice
// that for the lane-serial sort's packed pairs: Tuning.Words64).
func (p *Plan) ScratchSize() uint64 {
	if p == nil || p.one != nil {
		return 0
	}
	return p.layout().size
}

// Tuning is what a Plan chose. Processors and Chunk are the three
// phases' (and the single pass's histogram's); Tiles, Tile and Spins the
// single pass's.
type Tuning struct {
	Path                                                             vkcompact.Path
	Processors, Chunk, WorkgroupSize, KeysPerLane, DigitBits, Passes uint32
	Tiles, Tile, Spins                                               uint32
	// FusedCounts: three-phase scatters count the next pass's digits
	// (Options.Counts): each but the last, or with CountsAuto those whose
	// counters fit (a pass no wider than the one before it).
	FusedCounts bool
	// HeldTails: the three phases' scatter holds each round's last
	// partial block of a run back for the next round (Options.Tails).
	HeldTails bool
	// SelfReset: the single pass leaves what its next run needs zero (the
	// digit counts, the tile counters, the first pass's status words), so
	// Record records no clear before it where the commands recorded so
	// far leave the scratch so (vk.Range.KnownZero; see the package
	// vkcompact's "Scratch between runs"). With an even number of passes
	// up to 512 tiles of keys alone, 256 of pairs (docs/tuning.md, "Radix
	// sort on a GPU").
	SelfReset bool
	// OneWorkgroup: on a CPU device, PathAuto sorts these keys in one
	// workgroup's shared memory (one dispatch, no scratch: ScratchSize is
	// 0), WorkgroupSize invocations of KeysPerLane keys each, Passes
	// stable passes of 4-bit digits, as the segmented sort's block path
	// sorts a segment. Path is then PathAuto; the three phases' or single
	// pass's fields are 0.
	OneWorkgroup bool
	// LaneSerial: on a CPU device, PathAuto sorts these keys by the
	// lane-serial sort: Processors workgroups of WorkgroupSize lanes,
	// each lane walking its KeysPerLane keys alone (Chunk per workgroup),
	// per pass a count and a scatter of DigitBits-bit digits at most.
	// Path is then PathAuto.
	LaneSerial bool
	// Words64: the lane-serial sort moves 64-bit words (the context has
	// shaderInt64, vk.Context.ShaderInt64, the subgroups are at most 8
	// lanes wide and storage offsets aligned to 8 bytes): a 64-bit key is one load and
	// one store, 32-bit keys alone are loaded two at a time, and 32-bit
	// keys with values travel packed, key and value in one word, between
	// its passes (ScratchSize then holds two regions of 8 bytes a key).
	Words64 bool
	// WindowProcessors, WindowTiles and OutWindows: past one binding
	// (keys of more than maxStorageBufferRange bytes), the three phases'
	// count and scatter run WindowProcessors processors a dispatch, whose
	// chunks lie in one window of the keys (and values); the single pass
	// runs WindowTiles tiles a dispatch (and its histogram
	// WindowProcessors processors); either binds each output as
	// OutWindows windows. All 0 where the keys fit one binding.
	WindowProcessors, WindowTiles, OutWindows uint32
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	if p.one != nil {
		return Tuning{OneWorkgroup: true, WorkgroupSize: p.one.spec.WorkgroupSize, KeysPerLane: p.one.spec.KPL,
			DigitBits: segDigitBits, Passes: (p.end - p.begin + segDigitBits - 1) / segDigitBits}
	}
	if p.lanes != nil {
		var t Tuning
		p.lanes.report(&t)
		return t
	}
	c := p.config()
	return c.tuning()
}

// Run records the sort on the context's own queue and waits. A zero
// Scratch range is allocated for the call and released after it.
func (p *Plan) Run(b Buffers) error {
	if p == nil {
		return invalid("radix: nil Plan")
	}
	_, err := planrun.Run[struct{}](p.ctx, []planrun.Temp{{Range: &b.Scratch, Size: p.layout().size}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, nil)
	return err
}
