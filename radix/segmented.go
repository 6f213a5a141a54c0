package radix

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"math/bits"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// SegmentedSort describes a sort of keys, or key-value pairs, within
// segments: segment s is keys [Offsets[s], Offsets[s+1]) and is sorted on
// its own, as CUB's DeviceSegmentedRadixSort does. The sort is stable
// within each segment: equal keys keep their input order.
//
// The offsets live on the GPU (SegmentedBuffers.Offsets), so a plan
// cannot check them: they are read as uint32 (int32 offsets that are not
// negative have the same bits) and clamped to n, and a segment whose end
// is below its start is empty. Keys before Offsets[0], and from
// Offsets[segments] on, are copied to the same positions of the output.
// Offsets that decrease make segments overlap: the output is then
// unspecified (on the general path it is still a permutation of the
// input), but nothing is written outside the output ranges.
type SegmentedSort struct {
	// Elem is the keys: plain keys of type Uint32, Int32, Float32 or
	// Uint64 (vkcompact.Plain(t); the zero Elem is Uint32), ordered as
	// Sort's.
	Elem vkcompact.Elem
	// Values sorts pairs: a uint32 value per key moves with its key.
	Values bool
	// Descending sorts each segment from its largest key; equal keys
	// still keep their input order.
	Descending bool
	// BeginBit and EndBit select the bits of the order-mapped key to sort
	// by, as Sort's do.
	BeginBit, EndBit uint32
	// MaxSegment is the caller's bound on the longest segment, 0 where it
	// is not known. Where it is at most the block path's capacity on the
	// device (SegmentCapacity), each segment is sorted by one workgroup in
	// shared memory (several short ones by one together); where it is
	// larger, the general path sorts every key with two radix sorts;
	// where it is 0, the GPU picks between the two (SegmentedTuning.Auto):
	// a dispatch finds whether any segment is longer than the block
	// path's table shape holds (1024 keys), and the other path's
	// dispatches then find nothing to do. On the block
	// path, a segment longer than the plan's capacity
	// (SegmentedTuning.Capacity: a promise broken) is copied to the output
	// unsorted, and a longer segment than promised but within it is
	// sorted.
	MaxSegment uint32
	// General forces the general path whatever MaxSegment says. (It is
	// not Options.Path: Path picks how a sort runs, General which
	// strategy the segments take.)
	General bool
	// Options tune the general path's sort of the keys (its sort by
	// segment, of segment numbers, takes the defaults); the block path
	// has its own shape.
	Options
}

// SegmentedBuffers are the ranges a recorded segmented sort uses. Every
// offset must be a multiple of the device's
// minStorageBufferOffsetAlignment, and the outputs must overlap no input.
type SegmentedBuffers struct {
	Keys   vk.Range // n keys, read
	Values vk.Range // with SegmentedSort.Values: n uint32 values, read
	// Offsets holds segments+1 uint32 words: segment s is keys
	// [Offsets[s], Offsets[s+1]).
	Offsets vk.Range
	// KeysOut and ValuesOut receive the keys and values sorted within
	// their segments.
	KeysOut, ValuesOut vk.Range
	Scratch            vk.Range // SegmentedPlan.ScratchSize bytes (none on the block path)
	// There is no Count: of the operations' Records this one alone takes
	// no element count from the GPU (package vkcompact, "Counts from the
	// GPU"). Its segments come from the GPU already, and it reads and
	// writes all n keys, those outside the segments copied through.
}

// SegmentedPlan is a segmented sort of n keys in a number of segments,
// checked, tuned and sized for one context. It is immutable and safe for
// concurrent use.
//
// The block path (segsort_block) runs one workgroup per segment, which
// stages its segment in shared memory and sorts it there with a stable
// LSD radix sort of 4-bit digits, reading and writing each key once.
// Short segments (at most a quarter of the workgroup's keys) share a
// workgroup: it stages all its segments' keys with each one's segment
// index and sorts by key, then by that index.
//
// The general path sorts all the keys with the package's radix sort,
// stably, with their indices as values; gives every sorted key the start
// of its segment as a second key (segsort_heads: a binary search of the
// offsets; a key outside the segments gets its own index); sorts those
// stably with the indices as values, which orders the keys by segment
// and by key inside it; and gathers the keys (and values) in that order.
// Its scratch:
//
//	| keys: n keys | indices: n uint32 | heads: n uint32 | the sorts' scratch (the larger) |
type SegmentedPlan struct {
	ctx      *vk.Context
	cfg      segConfig
	block    pipeline.TypedPipeline[segBlockPush, segBlockBindings]
	longest  pipeline.TypedPipeline[segLongestPush, segLongestBindings]
	byKey    *Plan // keys with their indices, in place
	byHead   *Plan // heads with the indices, in place
	extract  pipeline.TypedPipeline[structPush, structKeysBindings]
	heads    pipeline.TypedPipeline[segHeadsPush, segHeadsBindings]
	gatherK  pipeline.TypedPipeline[structPush, structGatherBindings]
	gatherV  pipeline.TypedPipeline[structPush, structGatherBindings]
	scratchN uint64
}

