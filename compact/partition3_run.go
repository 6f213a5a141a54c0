package compact

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the three-way partition into r's command buffer: a clear
// of its status words where they are not known zero (the pass leaves them
// zero up to 1024 tiles), then one dispatch (or one per window of the
// input past one binding). Errors, such as a range too small, are kept by r and
// returned by r.Err or pipeline.Run.
//
// Synchronisation: as package vkcompact's "Synchronisation" section says.
func (p *Partition3Plan) Record(r *pipeline.Recorder, b Partition3Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// partition3Phases names the intervals RecordTimed measures.
var partition3Phases = []string{"clear", "pass"}

// Phases names the intervals RecordTimed measures, in order: "clear" (the
// clear of the status words, where recorded) and "pass".
func (p *Partition3Plan) Phases() []string { return slices.Clone(partition3Phases) }

// RecordTimed is Record with timestamps for profiling, as
// Plan.RecordTimed: t's query 0 is written first and query i+1 after
// Phases()[i], so t needs 3 queries; it must be reset earlier in the
// command buffer.
func (p *Partition3Plan) RecordTimed(r *pipeline.Recorder, b Partition3Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(errs.Invalidf("compact: RecordTimed needs a timer"))
		return
	}
	if need := uint32(len(partition3Phases) + 1); t.Count() < need {
		r.Fail(errs.Invalidf("compact: RecordTimed needs a timer of %d queries; it has %d", need, t.Count()))
		return
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

func (p *Partition3Plan) record(r *pipeline.Recorder, b Partition3Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	q, s := &p.req, &p.pass
	status := b.Scratch.Sub(0, s.statusBytes)
	count, countOn := bufcheck.CountWord(r.CommandBuffer().Context(), b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	n := uint64(q.n)
	bytes := n * q.size
	src, first, second, rest := b.Src.Sub(0, bytes), b.First.Sub(0, bytes), b.Second.Sub(0, bytes), b.Rest.Sub(0, bytes)
	if n == 0 {
		// No elements: the one tile writes the result block alone; the
		// element bindings must hold something, and are never touched.
		src, first, second, rest = status, status, status, status
	}
	push := partition3Push{N: q.n, Tiles: s.tiles, C1Lo: q.cLo, C1Hi: q.cHi, C2Lo: p.c2Lo, C2Hi: p.c2Hi, CountOn: countOn,
		GroupSize: q.sel.GroupSize, MaxX: s.maxX, Spins: s.spins}
	result := b.Result.Sub(0, Partition3ResultSize)
	stamp()
	if !s.selfReset || !status.KnownZero() {
		transfer.RecordFill(r, status, 0)
	}
	stamp()
	defer stamp()
	if s.windowTiles == 0 {
		p.onePipeline.Dispatch(r, uint64(s.tiles), push, partition3Bindings{SrcVec: src, SrcWord: src, Status: status,
			DstFirst: first, DstSecond: second, DstRest: rest, Result: result, GpuCount: count})
		if s.selfReset {
			r.LeaveZero(status)
		}
		return
	}
	// Past one binding: one dispatch per window of s.windowTiles tiles of
	// the input, each after the recorder's barrier (each reads and writes
	// status), with every output bound as windows of s.winWords words.
	win := uint64(s.winWords) * 4
	windows := func(out vk.Range) (w [tiling.MaxOutWindows]vk.Range) {
		for i := range w {
			at := uint64(i) * win
			if at >= bytes {
				w[i] = w[0] // bound, never written
				continue
			}
			w[i] = out.Sub(at, min(win, bytes-at))
		}
		return w
	}
	f, sc, re := windows(b.First), windows(b.Second), windows(b.Rest)
	push.WinWords = s.winWords
	info := r.CommandBuffer().Context().Info()
	for t0 := uint32(0); t0 < s.tiles; t0 += s.windowTiles {
		tiles := min(s.windowTiles, s.tiles-t0)
		at := uint64(t0) * uint64(s.tile)
		elems := min(uint64(tiles)*uint64(s.tile), n-at)
		in := b.Src.Sub(at*q.size, elems*q.size)
		push.Tile0, push.TileEnd = t0, t0+tiles
		p.widePipeline.Dispatch(r, uint64(tiles), push, partition3WideBindings{SrcVec: in, SrcWord: in, Status: status,
			DstFirst: f[0], DstSecond: sc[0], DstRest: re[0], Result: result, GpuCount: count,
			DstFirst1: f[1], DstFirst2: f[2], DstFirst3: f[3], DstSecond1: sc[1], DstSecond2: sc[2], DstSecond3: sc[3],
			DstRest1: re[1], DstRest2: re[2], DstRest3: re[3]})
		grid, err := pipeline.GridFor(info, uint64(tiles))
		if err != nil {
			r.Fail(err)
			return
		}
		push.WgBase += grid.X * grid.Y // each took a number from the tile counter
	}
}

// check validates the buffers against the plan.
func (p *Partition3Plan) check(r *pipeline.Recorder, b *Partition3Buffers) error {
	if p == nil {
		return errs.Invalidf("compact: nil Partition3Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return errs.Invalidf("compact: the plan was made for another context")
	}
	bytes := uint64(p.req.n) * p.req.size
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: bytes},
		{Name: "first output", Range: b.First, Need: bytes, Write: true},
		{Name: "second output", Range: b.Second, Need: bytes, Write: true},
		{Name: "rest output", Range: b.Rest, Need: bytes, Write: true},
		{Name: "result", Range: b.Result, Need: Partition3ResultSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.pass.scratch, Write: true}}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true, Word: true})
	}
	return bufcheck.Check("compact", p.ctx, list)
}

