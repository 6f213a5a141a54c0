package radix

import (
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The lane-serial sort (shaders/radix/radix_lanes.glsl): on a CPU device
// (lavapipe, SwiftShader) a workgroup runs on one thread and its lanes
// are the lanes of one SIMD register, so the three phases' ranking by
// ballots, their barriers and their stage cost more than the keys' own
// loads and stores: 37 ns a key and pass in the scatter on lavapipe at
// 2^20 (docs/tuning.md, "Radix sort on CPU devices"). Here every lane owns a
// contiguous run of keys and sorts it as a CPU's radix sort does per
// thread: per pass a count (each lane its own digit counts) and a scatter
// (each lane its keys to its digits' next slots), two dispatches and no
// barrier inside the walk. PathAuto takes it on CPU devices between the
// one-workgroup sort and lanesKeys keys, where its Options leave every
// shape choice to the tuning and the keys fit one binding.

// lanesSpec is the specialization constants of radix_lanes_count and
// radix_lanes_scatter (Pairs: the scatter's only).
type lanesSpec struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	keySpec
}

type lanesCountSpec struct {
	lanesSpec
	Packed bool `glsl:"PACKED"`
}

type lanesScatterSpec struct {
	lanesSpec
	Pairs bool `glsl:"PAIRS"`
}

// lanesScatter64Spec is radix_lanes_scatter64's: PackIn and PackOut read
// and write 32-bit keys with their values packed as 64-bit words.
type lanesScatter64Spec struct {
	lanesScatterSpec
	PackIn  bool `glsl:"PACK_IN"`
	PackOut bool `glsl:"PACK_OUT"`
}

// lanesPush is both kernels' push constants.
type lanesPush struct {
	N        uint32 `glsl:"n"`
	LaneKeys uint32 `glsl:"laneKeys"` // keys per lane
	Lanes    uint32 `glsl:"nLanes"`   // lanes in all: workgroups * workgroup size
	Procs    uint32 `glsl:"nProcs"`   // workgroups
	Shift    uint32 `glsl:"shift"`
	Width    uint32 `glsl:"width"`
	CountOn  uint32 `glsl:"countOn"`
}

type (
	// Keys64, KeysIn64 and KeysOut64 are Keys, KeysIn and KeysOut again,
	// read and written as 64-bit words by the 64-bit kernels (the 32-bit
	// ones bind them unused).
	lanesCountBindings struct {
		Keys     vk.Range `use:"read"`
		Hist     vk.Range `use:"write"`
		GpuCount vk.Range `use:"read"`
		Keys64   vk.Range `use:"read"`
	}
	lanesScatterBindings struct {
		KeysIn, ValsIn, Hist vk.Range `use:"read"`
		KeysOut, ValsOut     vk.Range `use:"write"`
		GpuCount             vk.Range `use:"read"`
		KeysIn64             vk.Range `use:"read"`
		KeysOut64            vk.Range `use:"write"`
	}
)

var (
	lanesCountKernel     = newKernel[lanesPush, lanesCountSpec, lanesCountBindings]("radix_lanes_count", anySubgroupSize)
	lanesScatterKernel   = newKernel[lanesPush, lanesScatterSpec, lanesScatterBindings]("radix_lanes_scatter", anySubgroupSize)
	lanesCount64Kernel   = newKernel[lanesPush, lanesCountSpec, lanesCountBindings]("radix_lanes_count64", anySubgroupSize)
	lanesScatter64Kernel = newKernel[lanesPush, lanesScatter64Spec, lanesScatterBindings]("radix_lanes_scatter64", anySubgroupSize)
)

// lanesTuning is the lane-serial sort's row of a device's tuning.
type lanesTuning struct {
	// most is the most keys PathAuto sorts so; 0: never.
	most uint64
	// workgroup is the fewest lanes per workgroup, rounded up to a
	// multiple of the largest subgroup size.
	workgroup uint32
	// minProcs is the fewest workgroups (a CPU driver's threads take
	// one each) where each lane would still walk minLaneKeys keys:
	// fewer below that, since a lane's counters cost about as much as
	// a few hundred keys. laneKeys is the keys a lane walks, which sets
	// the lanes where minProcs workgroups' lanes would take more.
	minProcs              uint32
	minLaneKeys, laneKeys uint32
	// words64: where the context has shaderInt64 (vk.Context.ShaderInt64)
	// and the subgroup is at most words64Lanes wide, 64-bit keys move as
	// one word, 32-bit keys alone are loaded two at a time, and 32-bit
	// keys with values travel packed as one word between the passes
	// (lanesPlan.packed). Wider subgroups lost with them (lavapipe at 16
	// lanes: keys at 2^20 36-49 -> 74-89 ms).
	words64      bool
	words64Lanes uint32
}

