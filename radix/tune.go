package radix

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/align"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// config is a plan's tuning and sizes: everything tune chooses from the
// device's information, n and the Sort. It holds no context and no
// pipelines, so that the choices can be checked for devices the tests do
// not run on (tune_test.go).
type config struct {
	sort     Sort
	n        uint32
	keyBytes uint64
	code     uint32 // the shaders' KEY_TYPE
	digits
	wg, kpl uint32
	// subgroups is the most subgroups a workgroup holds (at the smallest
	// subgroup size): the kernels' MAX_SUBGROUPS.
	subgroups uint32
	// procs and chunk: the three phases' (and the single pass's
	// histogram's) processors, each owning chunk keys.
	procs, chunk uint32
	carry        bool // TailsHold: the scatter holds each run's last partial block back
	// fused: each scatter that fits the next pass's counters (nextFits)
	// counts the next pass's digits into the other hist region.
	fused    bool
	nextFits nextFits
	onesweep bool // the single pass
	// selfReset: the single pass leaves the next run's scratch zero
	// (radix_onesweep's SELF_RESET), so Record clears it only where it
	// does not know it zero.
	selfReset bool
	spins     uint32
	status    tileStatus
	layout    scratchLayout
	// Past one binding (keys of more than maxStorageBufferRange bytes),
	// the three phases' count and scatter run winProcs processors a
	// dispatch, whose chunks lie in one window of the keys (and values),
	// and the scatter binds its outputs as outWindows windows of winSlots
	// slots. winProcs is 0 where the keys fit one binding.
	winProcs, winSlots, outWindows uint32
}

// tune checks s for n keys on a device with info and picks the plan's
// tuning and sizes: a pure function of its arguments, which creates
// nothing. Each choice takes the ones before it as values; the refusals
// come in a fixed order, each naming its reason. An unset key type is
// Uint32.
func tune(info vk.DeviceInfo, n uint64, s Sort) (config, error) {
	s.Key = s.Key.OrUint32()
	for _, small := range smallSorts(info, n, s) {
		if c, err := tuneAs(info, n, small); err == nil {
			return c, nil
		}
	}
	return tuneAs(info, n, s)
}

// SmallSortKeys is the most keys for which PathAuto on a GPU picks the
// sort's shape for 32-bit keys by their count (smallSorts).
const SmallSortKeys = 1 << 25

// smallSorts returns the shapes PathAuto tries, in order, for up to
// SmallSortKeys 32-bit keys on a GPU when the caller left the path, the
// digit width and the keys per lane to it; where none applies (tuneAs
// refuses each), tune keeps s. Fewer dispatches matter most where each
// moves little, and the single pass's tiles were best larger as n grows.
// Each was the fastest measured on the H100 (BENCHMARKS.md, ms; against
// the three phases' 6-bit digits where not said):
//
//   - below 2^20 keys, the single pass with 8-bit digits and tiles of 8
//     keys per lane: four passes where the three phases take six of
//     three dispatches each (keys 0.047 and 0.057 at 2^16 and 2^18
//     against 0.094 and 0.097);
//   - pairs from 2^20 to 2^25, the single pass with 14 keys per lane
//     (0.102, 0.268, 0.471, 0.882 and 1.690 at 2^20, 2^22, 2^23, 2^24
//     and 2^25 against 0.121 with 8 keys per lane, 0.304, 0.558, 0.983
//     and 1.723), then with 8 where that does not apply;
//   - keys alone from 2^20 to 2^21, the single pass with 16 keys per
//     lane (0.083 at 2^20 against 0.101 with 8), then with 8;
//   - keys alone past 2^21, the three phases with 7-bit digits (five
//     passes), 16 keys per lane past 2^22 (0.204 at 2^22 against 0.221;
//     0.333, 0.642 and 1.214 at 2^23, 2^24 and 2^25 against 0.394, 0.722
//     and 1.284). At 2^26 and above the 6-bit digits with fused counts
//     were as fast or faster.
func smallSorts(info vk.DeviceInfo, n uint64, s Sort) []Sort {
	if info.CPU() || n == 0 || n > SmallSortKeys || (s.EndBit != 0 && s.EndBit <= s.BeginBit) || s.Key.Size() != 4 || s.Path != vkcompact.PathAuto || s.DigitBits != 0 || s.KeysPerLane != 0 || s.Tails != TailsAuto {
		return nil
	}
	single := s
	single.Path, single.DigitBits = vkcompact.PathSinglePass, 8
	switch {
	case n < 1<<20:
		return []Sort{single}
	case s.Values || n <= 1<<21:
		wide := single
		wide.KeysPerLane = 16
		if s.Values {
			wide.KeysPerLane = 14
		}
		return []Sort{wide, single}
	}
	s.Path, s.DigitBits = vkcompact.PathThreePhase, 7
	if n > 1<<22 {
		s.KeysPerLane = 16
	}
	return []Sort{s}
}