// NewSegmentedPlan checks s for n keys in segments segments on ctx, picks
// its path and tuning (a pure function of the device's information, n,
// segments and s) and creates its pipelines. The keys (and values) must
// fit one binding.
func NewSegmentedPlan(ctx *vk.Context, n uint64, segments uint32, s SegmentedSort) (*SegmentedPlan, error) {
	if ctx == nil {
		return nil, invalid("radix: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := tuneSegmented(ctx.Info(), n, segments, s)
	if err != nil {
		return nil, err
	}
	p := &SegmentedPlan{ctx: ctx, cfg: c}
	cache := pipeline.For(ctx)
	if c.block || c.auto {
		p.block, err = segBlockKernel.Get(cache, segBlockSpec{WorkgroupSize: c.wg,
			keySpec:      keySpec{KeyType: c.code, Descending: c.sort.Descending, RadixBits: segDigitBits, KPL: c.kpl},
			Pairs:        c.sort.Values,
			MaxSubgroups: c.subgroups,
			Segs:         c.segs,
			SegBits:      c.segBits})
		if err != nil || c.block {
			return p, err
		}
		if p.longest, err = segLongestKernel.Get(cache, segLongestSpec{WorkgroupSize: p.generalWorkgroup()}); err != nil {
			return nil, err
		}
	}
	if n == 0 || segments == 0 {
		return p, nil // Record copies at most
	}
	if p.byKey, err = NewPlan(ctx, n, Sort{Elem: vkcompact.Plain(c.sort.Elem.Key), Values: true, Descending: c.sort.Descending,
		BeginBit: c.sort.BeginBit, EndBit: c.sort.EndBit, InPlace: true, Options: c.sort.Options}); err != nil {
		return nil, fmt.Errorf("radix: segmented sort: %w", err)
	}
	heads := Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, EndBit: c.headBits, InPlace: true}
	if c.headBits == 0 {
		heads.BeginBit, heads.EndBit = 32, 32 // no bits (an EndBit of 0 is the key's width)
	}
	if p.byHead, err = NewPlan(ctx, n, heads); err != nil {
		return nil, fmt.Errorf("radix: segmented sort: %w", err)
	}
	p.scratchN = c.sortOff + max(p.byKey.ScratchSize(), p.byHead.ScratchSize())
	if c.auto {
		p.cfg.countOff = align.Up(p.scratchN, max(ctx.Info().MinStorageBufferOffsetAlignment, 4))
		p.scratchN = p.cfg.countOff + 4
	}
	c = p.cfg
	wg := p.generalWorkgroup()
	keyWords := c.keyBytes / 4
	if p.extract, err = structKeysKernel.Get(cache, structKeysSpec{WorkgroupSize: wg, StrideWords: keyWords, KeyWords: keyWords}); err != nil {
		return nil, err
	}
	if p.heads, err = segHeadsKernel.Get(cache, segHeadsSpec{WorkgroupSize: wg}); err != nil {
		return nil, err
	}
	if p.gatherK, err = structGatherKernel.Get(cache, structGatherSpec{WorkgroupSize: wg, StrideWords: keyWords}); err != nil {
		return nil, err
	}
	if c.sort.Values {
		p.gatherV, err = structGatherKernel.Get(cache, structGatherSpec{WorkgroupSize: wg, StrideWords: 1})
	}
	return p, err
}

// generalWorkgroup is the workgroup of the general path's element-wise
// kernels (and segsort_longest's).
func (p *SegmentedPlan) generalWorkgroup() uint32 {
	info := p.ctx.Info()
	return min(256, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])
}

// N returns the key count the plan was made for.
func (p *SegmentedPlan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.cfg.n)
}

// Segments returns the segment count the plan was made for.
func (p *SegmentedPlan) Segments() uint32 {
	if p == nil {
		return 0
	}
	return p.cfg.segments
}

// ScratchSize returns the bytes of scratch Record needs: none on the
// block path.
func (p *SegmentedPlan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.scratchN
}

