package scan

import (
	"fmt"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// ByKey describes a scan by key over separate key and value arrays, as
// CUB's DeviceScan::InclusiveScanByKey and ExclusiveScanByKey: the values
// scanned with Op, the scan starting again at each run of equal
// consecutive keys. Element i of an inclusive scan combines the values of
// its run up to and including i; of an exclusive one those before i, the
// first element of each run getting the op's identity (0, +0.0 for float
// sums; Op tells Min's and Max's).
//
// The values' sums, mins and maxes are as Scan has them (integer sums
// wrap, min and max are exact and follow Go's for float32), and float32
// sums are bitwise reproducible run to run on one device: every
// addition's order is fixed by the plan's tuning and the input (each
// invocation's elements in turn, fixed trees over subgroups and
// workgroups, the tiles of a run in their order), never by which
// workgroup finishes first, and no atomic adds a value; but a sum that
// meets a NaN is a NaN whose bits (its sign, its payload) the device's
// arithmetic picks, which may differ between runs. They differ from a
// serial float32 loop by rounding, within the bound of a summation tree
// whose depth the tuning fixes (some fifty additions with the default
// tiles) plus one per tile the run crosses: usually less than the serial
// loop's error.
type ByKey struct {
	// Elem is the keys' type: vkcompact.Plain of Uint32, Int32, Float32 or
	// Uint64 (the zero Elem is uint32). Keys are equal as
	// compact.EqualKeys has them: integers by value, floats as IEEE 754
	// (a NaN equals nothing, so each NaN key starts a run; -0.0 equals
	// +0.0).
	Elem vkcompact.Elem
	// Value is the values' type: Uint32, Int32 or Float32 (Unset is
	// Uint32).
	Value vkcompact.Type
	// Op is Sum (the zero Op), Min or Max.
	Op Op
	// Inclusive makes element i combine its run's values up to and
	// including i; otherwise (exclusive) those before i.
	Inclusive bool
	// Options: Path (PathAuto or PathSinglePass: the single pass is its
	// one path), Spins, WorkgroupSize (at most 512) and LoadsPerLane (the
	// uvec4s of values each invocation holds: a tile of WorkgroupSize *
	// LoadsPerLane * 4 pairs; by default the single pass's, fewer for
	// small inputs on a GPU); Processors must be 0.
	Options
}

// String names the scan by key ("exclusive sum by u32 key of f32").
func (b ByKey) String() string {
	kind := "exclusive"
	if b.Inclusive {
		kind = "inclusive"
	}
	return fmt.Sprintf("%s %v by %v key of %v", kind, b.Op, b.Elem.Key.OrUint32(), b.Value.OrUint32())
}

// ByKeyBuffers are the ranges a recorded scan by key uses. Every offset
// must be a multiple of the device's minStorageBufferOffsetAlignment, but
// Count's, a multiple of 4.
type ByKeyBuffers struct {
	Keys   vk.Range // n keys, read
	Values vk.Range // n values, read
	Dst    vk.Range // n values, written: the scans (not the values: the scan does not run in place)
	// Scratch is ByKeyPlan.ScratchSize bytes, read and written: the
	// look-back's status words, left zero for the next run where the
	// plan resets them (package vkcompact, "Scratch between runs").
	Scratch vk.Range
	// Count, when set, is a 4-byte range holding the element count as a
	// uint32 written on the GPU (package vkcompact, "Counts from the
	// GPU"): the scan then covers the first min(count, n) pairs, and the
	// destination past them is not written.
	Count vk.Range
}

// ByKeyTuning reports the choices a ByKeyPlan made.
type ByKeyTuning struct {
	// WorkgroupSize and LoadsPerLane are the resolved Options: a
	// workgroup takes a tile of Tile pairs (LoadsPerLane uvec4s of values
	// per invocation), Tiles cover the input.
	WorkgroupSize, LoadsPerLane uint32
	Tile, Tiles                 uint32
	// Spins, TilesByIndex and SelfReset are the look-back's, as Tuning's.
	Spins        uint32
	TilesByIndex bool
	SelfReset    bool
	// WindowTiles: past one binding, the tiles of each dispatch, one per
	// window of the keys, the values and the output; 0 when one dispatch
	// binds them.
	WindowTiles uint32
}

// ByKeyPlan is a scan by key of n key-value pairs checked, tuned and
// sized for one context. It is immutable and safe for concurrent use.
//
// Its one dispatch (scan_bykey) is a chained scan over tiles with
// decoupled look-back and fallback, as the prefix sum's single pass,
// carrying a pair (whether a run starts in what lies behind, the value
// since the last start): each workgroup reads its tile of keys and values
// once, finds where runs start, scans its pairs, learns the value of the
// run in progress at its start from its predecessors' status words, and
// writes its values' scans once. A tile where a run starts publishes its
// end at once, so only the tiles that a run crosses wait on their
// predecessors. Past one binding (maxStorageBufferRange) it is a dispatch
// per window of whole tiles (Tuning.WindowTiles).
type ByKeyPlan struct {
	ctx      *vk.Context
	req      ByKey
	n        uint32
	keyBytes uint32
	t        ByKeyTuning
	pass     pipeline.TypedPipeline[byKeyPush, byKeyBindings]
}

// NewByKeyPlan checks b for n pairs on ctx, picks its tuning (a pure
// function of the device's information, n and b) and creates its
// pipeline.
func NewByKeyPlan(ctx *vk.Context, n uint64, b ByKey) (*ByKeyPlan, error) {
	return newByKeyPlan(ctx, n, b, 0)
}

// newByKeyPlan is NewByKeyPlan with the bytes one binding holds lowered
// to windowLimit where that is not zero (tests cut small inputs into
// windows with it).
func newByKeyPlan(ctx *vk.Context, n uint64, b ByKey, windowLimit uint64) (*ByKeyPlan, error) {
	if ctx == nil {
		return nil, errs.Invalidf("scan: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	info := ctx.Info()
	p, err := tuneByKey(info, n, b, windowLimit)
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	spec := byKeySpec{WorkgroupSize: p.t.WorkgroupSize,
		ElemType: tiling.KeyCode(p.req.Value), Vecs: p.t.LoadsPerLane, KeyType: tiling.KeyCode(p.req.Elem.Key),
		Inclusive: p.req.Inclusive, MaxSubgroups: p.t.WorkgroupSize / max(info.MinSubgroupSize, 1),
		TileByID: b2u(p.t.TilesByIndex), SelfReset: b2u(p.t.SelfReset), Windowed: b2u(p.t.WindowTiles > 0)}
	if p.req.Op != Sum {
		p.pass, err = byKeyMinMaxKernel.of(p.req.Value).Get(pipeline.For(ctx), byKeyMinMaxSpec{byKeySpec: spec, Op: uint32(p.req.Op)})
	} else {
		p.pass, err = byKeyKernel.of(p.req.Value).Get(pipeline.For(ctx), spec)
	}
	return p, err
}

// byKeyShared is the shared memory scan_bykey declares for workgroups of
// wg invocations: a pair per invocation, two per subgroup at the smallest
// subgroup size, a few words.
func byKeyShared(info vk.DeviceInfo, wg uint32) uint64 {
	return 8*uint64(wg) + 16*uint64(wg/max(info.MinSubgroupSize, 1)) + 32
}

// tuneByKey checks b for n pairs on a device with info and picks the
// plan's tuning: a pure function of its arguments (the plan it returns
// has no context and no pipeline). windowLimit, when not zero, lowers
// the bytes one binding holds below maxStorageBufferRange.
func tuneByKey(info vk.DeviceInfo, n uint64, b ByKey, windowLimit uint64) (*ByKeyPlan, error) {
	key, err := plainKey(b.Elem, "ByKey.Elem")
	if err != nil {
		return nil, err
	}
	b.Elem, b.Value = vkcompact.Plain(key), b.Value.OrUint32()
	maxWG := min(passTunings[classOf(info)].maxWorkgroup, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])
	switch {
	case key != vkcompact.Uint32 && key != vkcompact.Int32 && key != vkcompact.Float32 && key != vkcompact.Uint64:
		return nil, errs.Invalidf("scan: ByKey.Elem %v: the keys' type must be u32, i32, f32 or u64", key)
	case b.Value != vkcompact.Uint32 && b.Value != vkcompact.Int32 && b.Value != vkcompact.Float32:
		return nil, errs.Invalidf("scan: ByKey.Value %v: the values' type must be u32, i32 or f32", b.Value)
	case b.Op > Max:
		return nil, checkOp(b.Op)
	case b.Path == vkcompact.PathThreePhase:
		return nil, errs.Invalidf("scan: scan by key: Options.Path %v: it runs in a single pass only (leave PathAuto)", b.Path)
	case b.Path > vkcompact.PathSinglePass:
		return nil, errs.Invalidf("scan: unknown path %d", b.Path)
	case b.Processors != 0:
		return nil, errs.Invalidf("scan: scan by key: Options.Processors does not apply (a workgroup per tile)")
	case n > MaxElements:
		return nil, errs.Invalidf("scan: %d pairs: at most %d", n, uint64(MaxElements))
	case b.LoadsPerLane > vkcompact.MaxLoadsPerLane:
		return nil, errs.Invalidf("scan: %d loads per lane: at most %d", b.LoadsPerLane, vkcompact.MaxLoadsPerLane)
	}
	wg := b.WorkgroupSize
	if wg == 0 {
		wg = 256
		if info.CPU() {
			wg = 64 // lavapipe and SwiftShader run a workgroup on one thread: small tiles spread small inputs
		}
		wg = min(max(wg/info.MaxSubgroupSize, 1)*info.MaxSubgroupSize, maxWG)
	}
	if wg%info.MaxSubgroupSize != 0 || wg > maxWG {
		return nil, errs.Invalidf("scan: scan by key: workgroup size %d: want a multiple of the largest subgroup size %d up to %d", wg, info.MaxSubgroupSize, maxWG)
	}
	if need := byKeyShared(info, wg); need > uint64(info.MaxSharedMemory) {
		return nil, errs.Invalidf("scan: scan by key: workgroups of %d need %d bytes of shared memory; the device has %d", wg, need, info.MaxSharedMemory)
	}
	// The prefix sum's single pass's loads: its table, smaller tiles for
	// small inputs on a GPU where the caller chose neither option.
	loads := passTunings[classOf(info)].passLoads(b.Options, n)
	p := &ByKeyPlan{req: b, n: uint32(n), keyBytes: key.Size()}
	t := ByKeyTuning{WorkgroupSize: wg, LoadsPerLane: loads, Tile: wg * loads * 4}
	// An empty input is one tile of no pairs.
	t.Tiles = uint32(max(align.CeilDiv(n, uint64(t.Tile)), 1))
	if status := p.statusWords(t.Tiles) * 4; status > uint64(info.MaxStorageBufferRange) {
		return nil, errs.Invalidf("scan: scan by key: its tile status (%d bytes for %d tiles of %d pairs) exceeds one binding (maxStorageBufferRange %d)", status, t.Tiles, t.Tile, info.MaxStorageBufferRange)
	}
	t.Spins = tiling.Spins(info, b.Spins)
	t.TilesByIndex = tiling.TilesByIndex(info, false, t.Tiles)
	t.SelfReset = tiling.SelfReset(t.Tiles)
	if limit := bindingLimit(info, windowLimit); n*uint64(p.keyBytes) > limit || n*4 > limit {
		// Past one binding: one dispatch per window of whole tiles.
		keyTile, valueTile := uint64(t.Tile)*uint64(p.keyBytes), uint64(t.Tile)*4
		if t.WindowTiles = tiling.WindowTiles(info, limit, keyTile, valueTile); t.WindowTiles == 0 {
			return nil, errs.Invalidf("scan: scan by key: past one binding (%d bytes of keys, maxStorageBufferRange %d) its windows are whole tiles at offsets aligned to %d bytes, and one binding holds none of tiles of %d bytes of keys",
				n*uint64(p.keyBytes), limit, info.MinStorageBufferOffsetAlignment, keyTile)
		}
		t.SelfReset = false // a clear before every pass (many tiles: tiling.SelfReset)
	}
	p.t = t
	return p, nil
}

// plainKey checks what a request says of its keys (named by field):
// plain keys (vkcompact.Plain) of any type, Uint32 for Unset.
func plainKey(e vkcompact.Elem, field string) (vkcompact.Type, error) {
	t := e.Key.OrUint32()
	if (e.Stride != 0 || e.KeyOffset != 0) && (e.Stride != t.Size() || e.KeyOffset != 0) {
		return t, errs.Invalidf("scan: %s %v: keys are plain values (vkcompact.Plain), not structs", field, e)
	}
	return t, nil
}

// statusWords is the scratch words of the status of tiles tiles: tile
// counter, two per tile, finished count.
func (p *ByKeyPlan) statusWords(tiles uint32) uint64 { return 2 + 2*uint64(tiles) }

// N returns the pair count the plan was made for.
func (p *ByKeyPlan) N() uint64 {
	if p == nil {
		return 0
	}
	return uint64(p.n)
}

// ScratchSize returns the bytes of scratch Record needs: the status words
// of the tiles.
func (p *ByKeyPlan) ScratchSize() uint64 {
	if p == nil {
		return 0
	}
	return align.Up(p.statusWords(p.t.Tiles)*4, 256)
}

// Tuning reports the choices the plan made.
func (p *ByKeyPlan) Tuning() ByKeyTuning {
	if p == nil {
		return ByKeyTuning{}
	}
	return p.t
}

// Phases names the intervals RecordTimed measures, in order: "clear"
// (empty where the status words are known zero) and "pass".
func (p *ByKeyPlan) Phases() []string { return []string{"clear", "pass"} }

// Run records the scan by key on the context's own queue and waits. A
// zero Scratch range is allocated for the call and released after it.
func (p *ByKeyPlan) Run(b ByKeyBuffers) error {
	if p == nil {
		return errs.Invalidf("scan: nil ByKeyPlan")
	}
	_, err := planrun.Run[struct{}](p.ctx, []planrun.Temp{{Range: &b.Scratch, Size: p.ScratchSize()}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, nil)
	return err
}
