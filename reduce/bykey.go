package reduce

import (
	"encoding/binary"
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// The result block of a reduction by key: Record writes ByKeyResultSize
// bytes to ByKeyBuffers.Result, laid out as package compact's and
// package runs' (compact.ResultSize).
const (
	ByKeyResultSize = 48
	// ByKeyRunsOffset holds the runs' count (uint32), followed by the
	// elements covered less the runs and the elements covered (n, or the
	// GPU count).
	ByKeyRunsOffset = 0
	// ByKeyDispatchOffset holds a VkDispatchIndirectCommand covering the
	// runs with Options.GroupSize invocations per workgroup (x*y workgroups
	// past maxComputeWorkGroupCount[0], as compact's).
	ByKeyDispatchOffset = 16
	// ByKeyDrawOffset holds a VkDrawIndirectCommand with vertexCount the
	// runs' count.
	ByKeyDrawOffset = 32
)

// ByKey describes a reduction by key over separate key and value arrays,
// as CUB's DeviceReduce::ReduceByKey: each run of equal consecutive keys
// gives its first key and the reduction of its values, in order.
type ByKey struct {
	// Elem is the keys' type: vkcompact.Plain of Uint32, Int32, Float32
	// or Uint64 (the zero Elem is uint32). Keys are equal as
	// compact.EqualKeys has them: integers by value, floats as IEEE 754
	// (a NaN equals nothing, so each NaN is a run of its own; -0.0 equals
	// +0.0, and a run's first key is written).
	Elem vkcompact.Elem
	// Value is the values' type: Uint32, Int32 or Float32 (Unset is
	// Uint32).
	Value vkcompact.Type
	// Op is Sum, Min or Max.
	Op Op
	// Options: Path (PathAuto or PathSinglePass: the look-back is its one
	// path), Spins, WorkgroupSize, LoadsPerLane and GroupSize; Workgroups
	// must be 0 (a workgroup per tile).
	Options
}

// String names the reduction ("sum by u32 key of u32").
func (b ByKey) String() string {
	return fmt.Sprintf("%v by %v key of %v", b.Op, b.Elem.Key.OrUint32(), b.Value.OrUint32())
}

// ByKeyBuffers are the ranges a recorded reduction by key uses. Every
// offset must be a multiple of the device's
// minStorageBufferOffsetAlignment, but Count's, a multiple of 4.
type ByKeyBuffers struct {
	Keys   vk.Range // n keys, read
	Values vk.Range // n values, read
	// KeysOut and ValuesOut have room for n keys and n values: each run's
	// first key and its values' reduction, the first runs' count of each.
	KeysOut, ValuesOut vk.Range
	Result             vk.Range // ByKeyResultSize bytes, written
	// Scratch is ByKeyPlan.ScratchSize bytes, read and written: the look-
	// back's status words (left zero for the next run where the plan
	// resets them: package vkcompact, "Scratch between runs") and the
	// tile records.
	Scratch vk.Range
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU (package vkcompact, "Counts from the
	// GPU"): the runs are then those of the first min(count, n) pairs.
	Count vk.Range
}

// ByKeyResult is a reduction by key's result block as read back.
type ByKeyResult struct {
	Runs  uint32 // the runs: unique keys and values written
	Total uint32 // the elements covered: n, or the GPU count
}

// ReadByKeyResult reads the result block at r (ByKeyResultSize bytes,
// written by a completed Record).
func ReadByKeyResult(r vk.Range) (ByKeyResult, error) {
	if r.Size < ByKeyResultSize {
		return ByKeyResult{}, invalid("a result block of %d bytes: it is %d", r.Size, ByKeyResultSize)
	}
	var b [12]byte
	if err := vk.Download(r.Sub(ByKeyRunsOffset, 12), b[:]); err != nil {
		return ByKeyResult{}, err
	}
	return ByKeyResult{Runs: binary.LittleEndian.Uint32(b[0:]), Total: binary.LittleEndian.Uint32(b[8:])}, nil
}

// ByKeyTuning reports the choices a ByKeyPlan made.
type ByKeyTuning struct {
	// WorkgroupSize and LoadsPerLane are the resolved Options: a
	// workgroup takes a tile of Tile keys and values (LoadsPerLane uvec4s
	// of values per invocation), Tiles cover the input.
	WorkgroupSize, LoadsPerLane uint32
	Tile, Tiles                 uint32
	// Spins, TilesByIndex and SelfReset are the look-back's, as
	// scan.Tuning's.
	Spins        uint32
	TilesByIndex bool
	SelfReset    bool
}

// ByKeyPlan is a reduction by key of n key-value pairs checked, tuned and
// sized for one context. It is immutable and safe for concurrent use.
//
// Its first dispatch (reduce_bykey) takes a tile of keys and values per
// workgroup, finds the runs' heads, counts the runs before the tile by a
// chained scan with decoupled look-back (integer counts, which do not
// depend on the order they are added in), writes each run's first key
// and the values of the runs that begin and end in the tile, and keeps
// the parts of those that cross its edges; the second
// (reduce_bykey_fixup, an invocation per tile) combines those in tile
// order. The keys, the values and the outputs must each fit one binding
// (maxStorageBufferRange): this reduction has no windows, and NewPlan
// refuses more.
type ByKeyPlan struct {
	ctx *vk.Context
	req ByKey
	n   uint32
	tileTuning
	spins             uint32
	byIndex, selfSet  bool
	statusWords       uint64
	tilesPass         pipeline.TypedPipeline[byKeyPush, byKeyBindings]
	fixupPass         pipeline.TypedPipeline[byKeyFixupPush, byKeyFixupBindings]
	fixupWG, keyBytes uint32
}

// NewByKeyPlan checks b for n pairs on ctx, picks its tuning (a pure
// function of the device's information, n and b) and creates its
// pipelines.
func NewByKeyPlan(ctx *vk.Context, n uint64, b ByKey) (*ByKeyPlan, error) {
	if ctx == nil {
		return nil, invalid("nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := ctx.Info()
	p, err := tuneByKey(info, n, b)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	cache := pipeline.For(ctx)
	vcode := typeCode(p.req.Value)
	p.tilesPass, err = byKeyKernel.Get(cache, byKeySpec{WorkgroupSize: p.wg, Op: uint32(p.req.Op), Type: vcode, Vecs: p.loads,
		KeyType: typeCode(p.req.Elem.Key), MaxSubgroups: p.wg / max(info.MinSubgroupSize, 1), TileByID: b2u(p.byIndex), SelfReset: b2u(p.selfSet)})
	if err != nil {
		return nil, err
	}
	p.fixupPass, err = byKeyFixupKernel.Get(cache, byKeyFixupSpec{WorkgroupSize: p.fixupWG, Op: uint32(p.req.Op), Type: vcode})
	return p, err
}

// tuneByKey checks b for n pairs on a device with info and picks the
// plan's tuning: a pure function of its arguments (the plan it returns
// has no context and no pipelines).
func tuneByKey(info vk.DeviceInfo, n uint64, b ByKey) (*ByKeyPlan, error) {
	key, err := checkElem(b.Elem, "ByKey.Elem")
	if err != nil {
		return nil, err
	}
	b.Elem, b.Value = vkcompact.Plain(key), b.Value.OrUint32()
	switch {
	case b.Value != vkcompact.Uint32 && b.Value != vkcompact.Int32 && b.Value != vkcompact.Float32:
		return nil, invalid("ByKey.Value %v: the values' type must be u32, i32 or f32", b.Value)
	case b.Op > Max:
		return nil, invalid("reduction by key %v: the op must be sum, min or max", b.Op)
	case b.Path == vkcompact.PathThreePhase:
		return nil, invalid("reduction by key: Options.Path %v: it runs in a single pass only (leave PathAuto)", b.Path)
	case b.Path > vkcompact.PathSinglePass:
		return nil, invalid("unknown path %d", b.Path)
	case b.Workgroups != 0:
		return nil, invalid("reduction by key: Options.Workgroups does not apply (a workgroup per tile)")
	case n > MaxElements:
		return nil, invalid("%d pairs: at most %d", n, uint64(MaxElements))
	}
	if b.GroupSize == 0 {
		b.GroupSize = 64
	}
	for _, x := range []struct {
		what  string
		bytes uint64
	}{{"keys", n * sizeOf(key)}, {"values", n * 4}} {
		if x.bytes > uint64(info.MaxStorageBufferRange) {
			return nil, invalid("reduction by key: %d bytes of %s exceed one binding (maxStorageBufferRange %d); it has no windows", x.bytes, x.what, info.MaxStorageBufferRange)
		}
	}
	t, err := tuneTiles(info, n, 4, b.Options)
	if err != nil {
		return nil, err
	}
	t.ntiles = max(t.ntiles, 1) // no pairs: one tile of none, whose workgroup writes the result block
	p := &ByKeyPlan{req: b, n: uint32(n), tileTuning: t, keyBytes: key.Size()}
	p.spins = tiling.Spins(info, b.Spins)
	p.byIndex = tiling.TilesByIndex(info, false, t.ntiles)
	p.selfSet = tiling.SelfReset(t.ntiles)
	p.statusWords = 2 + 2*uint64(t.ntiles)
	p.recOff = align.Up(p.statusWords*4, 256)
	p.fixupWG = t.wg
	if p.recOff > uint64(info.MaxStorageBufferRange) {
		return nil, invalid("reduction by key: its tile status (%d bytes for %d tiles) exceeds one binding (maxStorageBufferRange %d)", p.recOff, t.ntiles, info.MaxStorageBufferRange)
	}
	return p, nil
}

// N returns the pair count the plan was made for.
func (p *ByKeyPlan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// ScratchSize returns the bytes of scratch Record needs: the status words
// and a record of 32 bytes per tile.
func (p *ByKeyPlan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return p.recOff + p.recordsSize()
}

// Tuning reports the choices the plan made.
func (p *ByKeyPlan) Tuning() ByKeyTuning {
	if p == nil {
		return ByKeyTuning{}
	}
	return ByKeyTuning{WorkgroupSize: p.wg, LoadsPerLane: p.loads, Tile: p.tile, Tiles: p.ntiles, Spins: p.spins, TilesByIndex: p.byIndex, SelfReset: p.selfSet}
}

// Phases names the intervals RecordTimed measures, in order: "clear"
// (empty where the status words are known zero), "tiles" and "fixup".
func (p *ByKeyPlan) Phases() []string { return []string{"clear", "tiles", "fixup"} }

// Record records the reduction by key into r's command buffer: a clear
// of the status words unless the commands recorded so far leave them
// zero, then its two dispatches with a barrier between them. Errors are
// kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
func (p *ByKeyPlan) Record(r *pipeline.Recorder, b ByKeyBuffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// RecordTimed is Record with timestamps for profiling, as Plan.RecordTimed.
func (p *ByKeyPlan) RecordTimed(r *pipeline.Recorder, b ByKeyBuffers, t *vk.Timer) {
	if !checkTimer(r, t, len(p.Phases())+1) {
		return
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

// Run records the reduction on the context's own queue, waits and reads
// the result block back. A zero Result or Scratch range is allocated for
// the call and released after it.
func (p *ByKeyPlan) Run(b ByKeyBuffers) (ByKeyResult, error) {
	if p == nil {
		return ByKeyResult{}, invalid("nil ByKeyPlan")
	}
	return planrun.Run(p.ctx, temps(planrun.Temp{Range: &b.Result, Size: ByKeyResultSize}, planrun.Temp{Range: &b.Scratch, Size: p.ScratchSize()}),
		func(r *pipeline.Recorder) { p.Record(r, b) }, func() (ByKeyResult, error) { return ReadByKeyResult(b.Result) })
}

func (p *ByKeyPlan) record(r *pipeline.Recorder, b ByKeyBuffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	ctx := r.CommandBuffer().Context()
	status := b.Scratch.Sub(0, p.statusWords*4)
	records := b.Scratch.Sub(p.recOff, p.recordsSize())
	count, countOn := bufcheck.CountWord(ctx, b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	keys, values, keysOut, valuesOut := status, status, records, records // no pair to bind: never read nor written
	if p.n > 0 {
		n := uint64(p.n)
		keys, values = b.Keys.Sub(0, n*uint64(p.keyBytes)), b.Values.Sub(0, n*4)
		keysOut, valuesOut = b.KeysOut.Sub(0, n*uint64(p.keyBytes)), b.ValuesOut.Sub(0, n*4)
	}
	stamp()
	if !p.selfSet || !status.KnownZero() {
		transfer.RecordFill(r, status, 0)
	}
	stamp()
	p.tilesPass.Dispatch(r, uint64(p.ntiles), byKeyPush{N: p.n, Tiles: p.ntiles, CountOn: countOn, Spins: p.spins,
		GroupSize: p.req.GroupSize, MaxX: ctx.Info().MaxWorkgroupCount[0]},
		byKeyBindings{KeyVec: keys, KeyWord: keys, SrcVec: values, SrcWord: values, Status: status, Tiles: records,
			KeysOut: keysOut, ValuesOut: valuesOut, Result: b.Result.Sub(0, ByKeyResultSize), GpuCount: count})
	if p.selfSet {
		r.LeaveZero(status)
	}
	stamp()
	if countOn == 0 {
		count = records // bound, never read; not status, which must stay known zero (every binding counts as written)
	}
	p.fixupPass.Dispatch(r, align.CeilDiv(uint64(p.ntiles), uint64(p.fixupWG)), byKeyFixupPush{N: p.n, Tiles: p.ntiles, CountOn: countOn, Tile: p.tile},
		byKeyFixupBindings{Tiles: records, ValuesOut: valuesOut, GpuCount: count})
	stamp()
}

// check validates the plan and b for r.
func (p *ByKeyPlan) check(r *pipeline.Recorder, b *ByKeyBuffers) error {
	if p == nil {
		return invalid("nil ByKeyPlan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("the plan was made for another context")
	}
	n := uint64(p.n)
	list := []bufcheck.Range{{Name: "keys", Range: b.Keys, Need: n * uint64(p.keyBytes)},
		{Name: "values", Range: b.Values, Need: n * 4},
		{Name: "keys output", Range: b.KeysOut, Need: n * uint64(p.keyBytes), Write: true},
		{Name: "values output", Range: b.ValuesOut, Need: n * 4, Write: true},
		{Name: "result", Range: b.Result, Need: ByKeyResultSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.ScratchSize(), Write: true}}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("reduce", p.ctx, list)
}
