package radix

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// A small sort on a CPU device (lavapipe, SwiftShader) runs where a
// workgroup is a thread: the three phases' dispatches and barriers cost
// milliseconds there whatever the keys. Up to oneGroupKeys keys that the
// segmented sort's block path holds, PathAuto sorts them as that path's
// one segment instead: one dispatch of one workgroup, which stages the
// keys (and values) in shared memory and sorts them there with a stable
// radix sort of 4-bit digits (segsort_block.comp with whole set).

// oneGroupShape returns the block path's shape for s's n keys where
// PathAuto takes it: a device whose table allows it, a sort that leaves
// every shape choice to the tuning and is not in place, and n keys the
// block path holds. ok is false elsewhere. It is a pure function of the
// device's information, n and s.
func oneGroupShape(info vk.DeviceInfo, n uint64, s Sort) (spec segBlockSpec, ok bool) {
	t := tuningFor(info)
	o := s.Options
	if t.oneGroupKeys == 0 || n == 0 || n > t.oneGroupKeys || s.InPlace || o.Path != vkcompact.PathAuto ||
		o.DigitBits != 0 || o.KeysPerLane != 0 || o.WorkgroupSize != 0 || o.Processors != 0 || o.Counts != CountsAuto || o.Tails != TailsAuto {
		return segBlockSpec{}, false
	}
	code, ok := keyCode(s.Elem.Key.OrUint32())
	if !ok {
		return segBlockSpec{}, false
	}
	wg, kpl, ok := segBlockShape(info, uint32(n), segStageWords(SegmentedSort{Elem: vkcompact.Plain(s.Elem.Key.OrUint32()), Values: s.Values}))
	if !ok {
		return segBlockSpec{}, false
	}
	return segBlockSpec{
		WorkgroupSize: wg,
		keySpec:       keySpec{KeyType: code, Descending: s.Descending, RadixBits: segDigitBits, KPL: kpl},
		Pairs:         s.Values,
		MaxSubgroups:  wg / max(info.MinSubgroupSize, 1),
		Segs:          1,
	}, true
}

// oneGroupPlan is a Plan's sort by one workgroup.
type oneGroupPlan struct {
	spec  segBlockSpec
	block pipeline.TypedPipeline[segBlockPush, segBlockBindings]
}

// record records the one dispatch over io (Plan.ranges), begin and end
// the bits sorted.
func (o *oneGroupPlan) record(r *pipeline.Recorder, io sortRanges, n, begin, end uint32) {
	push := segBlockPush{N: n, Segments: 1, Begin: begin, End: end, Whole: 1}
	binds := segBlockBindings{KeysIn: io.keys, ValsIn: io.keys, Offsets: io.keys, KeysOut: io.outKeys, ValsOut: io.outKeys, Skip: io.keys}
	if io.vals.Buffer != nil {
		binds.ValsIn, binds.ValsOut = io.vals, io.outVals
	}
	if io.countOn != 0 {
		push.Whole, binds.Offsets = 1+io.countOn, io.count // 2 + the count's word
	}
	o.block.Dispatch(r, 1, push, binds)
}
