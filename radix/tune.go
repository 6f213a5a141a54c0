package radix

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/vk"
)

// request is what both algorithms take from a checked sort: the sort as
// tuned (with the shape PathAuto took for a small sort), the key count,
// the key type, the digits and the workgroup. It holds no context and no
// pipelines, so that the choices can be checked for devices the tests do
// not run on (tune_test.go).
type request struct {
	sort     Sort
	n        uint32
	keyBytes uint64
	code     uint32 // the shaders' KEY_TYPE
	digits
	wg, kpl uint32
	// subgroups is the most subgroups a workgroup holds (at the smallest
	// subgroup size): the kernels' MAX_SUBGROUPS.
	subgroups uint32
}

// config is a plan's tuning and sizes: the common request and exactly one
// algorithm's own tuning, the three phases' or the single pass's.
type config struct {
	request
	three *threePhase
	sweep *onesweep
}

// tune checks s for n keys on a device with info and picks the plan's
// tuning and sizes: a pure function of its arguments, which creates
// nothing. limit, when not 0, lowers the bytes one binding holds below the
// device's maxStorageBufferRange (tests sort small inputs in windows). The
// refusals come in a fixed order, each naming its reason. An unset key
// type is Uint32.
func tune(info vk.DeviceInfo, n uint64, s Sort, limit uint64) (config, error) {
	s.Elem.Key = s.Elem.Key.OrUint32()
	for _, small := range tuningFor(info).smallSorts(n, s) {
		// The single pass in windows (past one binding) is taken only
		// when asked for: no GPU has measured it.
		if c, err := tuneAs(info, n, small, limit); err == nil && (c.sweep == nil || c.sweep.winTiles == 0) {
			return c, nil
		}
	}
	return tuneAs(info, n, s, limit)
}

// tuneAs is tune for s as given: the common request, then the tuning of
// the algorithm s.Path names (the three phases for PathAuto).
func tuneAs(info vk.DeviceInfo, n uint64, s Sort, limit uint64) (config, error) {
	q, sh, err := newRequest(info, n, s)
	if err != nil {
		return config{}, err
	}
	bind := bindingLimit(info, limit)
	if s.Path == vkcompact.PathSinglePass {
		o, err := tuneOnesweep(info, q, sh, bind)
		if err != nil {
			return config{}, err
		}
		return config{request: q, sweep: o}, nil
	}
	t, err := tuneThreePhase(info, q, sh, bind)
	if err != nil {
		return config{}, err
	}
	return config{request: q, three: t}, nil
}

// newRequest checks what both algorithms check (the keys, the digits, the
// tails, the path and the workgroup's shared memory) and returns the
// request with the scatter's shape.
func newRequest(info vk.DeviceInfo, n uint64, s Sort) (request, scatterShape, error) {
	code, begin, end, err := checkKeys(info, n, s)
	if err != nil {
		return request{}, scatterShape{}, err
	}
	o := s.Options
	bits, kpl, err := resolveDigits(info, s)
	if err != nil {
		return request{}, scatterShape{}, err
	}
	if o.Tails > TailsHold {
		return request{}, scatterShape{}, invalid("radix: unknown tails mode %d", o.Tails)
	}
	if o.Tails == TailsHold && o.Path == vkcompact.PathSinglePass {
		return request{}, scatterShape{}, invalid("radix: held tails (TailsHold) apply to the three phases' scatter, not the single pass")
	}
	held := o.Tails == TailsHold
	stage := stageWords(s)
	wg := o.WorkgroupSize
	if wg == 0 {
		wg = defaultWorkgroup(info, kpl, stage, bits, held, o.Counts == CountsFused && bits <= MaxFusedBits, s)
	}
	if wg%info.MaxSubgroupSize != 0 {
		return request{}, scatterShape{}, invalid("radix: workgroup size %d is not a multiple of the largest subgroup size %d", wg, info.MaxSubgroupSize)
	}
	kpl = fewerRounds(info, n, o, wg, kpl)
	sh := newScatterShape(info, wg, kpl, stage)
	// The single pass checks its own shared memory (onesweepNot).
	if need := sh.shared(bits, held); need > info.MaxSharedMemory && o.Path != vkcompact.PathSinglePass {
		heldText := ""
		if held {
			heldText = " and held tails"
		}
		return request{}, scatterShape{}, invalid("radix: a workgroup of %d (%d subgroups) with %d-bit digits, %d keys per lane%s needs %d bytes of shared memory; the device has %d",
			wg, sh.subgroups, bits, kpl, heldText, need, info.MaxSharedMemory)
	}
	if o.Path > vkcompact.PathSinglePass {
		return request{}, scatterShape{}, invalid("radix: unknown path %d", o.Path)
	}
	q := request{sort: s, n: uint32(n), keyBytes: uint64(s.Elem.Key.Size()), code: code, digits: splitDigits(begin, end, bits), wg: wg, kpl: kpl, subgroups: sh.subgroups}
	return q, sh, nil
}