// tuneAs is tune for s as given.
func tuneAs(info vk.DeviceInfo, n uint64, s Sort) (config, error) {
	code, begin, end, err := checkKeys(info, n, s)
	if err != nil {
		return config{}, err
	}
	o := s.Options
	bits, kpl, err := resolveDigits(info, s)
	if err != nil {
		return config{}, err
	}
	if o.Tails > TailsHold {
		return config{}, invalid("radix: unknown tails mode %d", o.Tails)
	}
	if o.Tails == TailsHold && o.Path == vkcompact.PathSinglePass {
		return config{}, invalid("radix: held tails (TailsHold) apply to the three phases' scatter, not the single pass")
	}
	held := o.Tails == TailsHold
	stage := stageWords(s)
	wg := o.WorkgroupSize
	if wg == 0 {
		wg = defaultWorkgroup(info, kpl, stage, bits, held, o.Counts == CountsFused && bits <= MaxFusedBits)
	}
	if wg%info.MaxSubgroupSize != 0 {
		return config{}, invalid("radix: workgroup size %d is not a multiple of the largest subgroup size %d", wg, info.MaxSubgroupSize)
	}
	kpl = fewerRounds(info, n, o, wg, kpl)
	sh := newScatterShape(info, wg, kpl, stage)
	if need := sh.shared(bits, held); need > info.MaxSharedMemory {
		heldText := ""
		if held {
			heldText = " and held tails"
		}
		return config{}, invalid("radix: a workgroup of %d (%d subgroups) with %d-bit digits, %d keys per lane%s needs %d bytes of shared memory; the device has %d",
			wg, sh.subgroups, bits, kpl, heldText, need, info.MaxSharedMemory)
	}
	d := splitDigits(begin, end, bits)
	carry := held || autoHold(info, s, sh, d)
	fits := sh.nextFits(carry, info.MaxSharedMemory)
	procs := uint64(o.Processors)
	if procs == 0 {
		procs = defaultProcessors(info, wg)
		if keyBytes := uint64(s.Key.Size()); n*keyBytes > bindingLimit(info) {
			// Past one binding, each window's dispatch fills the device.
			procs *= align.CeilDiv(n*keyBytes, bindingLimit(info))
		}
	}
	round := uint64(wg) * uint64(kpl)
	chunk := min(max(align.Up(align.CeilDiv(n, procs), round), round), maxChunk(scatterIters(sh, bits, carry, false), round), math.MaxUint32&^(round-1))
	if keyBytes := uint64(s.Key.Size()); n*keyBytes > bindingLimit(info) {
		// Past one binding, a window of the keys holds whole chunks.
		chunk = min(chunk, max(bindingLimit(info)/keyBytes/round, 1)*round)
	}

	if o.Path > vkcompact.PathSinglePass {
		return config{}, invalid("radix: unknown path %d", o.Path)
	}
	status := newTileStatus(n, wg, kpl, d)
	if why := onesweepNot(info, n, uint64(s.Key.Size()), sh, d, status); o.Path == vkcompact.PathSinglePass && why != "" {
		return config{}, invalid("radix: the single pass does not apply: %s", why)
	}
	onesweep := o.Path == vkcompact.PathSinglePass
	fused, err := fusedCounts(info, o, sh, d, fits, carry, onesweep, chunk)
	if err != nil {
		return config{}, err
	}
	if fused {
		chunk = min(chunk, maxChunk(scatterIters(sh, bits, carry, true), round))
	}
	c := config{sort: s, n: uint32(n), keyBytes: uint64(s.Key.Size()), code: code, digits: d, wg: wg, kpl: kpl, subgroups: sh.subgroups,
		procs: uint32(max(align.CeilDiv(n, chunk), 1)), chunk: uint32(chunk), carry: carry, fused: fused, nextFits: fits, onesweep: onesweep, status: status}
	if onesweep {
		c.spins = tiling.Spins(info, s.Spins)
		c.layout = onesweepLayout(n, c.keyBytes, s.Values, d, status)
		// The last pass leaves region 0 zero as its next region only
		// after an even number of passes, and the count of its
		// workgroups done takes the word after the tile counters.
		c.selfReset = status.tiles <= selfResetMaxTiles(s.Values) && d.passes > 0 && d.passes%2 == 0 && uint64(d.passes) < status.counterWords
	} else {
		c.layout = threePhaseLayout(n, c.keyBytes, s.Values, d.buckets(), c.procs, fused)
		if err := c.windows(info); err != nil {
			return config{}, err
		}
	}
	return c, nil
}

