package radix

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/vk"
)

// Shared memory: what the kernels declare, so that a plan checks it
// against the device's maxComputeSharedMemorySize before creating them.

// scatterShape is what sizes the three phases' scatter's shared memory
// (radix_scatter.glsl): its workgroup, its subgroups at the smallest
// subgroup size, its keys per lane, and its stage words per key (keys,
// the high words of 64-bit keys, values).
type scatterShape struct {
	wg, subgroups, kpl, stageWords uint32
}

func newScatterShape(info vk.DeviceInfo, wg, kpl, stageWords uint32) scatterShape {
	return scatterShape{wg: wg, subgroups: wg / max(info.MinSubgroupSize, 1), kpl: kpl, stageWords: stageWords}
}

// stageWords is the words one key takes in the scatter's stage: the key's
// (two for 64-bit keys) and its value's.
func stageWords(s Sort) uint32 {
	w := uint32(1)
	if s.Elem.Key == vkcompact.Uint64 {
		w++
	}
	if s.Values {
		w++
	}
	return w
}

// shared returns the scatter's shared memory in bytes for digits of w
// bits: two counts per subgroup and digit, three words per digit, two per
// subgroup, the stage of one round's keys (and values; an unused stage
// array takes one word), and the four arrays of the fused counts, one
// word each without them. With held tails (carry) the stage grows by
// TailSector-1 keys per digit, and the carried keys take TailSector words
// per digit and stage array (one word for an unused one) and three words
// per digit.
func (sh scatterShape) shared(w uint32, carry bool) uint32 {
	b := uint32(1) << w
	need := 2*sh.subgroups*b + 3*b + 2*sh.subgroups + sh.wg*sh.kpl*sh.stageWords + 3 - sh.stageWords + 4
	if carry {
		need += 3*b + TailSector*b*sh.stageWords + 3 - sh.stageWords + (TailSector-1)*b*sh.stageWords
	}
	return 4 * need
}

// onesweepShared returns the single pass's shared memory in bytes for
// digits of w bits and keys of keyWords 32-bit words (radix_onesweep's
// declarations): one union of a count per subgroup and digit and the
// stage of one tile's keys (the values go through it after the keys),
// two words per digit, three words, and two words per subgroup (the digit
// scan's sums and the row scan's, which only self-reset allocates:
// counted always).
func (sh scatterShape) onesweepShared(w, keyWords uint32) uint32 {
	b := uint32(1) << w
	need := max(sh.subgroups*b, sh.wg*sh.kpl*keyWords) + 2*b + 3 + 2*sh.subgroups
	return 4 * need
}

// nextCounters is the shared memory that fused counts add to a scatter
// for digits of w bits: 4^w counters and three words per digit, in place
// of the four single words.
func nextCounters(w uint32) uint32 {
	b := uint32(1) << w
	return 4 * (b*b + 3*b - 4)
}

// fitsNext reports whether the scatter for digits of w bits fits the next
// pass's counters beside its own shared memory in limit bytes.
func (sh scatterShape) fitsNext(w uint32, carry bool, limit uint32) bool {
	return w <= MaxFusedBits && sh.shared(w, carry)+nextCounters(w) <= limit
}

// nextFits says, by digit width, whether a scatter of that width fits the
// next pass's counters.
type nextFits [MaxFusedBits + 1]bool

func (sh scatterShape) nextFits(carry bool, limit uint32) nextFits {
	var f nextFits
	for w := uint32(1); w <= MaxFusedBits; w++ {
		f[w] = sh.fitsNext(w, carry, limit)
	}
	return f
}

// fusable reports whether three-phase pass i's scatter can count pass
// i+1's digits: the next pass is no wider (so that its digits fit the
// scatter's BUCKETS x BUCKETS counters) and the counters fit. At 2^28
// pairs on the H100 the 6-bit passes do not, the 5-bit ones do.
func (f nextFits) fusable(d digits, i uint32) bool {
	w := d.width(i)
	return i+1 < d.passes && w <= MaxFusedBits && d.width(i+1) <= w && f[w]
}

// tileStatus sizes the single pass's tiles of tile keys (a workgroup's
// round) and its status binding: a tile counter per pass and input
// window (pass i's in window w at i * windows + w), and a word after them
// (rounded up to 64 words), then two regions of regionWords, a word per
// tile and digit, the current pass's and the next's, which the current
// pass zeroes.
type tileStatus struct {
	tile, tiles               uint32
	windows                   uint32
	counterWords, regionWords uint64
}

