package radix

import (
	"fmt"
	"math"

	"github.com/vkcompact/vkcompact/compact"
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

// MaxKeysPerLane bounds Options.KeysPerLane.
const MaxKeysPerLane = 32

// MaxElements is the most keys a sort takes: slots are 32-bit on the GPU.
// A device's maxStorageBufferRange may allow fewer (see NewPlan).
const MaxElements = math.MaxUint32

// Options tunes a sort. Zero values take per-device defaults.
type Options struct {
	// Path picks the sort's algorithm: compact.PathThreePhase is a count,
	// a scan and a scatter per digit, reading the keys twice per digit;
	// compact.PathSinglePass counts every digit in one pass over the keys
	// first, then reads the keys once per digit (a chained scan over tiles
	// with decoupled look-back and fallback, Onesweep-style). The single
	// pass applies below 2^30 keys, with a workgroup of at least 2^DigitBits
	// invocations, when its tile status (two words per tile and digit)
	// fits one binding; NewPlan returns ErrInvalid, naming the reason,
	// when it is forced where it does not apply. compact.PathAuto takes
	// the three phases on every device: on the H100 the single pass
	// measured slower (2^28 uint32 keys: 14.1 ms at its best, 8-bit
	// digits, against 10.6 ms for the three phases then and 7.73 ms
	// now; BENCHMARKS.md), its look-back bound by dependent loads over
	// small tiles.
	Path compact.Path
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
	// narrower). Default on a
	// GPU: 6 for 32-bit keys, alone or with values, 4 for
	// 64-bit keys; 8 on a CPU device.
	DigitBits uint32
	// KeysPerLane is the keys each lane holds per round, 1 to
	// MaxKeysPerLane. Default on a GPU: 20 for 32-bit keys alone, 16 with
	// values, 8 for 64-bit keys, and 8 where there are fewer rounds than
	// the device holds workgroups; 4 on a CPU device. Where the scatter's
	// stage of a round would not fit shared memory, the default workgroup
	// shrinks (WorkgroupSize).
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
	// them), and writes them (TailsWrite) elsewhere. On the H100
	// (BENCHMARKS.md) holding them back took 2^28 pairs at 5-bit digits
	// from 13.5 to 12.5 ms, and made 6-bit digits the faster (11.6 ms);
	// keys alone were slower with it.
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
	// 16 * 4^w keys for the widest of them; the pass after any other
	// keeps its count phase. It does not shrink the workgroup to make
	// the counters fit shared memory (a forced CountsFused does): where
	// none fit, every pass keeps a count phase. At 2^28 pairs on the
	// H100 (6, 6, 5, 5, 5, 5 bits, held tails) the three 5-bit passes
	// after the first are counted by the scatter before them. On the H100
	// (BENCHMARKS.md) fused counts were slower with smaller chunks (the
	// counters' atomic adds cost more than a count phase); at 2^28 keys
	// with 6-bit digits and 16 keys per lane they took 7.99 ms against
	// 9.01 with a count phase per pass.
	CountsAuto Counts = iota
	// CountsSeparate gives every pass a count phase of its own, which
	// reads the keys.
	CountsSeparate
	// CountsFused has each scatter but the last count the next pass's
	// digits too (at most 4^DigitBits shared-memory counters, 4^w for a
	// pass of w bits, then at most twice as many atomic adds per
	// processor), so that only the first
	// pass reads the keys to count them. It applies to the three phases
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
	Key compact.Type // Uint32, Int32, Float32 or Uint64
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

// Buffers are the ranges a recorded sort uses. Every offset must be a
// multiple of the device's minStorageBufferOffsetAlignment.
type Buffers struct {
	Keys   vk.Range // n keys, read (and written in place)
	Values vk.Range // with Sort.Values: n uint32 values
	// KeysOut and ValuesOut receive the sorted keys and values; empty in
	// place.
	KeysOut, ValuesOut vk.Range
	Scratch            vk.Range // Plan.ScratchSize bytes
	// Count, when set, is a 4-byte range holding the key count as a
	// uint32 written on the GPU, for instance the kept count of a
	// compaction (compact.Buffers.Count explains): the sort then covers
	// the first min(count, n) keys and values, and leaves the outputs
	// past them unwritten (in place, unchanged).
	Count vk.Range
}

// Plan is a sort of n keys checked, tuned and sized for one context. It is
// immutable and safe for concurrent use.
type Plan struct {
	ctx              *vk.Context
	sort             Sort
	n                uint32
	keyBytes         uint64
	nextFits         [MaxFusedBits + 1]bool // by digit width: the scatter fits the next pass's counters
	carry            bool                   // TailsHold: the scatter holds each run's last partial block back
	begin, end, bits uint32
	passes           uint32
	wg, kpl          uint32
	procs, chunk     uint32
	histWords        uint64
	keysOff, valsOff uint64
	scratch          uint64
	// The three phases' digit widths, balanced: the first wideN passes
	// take wide bits, the rest wide-1 (32 bits at 6: 6, 6, 5, 5, 5, 5),
	// each width with its own kernels.
	wide, wideN uint32
	kernels     map[uint32]*passKernels
	// fused: each scatter but the last counts the next pass's digits into
	// the other hist region (at hist2Off), with its scatterNext.
	fused    bool
	hist2Off uint64
	scan     *pipeline.Pipeline // the single pass's

	// The single pass (onesweep): tiles of tile keys, the status binding
	// at statusOff (the passes' tile counters, then two regions of
	// tiles*buckets words), the first slots' rows at 0.
	onesweep           bool
	spins              uint32
	tile, tiles        uint32
	statusOff          uint64
	counterWords       uint64
	regionWords        uint64
	histogram, onePass *pipeline.Pipeline
}

// passKernels are the three phases' pipelines for one digit width; count
// and scatterNext only where a pass of that width uses them.
type passKernels struct {
	count, scan, scatter, scatterNext *pipeline.Pipeline
}

// fuses reports whether three-phase pass i's scatter counts pass i+1's
// digits (so that pass i+1 has no count phase): with fused counts, where
// the next pass is no wider and the counters fit the scatter's shared
// memory (at 2^28 pairs on the H100: the 6-bit passes take a count phase,
// the 5-bit ones are counted).
func (p *Plan) fuses(i uint32) bool {
	return p.fused && i+1 < p.passes && p.width(i+1) <= p.width(i) && p.nextFits[p.width(i)]
}

// counted reports whether pass i has a count phase of its own.
func (p *Plan) counted(i uint32) bool { return i == 0 || !p.fuses(i-1) }

// nextAt is the shared memory of a scatter's next-pass counts for digits
// of w bits: 4^w counters and three words per digit, in place of the four
// single words.
func nextAt(w uint32) uint32 {
	b := uint32(1) << w
	return 4 * (b*b + 3*b - 4)
}

// width returns the digit bits of three-phase pass i; shift its first bit.
func (p *Plan) width(i uint32) uint32 {
	if i < p.wideN {
		return p.wide
	}
	return p.wide - 1
}

func (p *Plan) shift(i uint32) uint32 {
	return p.begin + i*p.wide - max(i, p.wideN) + p.wideN
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{vk.ErrInvalid}, args...)...)
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }
func alignUp(a, b uint64) uint64 { return ceilDiv(a, b) * b }