// lanesShape is the lane-serial sort of a plan: its workgroup, its
// workgroups, the keys each lane walks, and the digits.
type lanesShape struct {
	wg, procs, laneKeys uint32
	d                   digits
}

func (sh lanesShape) lanes() uint32 { return sh.wg * sh.procs }

// lanesShapeFor returns the lane-serial shape for s's n keys where
// PathAuto takes it (see the top of this file), and false elsewhere. It
// is a pure function of the device's information, n and s.
func lanesShapeFor(info vk.DeviceInfo, n uint64, s Sort) (lanesShape, bool) {
	t := tuningFor(info).lanes
	o := s.Options
	if t.most == 0 || n == 0 || n > t.most || o.Path != vkcompact.PathAuto || o.DigitBits != 0 || o.KeysPerLane != 0 ||
		o.WorkgroupSize != 0 || o.Processors != 0 || o.Counts != CountsAuto || o.Tails != TailsAuto {
		return lanesShape{}, false
	}
	key := s.Elem.Key.OrUint32()
	if _, ok := keyCode(key); !ok || n*uint64(key.Size()) > uint64(info.MaxStorageBufferRange) {
		return lanesShape{}, false
	}
	_, begin, end, err := checkKeys(info, n, Sort{Elem: vkcompact.Plain(key), BeginBit: s.BeginBit, EndBit: s.EndBit})
	if err != nil || end == begin {
		return lanesShape{}, false
	}
	sg := uint64(max(info.MaxSubgroupSize, 1))
	sh := lanesShape{wg: uint32(align.Up(uint64(t.workgroup), sg)), d: splitDigits(begin, end, 8)}
	buckets, wg := uint64(1)<<sh.d.wide, uint64(sh.wg)
	if shared := 4 * (buckets*wg + buckets); shared > uint64(info.MaxSharedMemory) {
		return lanesShape{}, false
	}
	// The table's keys a lane, doubled while the loops do not fit.
	for laneKeys := uint64(t.laneKeys); laneKeys <= pipeline.LoopBudget; laneKeys *= 2 {
		procs := max(min(uint64(t.minProcs), align.CeilDiv(n, wg*uint64(t.minLaneKeys))), align.CeilDiv(n, wg*laneKeys))
		lk := align.CeilDiv(n, procs*wg)
		// Loop iterations per invocation (pipeline.LoopBudget): the
		// scatter's reading of hist (for each of its digits every
		// workgroup's count and its lanes'), the digit scan, its
		// counters and its run; the count's are fewer.
		iters := align.CeilDiv(buckets, wg)*(procs+wg) + 2*buckets + lk
		if iters <= pipeline.LoopBudget && procs*wg*lk <= math.MaxUint32 {
			sh.procs, sh.laneKeys = uint32(procs), uint32(lk)
			return sh, true
		}
	}
	return lanesShape{}, false
}

// lanesPlan is a Plan's lane-serial sort: its shape, scratch and
// pipelines.
//
// With words64 the kernels move 64-bit words (radix_lanes_*64, the
// context has shaderInt64): a 64-bit key is one load and one store, not
// two, and 32-bit keys alone are loaded two at a time. With packed (32-bit keys with values, two passes or more) the
// keys and values travel as one word each between the passes, in two
// regions of scratch of 8n bytes each (packA at keysOff, packB after
// it): the first pass reads the inputs and writes packA, the passes
// between read one region and write the other, the last writes the
// outputs; in place needs no copy back.
type lanesPlan struct {
	lanesShape
	words64, packed bool
	layout          scratchLayout
	count           pipeline.TypedPipeline[lanesPush, lanesCountBindings]
	countPacked     pipeline.TypedPipeline[lanesPush, lanesCountBindings] // packed: passes 1 on
	// scatter[0] every pass's, or with packed the first's; packed: [1]
	// the passes' between, [2] the last's.
	scatter [3]pipeline.TypedPipeline[lanesPush, lanesScatterBindings]
}

// lanesWords64 is whether the lane-serial sort takes 64-bit words where
// the tuning and the context allow (tests turn it off to run the 32-bit
// kernels on a device with shaderInt64).
var lanesWords64 = true

// lanesWords64For reports whether the lane-serial sort moves 64-bit words
// on ctx: the tuning takes them for its subgroup size and the context has
// shaderInt64 and storage offsets aligned to 8 bytes (the callers' ranges
// start at multiples of minStorageBufferOffsetAlignment).
func lanesWords64For(ctx *vk.Context) bool {
	info := ctx.Info()
	t := tuningFor(info).lanes
	return lanesWords64 && t.words64 && info.MaxSubgroupSize <= t.words64Lanes && ctx.ShaderInt64() && info.MinStorageBufferOffsetAlignment%8 == 0
}