// bindingLimit is the bytes the sort puts in one binding: the device's
// maxStorageBufferRange, or limit where that is lower and not 0.
func bindingLimit(info vk.DeviceInfo, limit uint64) uint64 {
	if limit != 0 {
		return min(limit, uint64(info.MaxStorageBufferRange))
	}
	return uint64(info.MaxStorageBufferRange)
}

// checkKeys checks the keys (plain, of a type the sort takes), the bit
// range and the key count, and returns the shaders' KEY_TYPE and the bits
// [begin, end) to sort by.
func checkKeys(info vk.DeviceInfo, n uint64, s Sort) (code, begin, end uint32, err error) {
	if err := plainKeys(s.Elem, "Sort.Elem"); err != nil {
		return 0, 0, 0, err
	}
	code, ok := keyCode(s.Elem.Key)
	if !ok {
		return 0, 0, 0, invalid("radix: keys of type %v: the key type must be u32, i32, f32 or u64", s.Elem.Key)
	}
	width := 8 * s.Elem.Key.Size()
	begin, end = s.BeginBit, s.EndBit
	note := ""
	if end == 0 {
		end, note = width, " (EndBit 0: the key's width)"
	}
	if end > width || begin > end {
		return 0, 0, 0, invalid("radix: bit range [%d, %d)%s of a %d-bit key", s.BeginBit, end, note, width)
	}
	if n > MaxElements {
		return 0, 0, 0, invalid("radix: %d keys: at most %d", n, uint64(MaxElements))
	}
	return code, begin, end, nil
}

// plainKeys refuses an Elem (the field what names) that is not plain
// keys: a struct layout is StructSort's.
func plainKeys(e vkcompact.Elem, what string) error {
	if _, err := gotype.PlainKey(e, what); err != nil {
		return fmt.Errorf("radix: %w; sort structs by a key field with StructSort", err)
	}
	return nil
}

// keyCode is the shaders' KEY_* number of a key type the sort takes
// (u32, i32, f32 or u64; Unset as u32), and false for any other.
func keyCode(t vkcompact.Type) (uint32, bool) {
	switch t.OrUint32() {
	case vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64:
		return tiling.KeyCode(t), true
	}
	return 0, false
}

// resolveDigits returns Options.DigitBits and KeysPerLane, or the
// device's defaults (tuningFor) where they are 0, and checks their
// bounds. The single pass's default keys per lane are bounded: it was
// measured and tuned there (its ranking holds more per key than the
// scatter's).
func resolveDigits(info vk.DeviceInfo, s Sort) (bits, kpl uint32, err error) {
	t := tuningFor(info)
	def := t.defaultShape(s)
	bits, kpl = s.DigitBits, s.KeysPerLane
	if bits == 0 {
		bits = def.bits
	}
	if bits > 8 {
		return 0, 0, invalid("radix: %d digit bits: 1 to 8", bits)
	}
	if kpl == 0 {
		kpl = def.keysPerLane
		if s.Path == vkcompact.PathSinglePass {
			kpl = min(kpl, t.singlePassKeysPerLane)
		}
	}
	if kpl > MaxKeysPerLane {
		return 0, 0, invalid("radix: %d keys per lane: at most %d", kpl, MaxKeysPerLane)
	}
	return bits, kpl, nil
}