// keyCode is the shaders' KEY_* number of a key type.
func keyCode(t compact.Type) (uint32, bool) {
	switch t {
	case compact.Uint32:
		return 0, true
	case compact.Int32:
		return 1, true
	case compact.Float32:
		return 2, true
	case compact.Uint64:
		return 3, true
	}
	return 0, false
}

// NewPlan checks s for n keys on ctx, picks its tuning and creates its
// pipelines. The keys must fit one binding: n times the key size at most
// the device's maxStorageBufferRange.
func NewPlan(ctx *vk.Context, n uint64, s Sort) (*Plan, error) {
	if ctx == nil {
		return nil, invalid("radix: nil context")
	}
	if err := ctx.Usable(); err != nil {
		return nil, err
	}
	code, ok := keyCode(s.Key)
	if !ok {
		return nil, invalid("radix: keys of type %v: the key type must be u32, i32, f32 or u64", s.Key)
	}
	info := ctx.Info()
	p := &Plan{ctx: ctx, sort: s, n: uint32(n), keyBytes: uint64(s.Key.Size())}
	width := 8 * s.Key.Size()
	p.begin, p.end = s.BeginBit, s.EndBit
	if p.end == 0 {
		p.end = width
	}
	if p.end > width || p.begin > p.end {
		return nil, invalid("radix: bit range [%d, %d) of a %d-bit key", s.BeginBit, s.EndBit, width)
	}
	if n > MaxElements {
		return nil, invalid("radix: %d keys: at most %d", n, uint64(MaxElements))
	}
	if limit := uint64(info.MaxStorageBufferRange) / p.keyBytes; n > limit {
		return nil, invalid("radix: %d keys of %d bytes exceed the device's maxStorageBufferRange (%d bytes): at most %d keys here",
			n, p.keyBytes, info.MaxStorageBufferRange, limit)
	}
	o := s.Options
	defBits, defKPL := defaultDigits(info, s)
	p.bits = o.DigitBits
	if p.bits == 0 {
		p.bits = defBits
	}
	if p.bits > 8 {
		return nil, invalid("radix: %d digit bits: 1 to 8", p.bits)
	}
	p.kpl = o.KeysPerLane
	if p.kpl == 0 {
		p.kpl = defKPL
		if s.Path == compact.PathSinglePass {
			// The single pass was measured and tuned at 8 (its ranking
			// holds more per key than the scatter's).
			p.kpl = min(p.kpl, 8)
		}
	}
	if p.kpl > MaxKeysPerLane {
		return nil, invalid("radix: %d keys per lane: at most %d", p.kpl, MaxKeysPerLane)
	}
	buckets := uint32(1) << p.bits
	// Shared memory of the scatter, in words (every array of
	// radix_scatter.comp): two counts per subgroup and digit, three words
	// per digit, two per subgroup, the stage of one round's keys (and
	// values; an unused stage array takes one word), and the four arrays
	// of the fused counts, one word each without them.
	stageWords := uint32(1)
	if s.Key == compact.Uint64 {
		stageWords++
	}
	if s.Values {
		stageWords++
	}
	if o.Tails > TailsHold {
		return nil, invalid("radix: unknown tails mode %d", o.Tails)
	}
	if o.Tails == TailsHold && s.Path == compact.PathSinglePass {
		return nil, invalid("radix: held tails (TailsHold) apply to the three phases' scatter, not the single pass")
	}
	// sharedAt is the scatter's shared memory for digits of w bits. With
	// held tails the stage grows by TailSector-1 keys per digit, and the
	// carried keys take TailSector words per digit and stage array (one
	// word for an unused one) and three words per digit.
	sharedAt := func(wg, w uint32, carry bool) uint32 {
		subgroups := wg / max(info.MinSubgroupSize, 1)
		b := uint32(1) << w
		need := 2*subgroups*b + 3*b + 2*subgroups + wg*p.kpl*stageWords + 3 - stageWords + 4
		if carry {
			need += 3*b + TailSector*b*stageWords + 3 - stageWords + (TailSector-1)*b*stageWords
		}
		return 4 * need
	}
	sharedWith := func(wg uint32, carry bool) uint32 { return sharedAt(wg, p.bits, carry) }
	p.carry = o.Tails == TailsHold
	shared := func(wg uint32) uint32 { return sharedWith(wg, p.carry) }
	// With them: 4^bits counters and three words per digit, in place of
	// the four single words.
	nextShared := nextAt(p.bits)
	forcedFused := o.Counts == CountsFused && p.bits <= MaxFusedBits
	p.wg = o.WorkgroupSize
	if p.wg == 0 {
		p.wg = 256
		fits := func(wg uint32) bool {
			need := shared(wg)
			if forcedFused {
				need += nextShared
			}
			return need <= info.MaxSharedMemory
		}
		for p.wg > info.MaxSubgroupSize && !fits(p.wg) {
			p.wg /= 2
		}
		p.wg = max(p.wg, info.MaxSubgroupSize)
	}
	if p.wg%info.MaxSubgroupSize != 0 {
		return nil, invalid("radix: workgroup size %d is not a multiple of the largest subgroup size %d", p.wg, info.MaxSubgroupSize)
	}
	if o.KeysPerLane == 0 && p.kpl > 8 && n < defaultProcessors(info, p.wg)*uint64(p.wg)*uint64(p.kpl) {
		// Too few rounds to give every processor the device holds one:
		// smaller rounds (2^20 keys on the H100: 0.123 ms at 8 keys per
		// lane against 0.127 at 16).
		p.kpl = 8
	}
	subgroups := p.wg / max(info.MinSubgroupSize, 1)
	if need := shared(p.wg); need > info.MaxSharedMemory {
		held := ""
		if p.carry {
			held = " and held tails"
		}
		return nil, invalid("radix: a workgroup of %d (%d subgroups) with %d-bit digits, %d keys per lane%s needs %d bytes of shared memory; the device has %d",
			p.wg, subgroups, p.bits, p.kpl, held, need, info.MaxSharedMemory)
	}
	if p.end > p.begin {
		p.passes = (p.end - p.begin + p.bits - 1) / p.bits
		// Balanced widths: as many passes, none wider than bits.
		p.wide, p.wideN = (p.end-p.begin)/p.passes, p.passes
		if extra := (p.end - p.begin) % p.passes; extra != 0 {
			p.wide, p.wideN = p.wide+1, extra
		}
	}
	// Which widths' scatters can count the next pass's digits: their
	// counters (4^w words) fit beside their own shared memory.
	fitsNext := func(w uint32, carry bool) bool {
		return w <= MaxFusedBits && sharedAt(p.wg, w, carry)+nextAt(w) <= info.MaxSharedMemory
	}
	if o.Tails == TailsAuto && s.Values && !info.CPU() && s.Path != compact.PathSinglePass && sharedWith(p.wg, true) <= info.MaxSharedMemory {
		// Only where no pass loses its fused counts to them (the last
		// pass counts nothing).
		p.carry = true
		for i := range p.passes - 1 {
			if w := p.width(i); fitsNext(w, false) && !fitsNext(w, true) {
				p.carry = false
			}
		}
	}
	for w := uint32(1); w <= MaxFusedBits; w++ {
		p.nextFits[w] = fitsNext(w, p.carry)
	}

	// Processors and chunks: whole rounds per chunk, and few enough
	// rounds that one invocation's loop iterations, inner loops included,
	// stay under pipeline.LoopBudget: lavapipe ends a shader's loops after 65535
	// iterations (its guard against endless loops), which silently lost
	// the end of a long chunk's output at subgroup size 4. Longer inputs
	// get more processors instead.
	round := uint64(p.wg) * uint64(p.kpl)
	procs := uint64(o.Processors)
	if procs == 0 {
		procs = defaultProcessors(info, p.wg)
	}
	perRound := 4 + ceilDiv(uint64(buckets), uint64(p.wg))*uint64(1+subgroups) + uint64(p.kpl)*uint64(5+p.bits) + uint64(subgroups)
	if p.carry {
		// The carried keys' copy into the stage, and the write-out's
		// iterations over them.
		perRound += ceilDiv(uint64(buckets)*TailSector, uint64(p.wg)) + ceilDiv(uint64(buckets)*(TailSector-1), uint64(p.wg))
	}
	chunk := max(alignUp(ceilDiv(n, procs), round), round)
	chunk = min(chunk, max(pipeline.LoopBudget/perRound, 1)*round)
	p.chunk = uint32(min(chunk, math.MaxUint32&^(round-1)))
	p.procs = uint32(max(ceilDiv(n, uint64(p.chunk)), 1))

	if s.Path > compact.PathSinglePass {
		return nil, invalid("radix: unknown path %d", s.Path)
	}
	why := p.onesweepNot(info, n, buckets)
	switch {
	case s.Path == compact.PathSinglePass && why != "":
		return nil, invalid("radix: the single pass does not apply: %s", why)
	case s.Path == compact.PathSinglePass:
		p.onesweep = true
	}

	if o.Counts > CountsFused {
		return nil, invalid("radix: unknown counts mode %d", o.Counts)
	}
	var whyNot string
	switch {
	case p.onesweep:
		whyNot = "the single pass has no count phases"
	case p.bits > MaxFusedBits:
		whyNot = fmt.Sprintf("%d-bit digits: at most %d", p.bits, MaxFusedBits)
	case shared(p.wg)+nextShared > info.MaxSharedMemory:
		whyNot = fmt.Sprintf("the scatter would need %d bytes of shared memory; the device has %d", shared(p.wg)+nextShared, info.MaxSharedMemory)
	}
	switch {
	case o.Counts == CountsFused && whyNot != "":
		return nil, invalid("radix: fused counts do not apply: %s", whyNot)
	case o.Counts == CountsFused:
		p.fused = p.passes >= 2
	case o.Counts == CountsAuto:
		// The passes whose counters fit count the next pass's digits,
		// where a chunk holds at least 16 * 4^w keys for the widest of
		// them, w bits.
		if !p.onesweep && p.bits <= MaxFusedBits && p.passes >= 2 {
			p.fused = true // for fuses, which reads it
			widest := uint32(0)
			for i := range p.passes {
				if p.fuses(i) {
					widest = max(widest, p.width(i))
				}
			}
			p.fused = widest > 0 && uint64(p.chunk) >= 16<<(2*widest)
		}
	}
	if p.fused {
		// The fused counts' loops, for lavapipe's guard as above: zeroing
		// and a final flush of the counters, and in a round where a run
		// crosses its chunk boundary (taken as every round) a flush, a
		// recount over the stage and an update per digit.
		perDigits := ceilDiv(uint64(buckets), uint64(p.wg))
		perCounters := ceilDiv(uint64(buckets)*uint64(buckets), uint64(p.wg))
		fixed := 2 * perCounters
		perRound += perCounters + uint64(p.kpl) + perDigits
		if p.carry {
			perRound += ceilDiv(uint64(buckets)*(TailSector-1), uint64(p.wg)) // the recount over the carried keys
		}
		if capped := max((pipeline.LoopBudget-min(fixed, pipeline.LoopBudget/2))/perRound, 1) * round; uint64(p.chunk) > capped {
			p.chunk = uint32(capped)
			p.procs = uint32(max(ceilDiv(n, uint64(p.chunk)), 1))
		}
	}
	// Scratch: the counts (and digit totals) or, for the single pass, the
	// digit counts of every pass and the tile status; then the other half
	// of the key and value ping-pong.
	p.histWords = uint64(buckets) * uint64(p.procs+1)
	if p.onesweep {
		p.histWords = uint64(buckets+1) * uint64(p.passes)
		p.spins = compact.SpinsFor(info, s.Spins)
		p.statusOff = alignUp(p.histWords*4, 256)
		p.keysOff = alignUp(p.statusOff+p.statusBytes(), 256)
	} else {
		p.keysOff = alignUp(p.histWords*4, 256)
		if p.fused {
			p.hist2Off = p.keysOff
			p.keysOff = alignUp(p.hist2Off+p.histWords*4, 256)
		}
	}
	p.valsOff = p.keysOff + alignUp(n*p.keyBytes, 256)
	p.scratch = p.valsOff
	if s.Values {
		p.scratch += alignUp(n*4, 256)
	}

	desc, pairs := uint32(0), uint32(0)
	if s.Descending {
		desc = 1
	}
	if s.Values {
		pairs = 1
	}
	cache := pipeline.For(ctx)
	var err error
	if p.onesweep && p.passes == 0 {
		return p, nil // nothing to sort: Record copies at most
	}
	if p.onesweep {
		if p.histogram, err = cache.Get(histogramKernel, p.wg, code, desc, p.bits, p.kpl, p.passes); err != nil {
			return nil, err
		}
		if p.scan, err = cache.Get(scanKernel, pipeline.ScanWorkgroup(info), p.passes); err != nil {
			return nil, err
		}
		p.onePass, err = cache.Get(onesweepKernel, p.wg, code, desc, p.bits, p.kpl, pairs, subgroups, p.tile)
		return p, err
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
				return nil, err
			}
		}
		if p.counted(i) && k.count == nil {
			if k.count, err = cache.Get(countKernel, p.wg, code, desc, w, p.kpl); err != nil {
				return nil, err
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
				*got, err = cache.Get(scatterCarryKernel, p.wg, code, desc, w, p.kpl, pairs, subgroups, p.wg*p.kpl, next, TailSector)
			} else {
				*got, err = cache.Get(scatterKernel, p.wg, code, desc, w, p.kpl, pairs, subgroups, p.wg*p.kpl, next)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// onesweepNot says why the single pass does not apply to the plan, or
// returns "" where it does. It sets the plan's tiles.
func (p *Plan) onesweepNot(info vk.DeviceInfo, n uint64, buckets uint32) string {
	p.tile = p.wg * p.kpl
	p.tiles = uint32(max(ceilDiv(n, uint64(p.tile)), 1))
	p.counterWords = alignUp(uint64(p.passes), 64)
	p.regionWords = uint64(p.tiles) * uint64(buckets)
	switch {
	case n > compact.MaxSinglePassElements:
		return fmt.Sprintf("%d keys: its status words hold counts below 2^30, so at most %d keys", n, compact.MaxSinglePassElements)
	case p.wg < buckets:
		return fmt.Sprintf("a workgroup of %d invocations is smaller than the %d digits of %d bits: each digit needs its own invocation", p.wg, buckets, p.bits)
	case p.statusBytes() > uint64(info.MaxStorageBufferRange):
		return fmt.Sprintf("its tile status (%d bytes for %d tiles of %d-bit digits) exceeds the device's maxStorageBufferRange (%d bytes)",
			p.statusBytes(), p.tiles, p.bits, info.MaxStorageBufferRange)
	}
	return ""
}

// statusBytes is the size of the single pass's status binding: the tile
// counters and two regions of a word per tile and digit.
func (p *Plan) statusBytes() uint64 { return 4 * (p.counterWords + 2*p.regionWords) }

// defaultDigits is the digit width and keys per lane of a sort on a
// device. On a GPU, 32-bit keys alone take 6-bit digits (passes of 6, 6,
// 5, 5, 5, 5 bits) and 20 keys per lane, pairs 6-bit digits too, and 16
// (NewPlan lowers both to 8 for inputs too small to fill
// the device with rounds), chosen from measurements on the H100 at 2^28
// with fused counts (BENCHMARKS.md, "Radix sort: prefetching rounds and
// balanced digits"). Keys: 7.74 ms, against 7.99 at 16 keys per lane,
// 8.20 at 5 bits (7 passes) and, at 16 keys per lane, 9.01 with a count
// phase per pass; 24
// keys per lane need 90 registers and were slower (9.43 at 5 bits).
// Pairs, with held tails (Options.Tails): 11.68 ms, the two 6-bit passes
// with a count phase each and the 5-bit ones counted by the scatter
// before, against 12.57 at 5 bits (7 passes, all fused) and 13.97 at 6
// bits writing the tails (stop 21's run); 12 keys per lane were slower
// at 5 bits (12.64 against 12.52), and at 20 they need 96 registers. 64-bit keys keep 4-bit digits
// and 8 keys per lane, unmeasured with the others. On a CPU device 8-bit
// digits: half the passes over memory.
func defaultDigits(info vk.DeviceInfo, s Sort) (bits, keysPerLane uint32) {
	switch {
	case info.CPU():
		return 8, 4
	case s.Key == compact.Uint64:
		return 4, 8
	case s.Values:
		return 6, 16
	}
	return 6, 20
}

// defaultProcessors fills the device once: as many workgroups as it keeps
// resident, where that is known.
func defaultProcessors(info vk.DeviceInfo, wg uint32) uint64 {
	switch {
	case info.ComputeUnits > 0 && info.SubgroupsPerUnit > 0:
		perUnit := max(info.SubgroupsPerUnit*info.MaxSubgroupSize/wg, 1)
		return uint64(info.ComputeUnits * perUnit)
	case info.ComputeUnits > 0:
		return uint64(info.ComputeUnits) * 4
	}
	return 64
}

// N returns the key count the plan was made for.
func (p *Plan) N() uint64 { return uint64(p.n) }

// Passes returns the number of digit passes.
func (p *Plan) Passes() uint32 { return p.passes }

// ScratchSize returns the bytes of scratch Record needs: the per-processor
// digit counts, and room for n keys (and values) between passes.
func (p *Plan) ScratchSize() uint64 { return p.scratch }

// Tuning is what a Plan chose. Processors and Chunk are the three
// phases' (and the single pass's histogram's); Tiles, Tile and Spins the
// single pass's.
type Tuning struct {
	Path                                                             compact.Path
	Processors, Chunk, WorkgroupSize, KeysPerLane, DigitBits, Passes uint32
	Tiles, Tile, Spins                                               uint32
	// FusedCounts: three-phase scatters count the next pass's digits
	// (Options.Counts): each but the last, or with CountsAuto those whose
	// counters fit (a pass no wider than the one before it).
	FusedCounts bool
	// HeldTails: the three phases' scatter holds each round's last
	// partial block of a run back for the next round (Options.Tails).
	HeldTails bool
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	t := Tuning{Path: compact.PathThreePhase, Processors: p.procs, Chunk: p.chunk, WorkgroupSize: p.wg, KeysPerLane: p.kpl, DigitBits: p.bits, Passes: p.passes, FusedCounts: p.fused, HeldTails: p.carry}
	if p.onesweep {
		t.Path, t.Tiles, t.Tile, t.Spins = compact.PathSinglePass, p.tiles, p.tile, p.spins
	}
	return t
}

// Run records the sort on the context's own queue and waits. A zero
// Scratch range is allocated for the call and released after it.
func (p *Plan) Run(b Buffers) error {
	if p == nil {
		return invalid("radix: nil Plan")
	}
	if b.Scratch.Buffer == nil {
		buf, err := p.ctx.NewBuffer(max(p.scratch, 16), vk.DeviceLocal)
		if err != nil {
			return err
		}
		defer buf.Release()
		b.Scratch = buf.Range(0, p.scratch)
	}
	return pipeline.Run(p.ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
}
