package radix

import (
	"github.com/vkcompact/vkcompact"
	"math/bits"

	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/vk"
)

// segDigitBits is the block path's digit: 16 counters per invocation.
const segDigitBits = 4

// segMaxKeysPerLane bounds the block path's keys per invocation.
const segMaxKeysPerLane = MaxKeysPerLane

// segBlockSpec is segsort_block's specialization constants.
type segBlockSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	keySpec
	Pairs        bool   `glsl:"PAIRS"`
	MaxSubgroups uint32 `glsl:"MAX_SUBGROUPS"` // per workgroup, at the smallest subgroup size
	Segs         uint32 `glsl:"SEGS"`          // segments per workgroup
	SegBits      uint32 `glsl:"SEG_BITS"`      // bits of Segs-1
}

// segBlockPush is segsort_block's push constants.
type segBlockPush struct {
	N        uint32 `glsl:"n"`
	Segments uint32 `glsl:"nSeg"`
	Begin    uint32 `glsl:"begin"`  // the first bit sorted
	End      uint32 `glsl:"end"`    // the bit after the last
	SkipOn   uint32 `glsl:"skipOn"` // the automatic path: return where the skip word is not 0
	Whole    uint32 `glsl:"whole"`  // radix.Plan's one-workgroup sort: 1 keys [0, n), 2 + w up to the count at word w of Offsets
}

// segHeadsSpec is segsort_heads' specialization constants.
type segHeadsSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
}

// segHeadsPush is segsort_heads' push constants.
type segHeadsPush struct {
	N        uint32 `glsl:"n"`
	Segments uint32 `glsl:"nSeg"`
	CountOn  uint32 `glsl:"countOn"` // the automatic path: take the key count from the count word
}

// segLongestSpec is segsort_longest's specialization constants.
type segLongestSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
}

// segLongestPush is segsort_longest's push constants.
type segLongestPush struct {
	N        uint32 `glsl:"n"`
	Segments uint32 `glsl:"nSeg"`
	Capacity uint32 `glsl:"capacity"` // the block path's longest segment
}

// segsort_block's and segsort_heads' storage-buffer bindings.
type (
	segBlockBindings struct {
		KeysIn, ValsIn, Offsets vk.Range `use:"read"`
		KeysOut, ValsOut        vk.Range `use:"write"`
		Skip                    vk.Range `use:"read"`
	}
	segHeadsBindings struct {
		Indices, Offsets vk.Range `use:"read"`
		Heads            vk.Range `use:"write"`
		GpuCount         vk.Range `use:"read"`
	}
	segLongestBindings struct {
		Offsets vk.Range `use:"read"`
		Count   vk.Range `use:"readwrite"`
	}
)

var (
	segBlockKernel   = newKernel[segBlockPush, segBlockSpec, segBlockBindings]("segsort_block", fullSubgroups)
	segHeadsKernel   = newKernel[segHeadsPush, segHeadsSpec, segHeadsBindings]("segsort_heads", anySubgroupSize)
	segLongestKernel = newKernel[segLongestPush, segLongestSpec, segLongestBindings]("segsort_longest", anySubgroupSize)
)

// segConfig is a segmented plan's tuning and sizes, a pure function of
// the device's information and the request (tuneSegmented).
type segConfig struct {
	sort           SegmentedSort
	n, segments    uint32
	code, keyBytes uint32
	begin, end     uint32
	block          bool
	// auto: MaxSegment 0: both paths are recorded, and the GPU picks
	// (segsort_longest): the block path (one segment a workgroup, of
	// the table's shape) where no segment is longer than its capacity.
	auto               bool
	wg, kpl, subgroups uint32 // the block path's (wg also the general path's small kernels')
	segs, segBits      uint32 // the block path's segments per workgroup and the bits of segs-1
	headBits           uint32
	// The general path's scratch (SegmentedPlan's diagram).
	idxOff, headsOff, sortOff uint64
	countOff                  uint64 // auto: the count word, after the sorts' scratch (NewSegmentedPlan)
}

func (c *segConfig) tuning() SegmentedTuning {
	if c.auto {
		return SegmentedTuning{Auto: true, WorkgroupSize: c.wg, KeysPerLane: c.kpl, Capacity: c.wg * c.kpl, SegmentsPerWorkgroup: 1,
			HeadBits: c.headBits, SortedKeyBits: c.end - c.begin}
	}
	if c.block {
		return SegmentedTuning{Block: true, WorkgroupSize: c.wg, KeysPerLane: c.kpl, Capacity: c.wg * c.kpl, SegmentsPerWorkgroup: c.segs}
	}
	return SegmentedTuning{WorkgroupSize: c.wg, HeadBits: c.headBits, SortedKeyBits: c.end - c.begin}
}