// ReadPartition3Result reads the counts of the result block at r (written
// by a recorded three-way partition whose submission has completed).
func ReadPartition3Result(r vk.Range) (Partition3Result, error) {
	if r.Buffer != nil && r.Size < 16 {
		return Partition3Result{}, errs.Invalidf("compact: a result range of %d bytes: the three counts and the total need 16", r.Size)
	}
	var w [4]uint32
	if err := vk.Download(r.Sub(0, 16), w[:]); err != nil {
		return Partition3Result{}, err
	}
	return Partition3Result{First: w[0], Second: w[1], Rest: w[2], Total: w[3]}, nil
}

// Run records the partition on the context's own queue, waits, and reads
// the result block back. A zero Result or Scratch range is allocated for
// the call and released after it.
func (p *Partition3Plan) Run(b Partition3Buffers) (Partition3Result, error) {
	if p == nil {
		return Partition3Result{}, errs.Invalidf("compact: nil Partition3Plan")
	}
	return planrun.Run(p.ctx, []planrun.Temp{{Range: &b.Result, Size: Partition3ResultSize}, {Range: &b.Scratch, Size: p.ScratchSize()}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, func() (Partition3Result, error) { return ReadPartition3Result(b.Result) })
}

// Partition3Slice runs part over data on the GPU and returns the three
// groups: the elements First keeps, then of the others those Second
// keeps, then the rest, each in input order. T is the element, resolved
// with part.Elem as SelectSlice resolves a Selection's (a key type's own keys
// for a zero Elem; a struct's key field; a conflict refused before any GPU
// work). data is not modified.
func Partition3Slice[T any](ctx *vk.Context, data []T, part Partition3) (first, second, rest []T, res Partition3Result, err error) {
	var zero T
	size := uint64(unsafe.Sizeof(zero))
	if part.Elem, err = elemFor[T](part.Elem); err != nil {
		return nil, nil, nil, res, err
	}
	n := uint64(len(data))
	p, err := NewPartition3Plan(ctx, n, part)
	if err != nil {
		return nil, nil, nil, res, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	bytes := n * size
	var b Partition3Buffers
	for _, r := range []*vk.Range{&b.Src, &b.First, &b.Second, &b.Rest} {
		if *r, err = bufs.New(ctx, bytes); err != nil {
			return nil, nil, nil, res, err
		}
	}
	if err := vk.Upload(b.Src, data); err != nil {
		return nil, nil, nil, res, err
	}
	if res, err = p.Run(b); err != nil {
		return nil, nil, nil, res, err
	}
	if uint64(res.Total) != n || uint64(res.First)+uint64(res.Second)+uint64(res.Rest) != n {
		return nil, nil, nil, res, fmt.Errorf("compact: the GPU reported %d, %d and %d of %d for %d elements", res.First, res.Second, res.Rest, res.Total, n)
	}
	out := [3][]T{}
	for i, g := range []struct {
		r vk.Range
		k uint32
	}{{b.First, res.First}, {b.Second, res.Second}, {b.Rest, res.Rest}} {
		out[i] = make([]T, g.k)
		if g.k == 0 {
			continue
		}
		if err := vk.Download(g.r.Sub(0, uint64(g.k)*size), out[i]); err != nil {
			return nil, nil, nil, res, err
		}
	}
	return out[0], out[1], out[2], res, nil
}