func newTileStatus(n uint64, wg, kpl uint32, d digits, windows uint32) tileStatus {
	t := tileStatus{tile: wg * kpl, windows: windows}
	t.tiles = uint32(max(align.CeilDiv(n, uint64(t.tile)), 1))
	t.counterWords = align.Up(uint64(d.passes)*uint64(windows)+1, 64)
	t.regionWords = uint64(t.tiles) * uint64(d.buckets())
	return t
}

// counter is the word of pass i's tile counter in input window w.
func (t tileStatus) counter(i, w uint32) uint32 { return i*t.windows + w }

// bytes is the size of the status binding.
func (t tileStatus) bytes() uint64 { return 4 * (t.counterWords + 2*t.regionWords) }

// region is the first word of pass i's status region.
func (t tileStatus) region(i uint32) uint64 { return t.counterWords + uint64(i%2)*t.regionWords }

// scratchLayout places a plan's scratch (Buffers.Scratch). Offsets are
// bytes, each rounded up to 256 (a multiple of every device's
// minStorageBufferOffsetAlignment); b = 2^DigitBits digits, P processors,
// n keys, k bytes a key. Each region is bound at its own offset.
//
//	three phases                               single pass
//	0         +--------------------------+    0          +--------------------------+
//	          | hist: b x P counts,      |               | hist: per pass, b digit  |
//	          |   digit-major (d*P + q), |               |   counts (pass*b + d),   |
//	          |   scanned in place; then |               |   scanned into first     |
//	          |   b digit totals         |               |   slots (or by each pass |
//	          |   histWords = b*(P+1)    |               |   itself: self-reset);   |
//	hist2Off  +--------------------------+               |   then a total per pass  |
//	          |                          |               |   histWords = (b+1)*pass |
//	          | hist2: the same, counted |    statusOff  +--------------------------+
//	          |   by the scatter for the |               | status: a tile counter   |
//	          |   next pass (fused only) |               |   per pass (64 words at  |
//	          +--------------------------+               |   least), then regions   |
//	                                                     |   0 and 1: a word per    |
//	                                                     |   tile and digit,        |
//	                                                     |   alternating by pass    |
//	keysOff   +--------------------------+    keysOff    +--------------------------+
//	          | keys: n*k bytes, the     |               | keys: n*k bytes          |
//	          |   other half of the      |               |                          |
//	          |   passes' ping-pong      |               |                          |
//	valsOff   +--------------------------+    valsOff    +--------------------------+
//	          | values: 4n bytes (pairs) |               | values: 4n bytes (pairs) |
//	size      +--------------------------+    size       +--------------------------+
//
// A three-phase pass reads its counts from one hist region; with fused
// counts its scatter writes the next pass's into the other (zeroed
// before), and the two swap.
type scratchLayout struct {
	histWords uint64 // words of the hist region(s) at 0 (and hist2Off)
	hist2Off  uint64 // fused counts: the second hist region
	statusOff uint64 // the single pass: the status binding
	keysOff   uint64
	valsOff   uint64
	size      uint64 // Plan.ScratchSize
}

func threePhaseLayout(n, keyBytes uint64, values bool, buckets, procs uint32, fused bool) scratchLayout {
	l := scratchLayout{histWords: uint64(buckets) * uint64(procs+1)}
	l.keysOff = align.Up(l.histWords*4, 256)
	if fused {
		l.hist2Off = l.keysOff
		l.keysOff = align.Up(l.hist2Off+l.histWords*4, 256)
	}
	return l.withKeys(n, keyBytes, values)
}

func onesweepLayout(n, keyBytes uint64, values bool, d digits, status tileStatus) scratchLayout {
	l := scratchLayout{histWords: uint64(d.buckets()+1) * uint64(d.passes)}
	l.statusOff = align.Up(l.histWords*4, 256)
	l.keysOff = align.Up(l.statusOff+status.bytes(), 256)
	return l.withKeys(n, keyBytes, values)
}

// withKeys places the keys' and values' half of the ping-pong at keysOff.
func (l scratchLayout) withKeys(n, keyBytes uint64, values bool) scratchLayout {
	l.valsOff = l.keysOff + align.Up(n*keyBytes, 256)
	l.size = l.valsOff
	if values {
		l.size += align.Up(n*4, 256)
	}
	return l
}