// selfResetMaxTiles is the most tiles for which the single pass leaves
// its next run's scratch zero (radix_onesweep's SELF_RESET): its
// workgroups then scan their pass's row of counts themselves, and the
// last pass's count them in on one word, which costs more than the clear
// and scan dispatches it saves (about 4 us on the H100) past these
// bounds. On the H100 (8-bit digits, four passes, before / after in one
// call, BENCHMARKS.md): keys alone 0.93 of the time before at 2^16 (32
// tiles), 0.96 at 2^20 (256 tiles), 0.98 at 2^21 (512 tiles); pairs 0.93
// at 2^16, 0.95 at 2^19 (147 tiles), 1.00 at 2^20 (293 tiles), 1.01 at
// 2^21 (586 tiles).
func selfResetMaxTiles(values bool) uint32 {
	if values {
		return 256
	}
	return 512
}

// testWindowLimit, when not zero, replaces maxStorageBufferRange as the
// bytes one binding of the sort holds: tests set it to sort small inputs
// in windows.
var testWindowLimit uint64

// bindingLimit is the bytes the sort puts in one binding.
func bindingLimit(info vk.DeviceInfo) uint64 {
	if testWindowLimit != 0 {
		return min(testWindowLimit, uint64(info.MaxStorageBufferRange))
	}
	return uint64(info.MaxStorageBufferRange)
}

// wideStorageBuffers is the storage buffers the wide scatter binds
// (radix_scatter_wide.comp): seven, and three more windows of each
// output.
const wideStorageBuffers = 7 + 2*(tiling.MaxOutWindows-1)

// windows sizes the three phases' windows where the keys exceed one
// binding: the most processors whose chunks of keys (and values) fit one
// binding at an aligned offset, and the most slots of the outputs one
// binding holds, in at most tiling.MaxOutWindows windows. It refuses,
// naming the reason, what does not fit them: more keys than four windows
// hold, a device that allows fewer storage buffers per stage than the
// wide scatter binds, or a last chunk that would end past 2^32-1 (the
// kernels' slots are 32-bit).
func (c *config) windows(info vk.DeviceInfo) error {
	n, limit := uint64(c.n), bindingLimit(info)
	if n*c.keyBytes <= limit {
		return nil
	}
	valBytes := uint64(0)
	if c.sort.Values {
		valBytes = 4
	}
	past := fmt.Sprintf("radix: %d keys of %d bytes exceed one binding (%d bytes, maxStorageBufferRange)", n, c.keyBytes, limit)
	procs := tiling.WindowTiles(info, limit, uint64(c.chunk)*c.keyBytes, uint64(c.chunk)*valBytes)
	slots := tiling.WindowTiles(info, limit, c.keyBytes, valBytes)
	switch {
	case procs == 0 || slots == 0:
		return invalid("%s, and no window of whole chunks of %d keys at aligned offsets fits one", past, c.chunk)
	case align.CeilDiv(n, uint64(slots)) > tiling.MaxOutWindows:
		return invalid("%s: past it the sort binds each output as at most %d windows of %d keys, %d keys in all",
			past, tiling.MaxOutWindows, slots, tiling.MaxOutWindows*uint64(slots))
	case info.MaxPerStageStorageBuffers != 0 && info.MaxPerStageStorageBuffers < wideStorageBuffers:
		return invalid("%s: past it the scatter binds %d storage buffers; the device allows %d (maxPerStageDescriptorStorageBuffers)",
			past, wideStorageBuffers, info.MaxPerStageStorageBuffers)
	case uint64(c.procs)*uint64(c.chunk) > math.MaxUint32:
		return invalid("%s: the last of %d chunks of %d keys would end past slot 2^32-1", past, c.procs, c.chunk)
	}
	c.winProcs, c.winSlots, c.outWindows = evenWindows(info, c.procs, procs, uint64(c.chunk)*c.keyBytes, uint64(c.chunk)*valBytes), slots, uint32(align.CeilDiv(n, uint64(slots)))
	return nil
}