func newLanesPlan(ctx *vk.Context, q *request, sh lanesShape) (*lanesPlan, error) {
	l := &lanesPlan{lanesShape: sh}
	l.words64 = lanesWords64For(ctx)
	n := uint64(q.n)
	// The packed regions are bound whole: 8n bytes in one binding.
	l.packed = l.words64 && q.sort.Values && q.keyBytes == 4 && sh.d.passes >= 2 && 8*n <= uint64(ctx.Info().MaxStorageBufferRange)
	l.layout = scratchLayout{histWords: uint64(1) << sh.d.wide * uint64(sh.lanes()+sh.procs)}
	l.layout.keysOff = align.Up(l.layout.histWords*4, 256)
	if l.packed {
		l.layout.valsOff = l.layout.keysOff + align.Up(8*n, 256) // packB
		l.layout.size = l.layout.valsOff + align.Up(8*n, 256)
	} else {
		l.layout = l.layout.withKeys(n, q.keyBytes, q.sort.Values)
	}
	spec := lanesSpec{WorkgroupSize: sh.wg, keySpec: keySpec{KeyType: q.code, Descending: q.sort.Descending, RadixBits: sh.d.wide, KPL: 1}}
	cache := pipeline.For(ctx)
	countKernel := lanesCountKernel
	if l.words64 {
		countKernel = lanesCount64Kernel
	}
	var err error
	if l.count, err = countKernel.Get(cache, lanesCountSpec{lanesSpec: spec}); err != nil {
		return nil, err
	}
	scatter := lanesScatterSpec{lanesSpec: spec, Pairs: q.sort.Values}
	if !l.words64 {
		l.scatter[0], err = lanesScatterKernel.Get(cache, scatter)
		return l, err
	}
	if !l.packed {
		l.scatter[0], err = lanesScatter64Kernel.Get(cache, lanesScatter64Spec{lanesScatterSpec: scatter})
		return l, err
	}
	if l.countPacked, err = countKernel.Get(cache, lanesCountSpec{lanesSpec: spec, Packed: true}); err != nil {
		return nil, err
	}
	for i, s := range []lanesScatter64Spec{
		{lanesScatterSpec: scatter, PackOut: true},
		{lanesScatterSpec: scatter, PackIn: true, PackOut: true},
		{lanesScatterSpec: scatter, PackIn: true},
	} {
		if i == 1 && sh.d.passes < 3 {
			continue
		}
		if l.scatter[i], err = lanesScatter64Kernel.Get(cache, s); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// phases appends the names of the intervals RecordTimed measures.
func (l *lanesPlan) phases(names []string) []string {
	for range l.d.passes {
		names = append(names, "count", "scatter")
	}
	return names
}

// record records every pass's count and scatter over io (Plan.ranges).
func (l *lanesPlan) record(r *pipeline.Recorder, q *request, io sortRanges, stamp func()) {
	for i := range l.d.passes {
		src, srcVals := io.source(i)
		dst, dstVals := io.target(i)
		inVals, outVals := q.values(src, srcVals, dst, dstVals)
		count, scatter := l.count, l.scatter[0]
		if l.packed {
			// The packed regions: pass i > 0 reads the one pass i-1
			// wrote; the last pass writes the outputs.
			pack := [2]vk.Range{io.tmpKeys, io.tmpVals} // packA, packB (Plan.ranges)
			src, dst = pack[(i+1)%2], pack[i%2]
			inVals, outVals = src, dst // unused: the values travel with the keys
			switch {
			case i == 0:
				src, inVals = io.keys, io.vals
			case i == l.d.passes-1:
				dst, outVals = io.outKeys, io.outVals
				count, scatter = l.countPacked, l.scatter[2]
			default:
				count, scatter = l.countPacked, l.scatter[1]
			}
		}
		push := lanesPush{N: q.n, LaneKeys: l.laneKeys, Lanes: l.lanes(), Procs: l.procs, Shift: l.d.shift(i), Width: l.d.width(i), CountOn: io.countOn}
		count.Dispatch(r, uint64(l.procs), push, lanesCountBindings{Keys: src, Hist: io.hist, GpuCount: io.count, Keys64: src})
		stamp()
		scatter.Dispatch(r, uint64(l.procs), push, lanesScatterBindings{KeysIn: src, ValsIn: inVals, Hist: io.hist,
			KeysOut: dst, ValsOut: outVals, GpuCount: io.count, KeysIn64: src, KeysOut64: dst})
		stamp()
	}
}

// report fills t as Plan.Tuning reports the lane-serial sort.
func (l *lanesPlan) report(t *Tuning) {
	*t = Tuning{LaneSerial: true, WorkgroupSize: l.wg, Processors: l.procs, Chunk: l.laneKeys * l.wg, KeysPerLane: l.laneKeys,
		DigitBits: l.d.wide, Passes: l.d.passes, Words64: l.words64}
}