// SegmentedTuning is what a SegmentedPlan chose.
type SegmentedTuning struct {
	// Auto (MaxSegment 0): both paths are recorded and the GPU picks one
	// (segsort_longest): the block path, of the shape given, where no
	// segment holds more than Capacity keys, else the general path.
	Auto bool
	// Block: one workgroup sorts each SegmentsPerWorkgroup segments in
	// shared memory, of WorkgroupSize invocations holding KeysPerLane keys
	// each, so up to Capacity keys. Otherwise the general path.
	Block                 bool
	WorkgroupSize         uint32
	KeysPerLane, Capacity uint32
	// SegmentsPerWorkgroup: 1, or for segments of at most a quarter of
	// the capacity several, sorted together by key and then by their
	// index in the group (a pass more per 4 bits of it).
	SegmentsPerWorkgroup    uint32
	HeadBits, SortedKeyBits uint32 // the general path: the bits of its second sort (the heads)
}

// Tuning reports the choices the plan made.
func (p *SegmentedPlan) Tuning() SegmentedTuning {
	if p == nil {
		return SegmentedTuning{}
	}
	return p.cfg.tuning()
}

// Run records the sort on the context's own queue and waits. A zero
// Scratch range is allocated for the call where the plan needs one.
func (p *SegmentedPlan) Run(b SegmentedBuffers) error {
	if p == nil {
		return invalid("radix: nil SegmentedPlan")
	}
	var temps []planrun.Temp
	if p.scratchN > 0 {
		temps = append(temps, planrun.Temp{Range: &b.Scratch, Size: p.scratchN})
	}
	_, err := planrun.Run[struct{}](p.ctx, temps, func(r *pipeline.Recorder) { p.Record(r, b) }, nil)
	return err
}

// Record records the sort into r: on the block path one dispatch of a
// workgroup per segment (or group of short segments); on the general path
// the keys' extraction with their indices, their sort, the heads, their
// sort and the gathers; with Tuning.Auto the zeroing of a count word, the
// dispatch that sets it where a segment is too long for the block path,
// then both paths, each doing nothing where the word says the other
// sorts. It never reads the offsets back. Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
// A segmented sort's inputs are Keys, Values and Offsets; its outputs
// KeysOut, ValuesOut and Scratch.
func (p *SegmentedPlan) Record(r *pipeline.Recorder, b SegmentedBuffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// Phases names the intervals RecordTimed measures, in order: interval i
// runs from query i to query i+1. No keys or no segments: "copy"; the
// block path: "block"; the general path: "extract", the sort by key's
// phases (Plan.Phases), "heads", the sort by segment's phases, "gather";
// with the GPU's choice between them, "choose" (the search for a long
// segment and the block path, which returns at once where it is long)
// before the general path's.
func (p *SegmentedPlan) Phases() []string {
	if p == nil {
		return nil
	}
	c := &p.cfg
	switch {
	case c.n == 0 || c.segments == 0:
		return []string{"copy"}
	case c.block:
		return []string{"block"}
	}
	var names []string
	if c.auto {
		names = append(names, "choose")
	}
	names = append(names, "extract")
	names = append(names, p.byKey.Phases()...)
	names = append(names, "heads")
	names = append(names, p.byHead.Phases()...)
	return append(names, "gather")
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries and must be reset (Timer.Reset) earlier in the command buffer.
func (p *SegmentedPlan) RecordTimed(r *pipeline.Recorder, b SegmentedBuffers, t *vk.Timer) {
	switch {
	case t == nil:
		r.Fail(invalid("radix: segmented sort: RecordTimed needs a timer"))
	case p == nil:
		r.Fail(invalid("radix: nil SegmentedPlan"))
	case t.Count() < uint32(len(p.Phases())+1):
		r.Fail(invalid("radix: segmented sort: RecordTimed needs a timer of %d queries; it has %d", len(p.Phases())+1, t.Count()))
	default:
		p.record(r, b, pipeline.Stamps(r, t))
	}
}

// record checks b and records the sort, calling stamp where RecordTimed
// writes a timestamp (Phases names the intervals between).
func (p *SegmentedPlan) record(r *pipeline.Recorder, b SegmentedBuffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, b) }) {
		return
	}
	stamp()
	if p.cfg.n == 0 {
		stamp()
		return
	}
	c := &p.cfg
	n := uint64(c.n)
	keys, keysOut := b.Keys.Sub(0, n*uint64(c.keyBytes)), b.KeysOut.Sub(0, n*uint64(c.keyBytes))
	vals, valsOut := keys, keysOut // bound, unused, for keys alone
	if c.sort.Values {
		vals, valsOut = b.Values.Sub(0, 4*n), b.ValuesOut.Sub(0, 4*n)
	}
	offsets := b.Offsets.Sub(0, 4*(uint64(c.segments)+1))
	if c.segments == 0 {
		transfer.RecordCopy(r, keysOut, keys, transfer.CopyOptions{})
		if c.sort.Values {
			transfer.RecordCopy(r, valsOut, vals, transfer.CopyOptions{})
		}
		stamp()
		return
	}
	blockPush := segBlockPush{N: c.n, Segments: c.segments, Begin: c.begin, End: c.end}
	blockBinds := segBlockBindings{KeysIn: keys, ValsIn: vals, Offsets: offsets, KeysOut: keysOut, ValsOut: valsOut, Skip: offsets}
	if c.block {
		p.block.Dispatch(r, align.CeilDiv(uint64(c.segments), uint64(c.segs)), blockPush, blockBinds)
		stamp()
		return
	}
	// The general path; with auto, after the block path, the GPU having
	// chosen one of them: the count word is n (the general path sorts,
	// the block kernel returns at once) or 0 (the block kernel sorts,
	// the general path's dispatches find no keys).
	count, countOn := keys, uint32(0) // without auto, bound and never read
	wg := uint64(p.generalWorkgroup())
	if c.auto {
		count, countOn = b.Scratch.Sub(c.countOff, 4), 1
		transfer.RecordFill(r, count, 0)
		p.longest.Dispatch(r, align.CeilDiv(uint64(c.segments), wg), segLongestPush{N: c.n, Segments: c.segments, Capacity: c.wg * c.kpl},
			segLongestBindings{Offsets: offsets, Count: count})
		blockPush.SkipOn, blockBinds.Skip = 1, count
		p.block.Dispatch(r, uint64(c.segments), blockPush, blockBinds)
		stamp()
	}
	var sortCount vk.Range // the radix sorts' Buffers.Count
	if c.auto {
		sortCount = count
	}
	tmpKeys := b.Scratch.Sub(0, n*uint64(c.keyBytes))
	idx := b.Scratch.Sub(c.idxOff, 4*n)
	heads := b.Scratch.Sub(c.headsOff, 4*n)
	sortScratch := func(q *Plan) vk.Range { return b.Scratch.Sub(c.sortOff, q.ScratchSize()) }
	groups := align.CeilDiv(n, wg)
	push := structPush{N: c.n, CountOn: countOn}
	// The sorts' own first stamps end the phase before them.
	p.extract.Dispatch(r, groups, push, structKeysBindings{Structs: keys, Keys: tmpKeys, Indices: idx, GpuCount: count})
	p.byKey.record(r, Buffers{Keys: tmpKeys, Values: idx, Scratch: sortScratch(p.byKey), Count: sortCount}, stamp)
	p.heads.Dispatch(r, groups, segHeadsPush{N: c.n, Segments: c.segments, CountOn: countOn},
		segHeadsBindings{Indices: idx, Offsets: offsets, Heads: heads, GpuCount: count})
	p.byHead.record(r, Buffers{Keys: heads, Values: idx, Scratch: sortScratch(p.byHead), Count: sortCount}, stamp)
	p.gatherK.Dispatch(r, align.CeilDiv(n*uint64(c.keyBytes/4), wg), push,
		structGatherBindings{Src: keys, Dst: keysOut, Indices: idx, GpuCount: count})
	if c.sort.Values {
		p.gatherV.Dispatch(r, groups, push, structGatherBindings{Src: vals, Dst: valsOut, Indices: idx, GpuCount: count})
	}
	stamp()
}