// evenWindows returns the processors per window that cut procs into as
// few windows as most per window does, of nearly equal size, with every
// window's offsets aligned (keyBytes and valBytes per processor): the
// windows' dispatches run one after the other, so a last window of a few
// processors would leave the device nearly idle through its dispatch.
func evenWindows(info vk.DeviceInfo, procs, most uint32, keyBytes, valBytes uint64) uint32 {
	windows := align.CeilDiv(uint64(procs), uint64(most))
	a := max(uint64(info.MinStorageBufferOffsetAlignment), 1)
	for w := align.CeilDiv(uint64(procs), windows); w < uint64(most); w++ {
		if w*keyBytes%a == 0 && w*valBytes%a == 0 {
			return uint32(w)
		}
	}
	return most
}

// checkKeys checks the key type, the bit range and the key count, and
// returns the shaders' KEY_TYPE and the bits [begin, end) to sort by.
// Keys past one binding are the three phases' (windows) and the single
// pass refuses them (onesweepNot).
func checkKeys(info vk.DeviceInfo, n uint64, s Sort) (code, begin, end uint32, err error) {
	code, ok := keyCode(s.Key)
	if !ok {
		return 0, 0, 0, invalid("radix: keys of type %v: the key type must be u32, i32, f32 or u64", s.Key)
	}
	width := 8 * s.Key.Size()
	begin, end = s.BeginBit, s.EndBit
	if end == 0 {
		end = width
	}
	if end > width || begin > end {
		return 0, 0, 0, invalid("radix: bit range [%d, %d) of a %d-bit key", s.BeginBit, s.EndBit, width)
	}
	if n > MaxElements {
		return 0, 0, 0, invalid("radix: %d keys: at most %d", n, uint64(MaxElements))
	}
	return code, begin, end, nil
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
// device's defaults where they are 0, and checks their bounds. The single
// pass's default keys per lane are at most 8: it was measured and tuned
// there (its ranking holds more per key than the scatter's).
func resolveDigits(info vk.DeviceInfo, s Sort) (bits, kpl uint32, err error) {
	defBits, defKPL := defaultDigits(info, s)
	bits, kpl = s.DigitBits, s.KeysPerLane
	if bits == 0 {
		bits = defBits
	}
	if bits > 8 {
		return 0, 0, invalid("radix: %d digit bits: 1 to 8", bits)
	}
	if kpl == 0 {
		kpl = defKPL
		if s.Path == vkcompact.PathSinglePass {
			kpl = min(kpl, 8)
		}
	}
	if kpl > MaxKeysPerLane {
		return 0, 0, invalid("radix: %d keys per lane: at most %d", kpl, MaxKeysPerLane)
	}
	return bits, kpl, nil
}

// defaultDigits is the digit width and keys per lane of a sort on a
// device. On a GPU, 32-bit keys alone take 6-bit digits (passes of 6, 6,
// 5, 5, 5, 5 bits) and 20 keys per lane, pairs 6-bit digits with held
// tails and 16 keys per lane: the fastest measured on the H100 at 2^28
// (BENCHMARKS-history.md, "Radix sort: prefetching rounds and balanced digits"
// and "Radix sort: held run tails, 6-bit pairs"); more keys per lane need
// more registers and were slower. 64-bit keys keep 4-bit digits and 8
// keys per lane, unmeasured. On a CPU device 8-bit digits: half the
// passes over memory. fewerRounds lowers the keys per lane for inputs
// too small to fill the device with rounds.
func defaultDigits(info vk.DeviceInfo, s Sort) (bits, kpl uint32) {
	switch {
	case info.CPU():
		return 8, 4
	case s.Key == vkcompact.Uint64:
		return 4, 8
	case s.Values:
		return 6, 16
	}
	return 6, 20
}

// defaultWorkgroup is 256 invocations, halved (down to the largest
// subgroup size) while the scatter's shared memory does not fit: its
// per-subgroup digit counts, its stage of one round's keys, the held
// tails where asked, and a forced fused count's counters.
func defaultWorkgroup(info vk.DeviceInfo, kpl, stage, bits uint32, held, forcedFused bool) uint32 {
	wg := uint32(256)
	for ; wg > info.MaxSubgroupSize; wg /= 2 {
		need := newScatterShape(info, wg, kpl, stage).shared(bits, held)
		if forcedFused {
			need += nextCounters(bits)
		}
		if need <= info.MaxSharedMemory {
			break
		}
	}
	return max(wg, info.MaxSubgroupSize)
}

// fewerRounds returns 8 keys per lane in place of a larger default where
// rounds of the default would be too few to give every processor the
// device holds one (smaller rounds were faster there on the H100:
// BENCHMARKS-history.md), and kpl otherwise.
func fewerRounds(info vk.DeviceInfo, n uint64, o Options, wg, kpl uint32) uint32 {
	if o.KeysPerLane == 0 && kpl > 8 && n < defaultProcessors(info, wg)*uint64(wg)*uint64(kpl) {
		return 8
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

// autoHold is TailsAuto's choice of held tails: for keys with values on a
// GPU, on the three phases, where the carried keys fit the scatter's
// shared memory and no pass but the last (which counts nothing) loses its
// fused counts to them. On the H100 they made pairs faster and keys alone
// slower (BENCHMARKS-history.md, "Radix sort: held run tails").
func autoHold(info vk.DeviceInfo, s Sort, sh scatterShape, d digits) bool {
	if s.Tails != TailsAuto || !s.Values || info.CPU() || s.Path == vkcompact.PathSinglePass || sh.shared(d.bits, true) > info.MaxSharedMemory {
		return false
	}
	for i := uint32(0); i+1 < d.passes; i++ {
		if w := d.width(i); sh.fitsNext(w, false, info.MaxSharedMemory) && !sh.fitsNext(w, true, info.MaxSharedMemory) {
			return false
		}
	}
	return true
}

// fusedCounts decides Options.Counts: whether scatters count the next
// pass's digits. CountsFused takes them wherever there are two passes,
// and is refused where they do not apply; CountsAuto takes them where
// some pass's counters fit (fusable) and a chunk holds at least 16 * 4^w
// keys for the widest such pass, w bits (fused counts were slower with
// smaller chunks on the H100: the counters' atomic adds cost more than a
// count phase; BENCHMARKS-history.md).
func fusedCounts(info vk.DeviceInfo, o Options, sh scatterShape, d digits, fits nextFits, carry, onesweep bool, chunk uint64) (bool, error) {
	if o.Counts > CountsFused {
		return false, invalid("radix: unknown counts mode %d", o.Counts)
	}
	var whyNot string
	switch need := sh.shared(d.bits, carry) + nextCounters(d.bits); {
	case onesweep:
		whyNot = "the single pass has no count phases"
	case d.bits > MaxFusedBits:
		whyNot = fmt.Sprintf("%d-bit digits: at most %d", d.bits, MaxFusedBits)
	case need > info.MaxSharedMemory:
		whyNot = fmt.Sprintf("the scatter would need %d bytes of shared memory; the device has %d", need, info.MaxSharedMemory)
	}
	switch {
	case o.Counts == CountsFused && whyNot != "":
		return false, invalid("radix: fused counts do not apply: %s", whyNot)
	case o.Counts == CountsFused:
		return d.passes >= 2, nil
	case o.Counts == CountsSeparate || onesweep || d.bits > MaxFusedBits || d.passes < 2:
		return false, nil
	}
	widest := uint32(0)
	for i := range d.passes {
		if fits.fusable(d, i) {
			widest = max(widest, d.width(i))
		}
	}
	return widest > 0 && chunk >= 16<<(2*widest), nil
}

// loopIters counts the loop iterations of one invocation of the scatter,
// inner loops included: perRound for each round of its chunk, fixed once.
type loopIters struct{ perRound, fixed uint64 }

// scatterIters counts the scatter's loop iterations for digits of bits
// bits: per round the ranking, the scan of run lengths and the write-out;
// with held tails the carried keys' copy into the stage and their
// write-out; with fused counts the zeroing and final flush of the
// counters (fixed), and per round (a run crossing its chunk boundary
// taken as every round) a flush, a recount over the stage (and the
// carried keys) and an update per digit.
func scatterIters(sh scatterShape, bits uint32, carry, fused bool) loopIters {
	wg, buckets := uint64(sh.wg), uint64(1)<<bits
	it := loopIters{perRound: 4 + align.CeilDiv(buckets, wg)*uint64(1+sh.subgroups) + uint64(sh.kpl)*uint64(5+bits) + uint64(sh.subgroups)}
	if carry {
		it.perRound += align.CeilDiv(buckets*TailSector, wg) + align.CeilDiv(buckets*(TailSector-1), wg)
	}
	if fused {
		perCounters := align.CeilDiv(buckets*buckets, wg)
		it.fixed = 2 * perCounters
		it.perRound += perCounters + uint64(sh.kpl) + align.CeilDiv(buckets, wg)
		if carry {
			it.perRound += align.CeilDiv(buckets*(TailSector-1), wg)
		}
	}
	return it
}

// maxChunk is the longest chunk, in whole rounds, whose loop iterations
// stay under pipeline.LoopBudget: lavapipe ends a shader's loops after
// 65535 iterations (its guard against endless loops), which silently lost
// the end of a long chunk's output at subgroup size 4. Longer inputs get
// more processors instead.
func maxChunk(it loopIters, round uint64) uint64 {
	return max((pipeline.LoopBudget-min(it.fixed, pipeline.LoopBudget/2))/it.perRound, 1) * round
}

// maxOnesweepKeys bounds the single pass: its status words hold counts
// below 2^30.
const maxOnesweepKeys = 1<<30 - 1

// onesweepNot says why the single pass does not apply, or returns ""
// where it does.
func onesweepNot(info vk.DeviceInfo, n, keyBytes uint64, sh scatterShape, d digits, status tileStatus) string {
	wg := sh.wg
	switch {
	case n > maxOnesweepKeys:
		return fmt.Sprintf("%d keys: its status words hold counts below 2^30, so at most %d keys", n, maxOnesweepKeys)
	case n*keyBytes > bindingLimit(info):
		return fmt.Sprintf("%d keys of %d bytes exceed one binding (%d bytes, maxStorageBufferRange): past it only the three phases sort, in windows",
			n, keyBytes, bindingLimit(info))
	case wg < d.buckets():
		return fmt.Sprintf("a workgroup of %d invocations is smaller than the %d digits of %d bits: each digit needs its own invocation", wg, d.buckets(), d.bits)
	case status.bytes() > uint64(info.MaxStorageBufferRange):
		return fmt.Sprintf("its tile status (%d bytes for %d tiles of %d-bit digits) exceeds the device's maxStorageBufferRange (%d bytes)",
			status.bytes(), status.tiles, d.bits, info.MaxStorageBufferRange)
	case sh.onesweepShared(d.bits) > info.MaxSharedMemory:
		return fmt.Sprintf("a workgroup of %d (%d subgroups) with %d-bit digits and %d keys per lane needs %d bytes of shared memory; the device has %d",
			wg, sh.subgroups, d.bits, sh.kpl, sh.onesweepShared(d.bits), info.MaxSharedMemory)
	}
	return ""
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

// fuses reports whether three-phase pass i's scatter counts pass i+1's
// digits (so that pass i+1 has no count phase): with fused counts, where
// its counters fit (nextFits.fusable).
func (c *config) fuses(i uint32) bool { return c.fused && c.nextFits.fusable(c.digits, i) }

// counted reports whether pass i has a count phase of its own.
func (c *config) counted(i uint32) bool { return i == 0 || !c.fuses(i-1) }

// tuning reports the choices as Plan.Tuning does.
func (c *config) tuning() Tuning {
	t := Tuning{Path: vkcompact.PathThreePhase, Processors: c.procs, Chunk: c.chunk, WorkgroupSize: c.wg, KeysPerLane: c.kpl, DigitBits: c.bits,
		Passes: c.passes, FusedCounts: c.fused, HeldTails: c.carry, WindowProcessors: c.winProcs, OutWindows: c.outWindows}
	if c.onesweep {
		t.Path, t.Tiles, t.Tile, t.Spins, t.SelfReset = vkcompact.PathSinglePass, c.status.tiles, c.status.tile, c.spins, c.selfReset
	}
	return t
}
