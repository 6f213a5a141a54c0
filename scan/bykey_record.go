package scan

import (
	"fmt"
	"reflect"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the scan by key into r's command buffer: a clear of the
// status words unless the commands recorded so far leave them zero, then
// its pass (a dispatch per window past one binding, with a barrier
// between them). Errors are kept by r.
//
// Synchronisation: package vkcompact's documentation, "Synchronisation".
func (p *ByKeyPlan) Record(r *pipeline.Recorder, b ByKeyBuffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// RecordTimed is Record with timestamps for profiling: t's query 0 is
// written first and query i+1 after Phases()[i]. t needs len(Phases())+1
// queries, reset earlier in the command buffer; any further queries are
// left unwritten.
func (p *ByKeyPlan) RecordTimed(r *pipeline.Recorder, b ByKeyBuffers, t *vk.Timer) {
	if t == nil {
		r.Fail(errs.Invalidf("scan: RecordTimed needs a timer"))
		return
	}
	if need := uint32(len(p.Phases()) + 1); t.Count() < need {
		r.Fail(errs.Invalidf("scan: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
		return
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

func (p *ByKeyPlan) record(r *pipeline.Recorder, b ByKeyBuffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	ctx := r.CommandBuffer().Context()
	status := b.Scratch.Sub(0, p.statusWords(p.t.Tiles)*4)
	count, countOn := bufcheck.CountWord(ctx, b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	stamp()
	if !p.t.SelfReset || !status.KnownZero() {
		transfer.RecordFill(r, status, 0)
	}
	stamp()
	n, kb := uint64(p.n), uint64(p.keyBytes)
	push := byKeyPush{N: p.n, Tiles: p.t.Tiles, CountOn: countOn, Spins: p.t.Spins}
	if p.t.WindowTiles == 0 {
		keys, values, dst := b.Keys.Sub(0, n*kb), b.Values.Sub(0, n*4), b.Dst.Sub(0, n*4)
		if n == 0 {
			// No pair to bind (a binding holds something): the one tile
			// reads and writes none, so the status words stand in.
			keys, values, dst = status, status, status
		}
		p.pass.Dispatch(r, uint64(p.t.Tiles), push, byKeyBindings{KeyVec: keys, KeyWord: keys, SrcVec: values, SrcWord: values,
			Status: status, DstVec: dst, DstWord: dst, KeyBefore: keys, GpuCount: count})
	} else {
		p.recordWindows(r, b, push, status, count)
	}
	if p.t.SelfReset {
		r.LeaveZero(status)
	}
	stamp()
}

// recordWindows records the pass past one binding: one dispatch per
// window of p.t.WindowTiles tiles, binding the same window of the keys,
// the values and the output, and the key before the window, each after a
// barrier (the recorder's: each reads and writes status).
func (p *ByKeyPlan) recordWindows(r *pipeline.Recorder, b ByKeyBuffers, push byKeyPush, status, count vk.Range) {
	ctx := r.CommandBuffer().Context()
	n, kb, tile := uint64(p.n), uint64(p.keyBytes), uint64(p.t.Tile)
	for t0 := uint32(0); t0 < p.t.Tiles; t0 += p.t.WindowTiles {
		tiles := min(p.t.WindowTiles, p.t.Tiles-t0)
		first := uint64(t0) * tile
		elems := min(uint64(tiles)*tile, n-first)
		keys, values, dst := b.Keys.Sub(first*kb, elems*kb), b.Values.Sub(first*4, elems*4), b.Dst.Sub(first*4, elems*4)
		before, word := keys, uint32(0)
		if first > 0 {
			before, word = pipeline.Unaligned(ctx, b.Keys.Sub((first-1)*kb, kb))
		}
		push.Tile0, push.TileEnd, push.KeyBefore = t0, t0+tiles, word
		p.pass.Dispatch(r, uint64(tiles), push, byKeyBindings{KeyVec: keys, KeyWord: keys, SrcVec: values, SrcWord: values,
			Status: status, DstVec: dst, DstWord: dst, KeyBefore: before, GpuCount: count})
		grid, err := pipeline.GridFor(ctx.Info(), uint64(tiles))
		if err != nil {
			r.Fail(err)
			return
		}
		push.WgBase += grid.X * grid.Y // each took a number from the tile counter
	}
}

// check validates the plan and b for r.
func (p *ByKeyPlan) check(r *pipeline.Recorder, b *ByKeyBuffers) error {
	if p == nil {
		return errs.Invalidf("scan: nil ByKeyPlan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return errs.Invalidf("scan: the plan was made for another context")
	}
	n := uint64(p.n)
	if v, d := b.Values, b.Dst; n > 0 && v.Buffer != nil && v.Buffer == d.Buffer && v.Offset < d.Offset+4*n && d.Offset < v.Offset+4*n {
		return errs.Invalidf("scan: a scan by key does not run in place: its scans (Dst) overlap its values")
	}
	// The output is named "scans", not "destination": bufcheck's hint to
	// set InPlace is not for a scan by key.
	list := []bufcheck.Range{{Name: "keys", Range: b.Keys, Need: n * uint64(p.keyBytes)},
		{Name: "values", Range: b.Values, Need: n * 4},
		{Name: "scans", Range: b.Dst, Need: n * 4, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.ScratchSize(), Write: true}}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("scan", p.ctx, list)
}

// ScanByKeySlice runs a scan by key of values by keys on the GPU and
// returns the scans. K decides the keys' type and V the values': b.Elem
// must be zero or K's own plain keys (vkcompact.Plain) and b.Value zero
// or V's type, and any other is refused (vk.ErrInvalid, naming both)
// before any GPU work, as are slices of different lengths.
func ScanByKeySlice[K uint32 | int32 | float32 | uint64, V uint32 | int32 | float32](ctx *vk.Context, keys []K, values []V, b ByKey) ([]V, error) {
	kt, err := gotype.Plain(reflect.TypeFor[K](), b.Elem, "ByKey.Elem")
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	vt, err := gotype.Key(reflect.TypeFor[V](), b.Value, "ByKey.Value")
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if len(keys) != len(values) {
		return nil, errs.Invalidf("scan: %d values for %d keys", len(values), len(keys))
	}
	b.Elem, b.Value = vkcompact.Plain(kt), vt
	n := uint64(len(keys))
	p, err := NewByKeyPlan(ctx, n, b)
	if err != nil {
		return nil, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	var bb ByKeyBuffers
	if bb.Keys, err = planrun.Upload(ctx, &bufs, keys, n*uint64(kt.Size())); err != nil {
		return nil, err
	}
	if bb.Values, err = planrun.Upload(ctx, &bufs, values, n*4); err != nil {
		return nil, err
	}
	if bb.Dst, err = bufs.New(ctx, n*4); err != nil {
		return nil, err
	}
	if err := p.Run(bb); err != nil {
		return nil, err
	}
	out := make([]V, n)
	if err := vk.Download(bb.Dst, out); err != nil {
		return nil, err
	}
	return out, nil
}
