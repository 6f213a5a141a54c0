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
// 2^20 (BENCHMARKS.md, "Issue 37, third stop"). Here every lane owns a
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

type lanesScatterSpec struct {
	lanesSpec
	Pairs bool `glsl:"PAIRS"`
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
	lanesCountBindings struct {
		Keys     vk.Range `use:"read"`
		Hist     vk.Range `use:"write"`
		GpuCount vk.Range `use:"read"`
	}
	lanesScatterBindings struct {
		KeysIn, ValsIn, Hist vk.Range `use:"read"`
		KeysOut, ValsOut     vk.Range `use:"write"`
		GpuCount             vk.Range `use:"read"`
	}
)

var (
	lanesCountKernel   = newKernel[lanesPush, lanesSpec, lanesCountBindings]("radix_lanes_count", anySubgroupSize)
	lanesScatterKernel = newKernel[lanesPush, lanesScatterSpec, lanesScatterBindings]("radix_lanes_scatter", anySubgroupSize)
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
	key := s.Key.OrUint32()
	if _, ok := keyCode(key); !ok || n*uint64(key.Size()) > uint64(info.MaxStorageBufferRange) {
		return lanesShape{}, false
	}
	_, begin, end, err := checkKeys(info, n, Sort{Key: key, BeginBit: s.BeginBit, EndBit: s.EndBit})
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
type lanesPlan struct {
	lanesShape
	layout  scratchLayout
	count   pipeline.TypedPipeline[lanesPush, lanesCountBindings]
	scatter pipeline.TypedPipeline[lanesPush, lanesScatterBindings]
}

func newLanesPlan(ctx *vk.Context, q *request, sh lanesShape) (*lanesPlan, error) {
	l := &lanesPlan{lanesShape: sh}
	l.layout = scratchLayout{histWords: uint64(1) << sh.d.wide * uint64(sh.lanes()+sh.procs)}
	l.layout.keysOff = align.Up(l.layout.histWords*4, 256)
	l.layout = l.layout.withKeys(uint64(q.n), q.keyBytes, q.sort.Values)
	spec := lanesSpec{WorkgroupSize: sh.wg, keySpec: keySpec{KeyType: q.code, Descending: q.sort.Descending, RadixBits: sh.d.wide, KPL: 1}}
	cache := pipeline.For(ctx)
	var err error
	if l.count, err = lanesCountKernel.Get(cache, spec); err != nil {
		return nil, err
	}
	l.scatter, err = lanesScatterKernel.Get(cache, lanesScatterSpec{lanesSpec: spec, Pairs: q.sort.Values})
	return l, err
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
		push := lanesPush{N: q.n, LaneKeys: l.laneKeys, Lanes: l.lanes(), Procs: l.procs, Shift: l.d.shift(i), Width: l.d.width(i), CountOn: io.countOn}
		l.count.Dispatch(r, uint64(l.procs), push, lanesCountBindings{Keys: src, Hist: io.hist, GpuCount: io.count})
		stamp()
		l.scatter.Dispatch(r, uint64(l.procs), push, lanesScatterBindings{KeysIn: src, ValsIn: inVals, Hist: io.hist,
			KeysOut: dst, ValsOut: outVals, GpuCount: io.count})
		stamp()
	}
}

// report fills t as Plan.Tuning reports the lane-serial sort.
func (l *lanesPlan) report(t *Tuning) {
	*t = Tuning{LaneSerial: true, WorkgroupSize: l.wg, Processors: l.procs, Chunk: l.laneKeys * l.wg, KeysPerLane: l.laneKeys,
		DigitBits: l.d.wide, Passes: l.d.passes}
}