// tuneSegmented checks s for n keys in segments segments on a device with
// info and picks the path and its shape.
func tuneSegmented(info vk.DeviceInfo, n uint64, segments uint32, s SegmentedSort) (segConfig, error) {
	if err := plainKeys(s.Elem, "SegmentedSort.Elem"); err != nil {
		return segConfig{}, err
	}
	s.Elem.Key = s.Elem.Key.OrUint32()
	if err := checkSegmentedBits(s); err != nil {
		return segConfig{}, err
	}
	code, begin, end, err := checkKeys(info, n, Sort{Elem: vkcompact.Plain(s.Elem.Key), BeginBit: s.BeginBit, EndBit: s.EndBit})
	if err != nil {
		return segConfig{}, err
	}
	kb := uint64(s.Elem.Key.Size())
	if n*kb > uint64(info.MaxStorageBufferRange) {
		return segConfig{}, invalid("radix: segmented sort of %d keys of %d bytes: they exceed one binding's %d bytes (maxStorageBufferRange)", n, kb, info.MaxStorageBufferRange)
	}
	if words := uint64(segments) + 1; words*4 > uint64(info.MaxStorageBufferRange) {
		return segConfig{}, invalid("radix: %d segments: their offsets exceed one binding's %d bytes (maxStorageBufferRange)", segments, info.MaxStorageBufferRange)
	}
	c := segConfig{sort: s, n: uint32(n), segments: segments, code: code, keyBytes: uint32(kb), begin: begin, end: end,
		wg: min(256, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])}
	if s.MaxSegment > 0 && !s.General {
		if segs, wg, kpl, ok := segGroupShape(info, s.MaxSegment, segStageWords(s)); ok {
			c.block, c.wg, c.kpl, c.segs, c.segBits = true, wg, kpl, segs, uint32(bits.Len32(segs-1))
		} else if wg, kpl, ok := segBlockShape(info, s.MaxSegment, segStageWords(s)); ok {
			c.block, c.wg, c.kpl, c.segs = true, wg, kpl, 1
		}
		if c.block {
			c.subgroups = c.wg / max(info.MinSubgroupSize, 1)
			return c, nil
		}
	}
	if s.MaxSegment == 0 && !s.General && n > 0 && segments > 0 {
		t := tuningFor(info).segBlock
		if wg, kpl, ok := segBlockShape(info, t.workgroup*t.keysPerLane, segStageWords(s)); ok {
			c.auto, c.wg, c.kpl, c.segs = true, wg, kpl, 1
			c.subgroups = c.wg / max(info.MinSubgroupSize, 1)
		}
	}
	c.headBits = headBits(n)
	a := max(info.MinStorageBufferOffsetAlignment, 4)
	c.idxOff = align.Up(n*kb, a)
	c.headsOff = align.Up(c.idxOff+4*n, a)
	c.sortOff = align.Up(c.headsOff+4*n, a)
	return c, nil
}

// checkSegmentedBits checks s's bit range against its key's width, and
// names the end a zero EndBit stands for (the key's width).
func checkSegmentedBits(s SegmentedSort) error {
	if _, ok := keyCode(s.Elem.Key); !ok {
		return nil // checkKeys names the type
	}
	width := 8 * s.Elem.Key.Size()
	end, note := s.EndBit, ""
	if end == 0 {
		end, note = width, " (EndBit 0: the key's width)"
	}
	if end > width || s.BeginBit > end {
		return invalid("radix: segmented sort: bit range [%d, %d)%s of a %d-bit key: want BeginBit <= EndBit <= %d", s.BeginBit, end, note, width, width)
	}
	return nil
}

// segStageWords is the shared-memory words the block path stages per
// key: the key's (two for 64-bit keys) and its value's.
func segStageWords(s SegmentedSort) uint32 {
	return stageWords(Sort{Elem: vkcompact.Plain(s.Elem.Key), Values: s.Values})
}