func (p *SegmentedPlan) check(r *pipeline.Recorder, b SegmentedBuffers) error {
	if p == nil {
		return invalid("radix: nil SegmentedPlan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("radix: the plan was made for another context")
	}
	c := &p.cfg
	n := uint64(c.n)
	kb := n * uint64(c.keyBytes)
	list := []bufcheck.Range{{Name: "keys", Range: b.Keys, Need: kb},
		{Name: "offsets", Range: b.Offsets, Need: 4 * (uint64(c.segments) + 1)},
		{Name: "keys output", Range: b.KeysOut, Need: kb, Write: true}}
	if c.sort.Values {
		list = append(list, bufcheck.Range{Name: "values", Range: b.Values, Need: 4 * n},
			bufcheck.Range{Name: "values output", Range: b.ValuesOut, Need: 4 * n, Write: true})
	} else if b.Values.Buffer != nil || b.ValuesOut.Buffer != nil {
		return invalid("radix: values given for a segmented sort of keys only (set SegmentedSort.Values)")
	}
	if p.scratchN > 0 {
		list = append(list, bufcheck.Range{Name: "scratch", Range: b.Scratch, Need: p.scratchN, Write: true})
	}
	return bufcheck.Check("radix", p.ctx, list)
}

// headBits is the bits the general path's second sort takes: every head
// is below n.
func headBits(n uint64) uint32 {
	if n <= 1 {
		return 0
	}
	return uint32(bits.Len64(n - 1))
}