// defaultWorkgroup is the table's workgroup, halved (down to the largest
// subgroup size) while the scatter's shared memory does not fit: its
// per-subgroup digit counts, its stage of one round's keys, the held
// tails where asked, and a forced fused count's counters; for the single
// pass, its own shared memory (onesweepShared).
func defaultWorkgroup(info vk.DeviceInfo, kpl, stage, bits uint32, held, forcedFused bool, s Sort) uint32 {
	wg := tuningFor(info).workgroup
	for ; wg > info.MaxSubgroupSize; wg /= 2 {
		sh := newScatterShape(info, wg, kpl, stage)
		need := sh.shared(bits, held)
		if s.Path == vkcompact.PathSinglePass {
			need = sh.onesweepShared(bits, uint32(s.Elem.Key.Size()/4))
		}
		if forcedFused {
			need += nextCounters(bits)
		}
		if need <= info.MaxSharedMemory {
			break
		}
	}
	return max(wg, info.MaxSubgroupSize)
}

// fewerRounds returns the table's fewer keys per lane in place of a
// larger default where rounds of the default would be too few to give
// every processor the device holds one, and kpl otherwise.
func fewerRounds(info vk.DeviceInfo, n uint64, o Options, wg, kpl uint32) uint32 {
	few := tuningFor(info).fewRoundsKeysPerLane
	if o.KeysPerLane == 0 && kpl > few && n < defaultProcessors(info, wg)*uint64(wg)*uint64(kpl) {
		return few
	}
	return kpl
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

// chunkFor returns the keys each processor owns, in whole rounds: n over
// Options.Processors or enough to fill the device once (past one binding,
// once per window), at most the longest chunk whose loops it stays within
// it (maxChunk), and past one binding at most a window's whole chunks.
func chunkFor(info vk.DeviceInfo, q request, it loopIters, bind uint64) uint64 {
	n, keyBytes := uint64(q.n), q.keyBytes
	procs := uint64(q.sort.Processors)
	if procs == 0 {
		procs = defaultProcessors(info, q.wg)
		if n*keyBytes > bind {
			// Past one binding, each window's dispatch fills the device.
			procs *= align.CeilDiv(n*keyBytes, bind)
		}
	}
	round := uint64(q.wg) * uint64(q.kpl)
	chunk := min(max(align.Up(align.CeilDiv(n, procs), round), round), maxChunk(it, round), math.MaxUint32&^(round-1))
	if n*keyBytes > bind {
		// Past one binding, a window of the keys holds whole chunks.
		chunk = min(chunk, max(bind/keyBytes/round, 1)*round)
	}
	return chunk
}

// tuning reports the choices as Plan.Tuning does.
func (c *config) tuning() Tuning {
	t := Tuning{WorkgroupSize: c.wg, KeysPerLane: c.kpl, DigitBits: c.bits, Passes: c.passes}
	if c.sweep != nil {
		c.sweep.report(&t)
	} else {
		c.three.report(&t)
	}
	return t
}

// digits are a sort's bit range and its passes. The three phases share
// the bits out evenly, wider passes first, none wider than bits: the
// first wideN passes take wide bits, the rest wide-1 (32 bits at 6: 6, 6,
// 5, 5, 5, 5), each width with its own kernels. The single pass takes
// passes of bits bits, the last one narrower.
type digits struct {
	begin, end  uint32
	bits        uint32 // Options.DigitBits or its default
	passes      uint32
	wide, wideN uint32
}

func splitDigits(begin, end, bits uint32) digits {
	d := digits{begin: begin, end: end, bits: bits}
	if end > begin {
		d.passes = (end - begin + bits - 1) / bits
		d.wide, d.wideN = (end-begin)/d.passes, d.passes
		if extra := (end - begin) % d.passes; extra != 0 {
			d.wide, d.wideN = d.wide+1, extra
		}
	}
	return d
}

// buckets is the number of digits of bits bits.
func (d digits) buckets() uint32 { return 1 << d.bits }

// width returns the digit bits of three-phase pass i; shift its first bit.
func (d digits) width(i uint32) uint32 {
	if i < d.wideN {
		return d.wide
	}
	return d.wide - 1
}

func (d digits) shift(i uint32) uint32 {
	return d.begin + i*d.wide - max(i, d.wideN) + d.wideN
}

// sweepDigit returns the first bit and the width of single-pass pass i.
func (d digits) sweepDigit(i uint32) (shift, width uint32) {
	shift = d.begin + i*d.bits
	return shift, min(d.bits, d.end-shift)
}