// segBlockShared is segsort_block's shared memory in bytes for segs
// segments per workgroup: the stage of wg*kpl keys (and values, and with
// several segments their indices; an unused array takes one word) and
// the 2^segDigitBits 16-bit counters per invocation, both padded by a
// word in 32, a word per subgroup, one more, and segs words.
func segBlockShared(info vk.DeviceInfo, wg, kpl, stage, segs uint32) uint32 {
	pad := func(w uint32) uint32 { return w + w/32 }
	if segs > 1 {
		stage++
	}
	counters := wg << (segDigitBits - 1)
	return 4 * (pad(wg*kpl)*stage + 4 - stage + pad(counters) + wg/max(info.MinSubgroupSize, 1) + 1 + segs)
}

// segMaxGroup bounds the segments one workgroup sorts together (8 bits
// of segment index: two more passes).
const segMaxGroup = 256

// segGroupShape returns the block path's shape for segments short enough
// that several share a workgroup: the table's workgroup and keys per
// invocation (deviceTuning.segBlock) fitted to the device as
// segBlockShape fits them, holding segs = capacity / maxSeg segments (at
// most segMaxGroup), where that is at least 4 (fewer, and the segment
// index's passes would cost more than the workgroups they save). ok is
// false where it is not.
func segGroupShape(info vk.DeviceInfo, maxSeg, stage uint32) (segs, wg, kpl uint32, ok bool) {
	t := tuningFor(info).segBlock
	capacity := t.workgroup * t.keysPerLane
	if uint64(maxSeg)*4 > uint64(capacity) {
		return 0, 0, 0, false
	}
	segs = min(capacity/maxSeg, segMaxGroup)
	if wg, kpl, ok = segBlockShape(info, capacity, stage+1); !ok {
		return 0, 0, 0, false
	}
	segs = min(segs, wg*kpl/maxSeg)
	if segs < 4 || segBlockShared(info, wg, kpl, stage, segs) > info.MaxSharedMemory {
		return 0, 0, 0, false
	}
	return segs, wg, kpl, true
}

// segBlockShape returns the block path's workgroup and keys per
// invocation for segments of up to maxSeg keys: the table's shape
// (deviceTuning.segBlock), its workgroup halved (down to the largest
// subgroup size) while half still holds maxSeg keys at its keys per
// invocation, or doubled (up to the device's limit) while it cannot hold
// them at segMaxKeysPerLane; then just enough keys per invocation. Where
// the stage and counters do not fit shared memory, smaller workgroups
// with more keys each are tried. ok is false where no shape holds maxSeg
// keys: the general path then sorts.
func segBlockShape(info vk.DeviceInfo, maxSeg, stage uint32) (wg, kpl uint32, ok bool) {
	t := tuningFor(info).segBlock
	sg := max(info.MaxSubgroupSize, 1)
	most := min(info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])
	wg = max(min(t.workgroup, most), sg)
	for wg/2 >= sg && uint64(wg/2)*uint64(t.keysPerLane) >= uint64(maxSeg) {
		wg /= 2
	}
	for uint64(wg)*segMaxKeysPerLane < uint64(maxSeg) && wg*2 <= most {
		wg *= 2
	}
	for ; wg >= sg; wg /= 2 {
		kpl = uint32(align.CeilDiv(uint64(maxSeg), uint64(wg)))
		if kpl > segMaxKeysPerLane || maxSeg > segMaxCapacity {
			return 0, 0, false
		}
		if wg%sg == 0 && segBlockShared(info, wg, kpl, stage, 1) <= info.MaxSharedMemory {
			return wg, kpl, true
		}
	}
	return 0, 0, false
}

// SegmentCapacity returns the longest segment the block path sorts for s
// on a device with info (s.MaxSegment is ignored): a SegmentedSort whose
// MaxSegment is from 1 to this takes the block path.
func SegmentCapacity(info vk.DeviceInfo, s SegmentedSort) uint32 {
	s.Elem.Key = s.Elem.Key.OrUint32()
	if _, ok := keyCode(s.Elem.Key); !ok {
		return 0
	}
	stage := segStageWords(s)
	// Linear, not a bisection: the shapes need not fit monotonically.
	m := uint32(0)
	for m < segMaxCapacity {
		if _, _, ok := segBlockShape(info, m+1, stage); !ok {
			break
		}
		m++
	}
	return m
}

// segMaxCapacity bounds the block path's segments: no half of its 16-bit
// counter words may reach 2^16.
const segMaxCapacity = 1 << 15
