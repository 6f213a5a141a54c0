package scan

import (
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the prefix sum into r's command buffer: on the three
// phases reduce, scan of the chunk sums, and apply, with a buffer barrier
// between each; on the single pass the pass, after a clear of its status
// words unless they are known zero (package vkcompact, "Scratch between
// runs"). Errors are kept by r.
//
// Synchronisation contract, as for compact.Plan.Record: the first accesses are
// compute-shader reads of Src and Count (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
// VK_ACCESS_SHADER_READ_BIT), compute-shader writes of Total and Dst (Src
// in place), and compute-shader reads and writes of Scratch (the single
// pass reads the status words its last run left there); the last are
// compute-shader writes of Dst (Src in place), Total and Scratch. The
// caller orders its earlier writes of Src and Scratch before the
// recording and its later reads of Dst and Total after it. Recording
// binds pipelines, descriptors and push constants.
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// RecordTimed is Record with timestamps for profiling: t's queries 0 to 3
// are written before the reduce, after it, after the scan of the sums and
// at the end (the single pass: before the clear, after it, and twice after
// the pass). t needs 4 queries, reset earlier in the command buffer.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(vk.Invalidf("scan: RecordTimed needs a timer"))
		return
	}
	p.record(r, b, pipeline.Stamps(r, t))
}

func (p *Plan) record(r *pipeline.Recorder, b Buffers, stamp func()) {
	if !r.Begin(func() error { return p.check(r, &b) }) {
		return
	}
	if p.onepass {
		p.recordSinglePass(r, b, stamp)
		return
	}
	info := p.ctx.Info()
	n := uint64(p.n)
	sums := b.Scratch.Sub(0, uint64(p.NChunks+1)*4)
	count, countOn := b.Count, uint32(1)
	if count.Buffer == nil {
		count, countOn = sums, 0 // bound, never read
	}
	seg := uint64(p.SegElems)
	perGroup := uint64(max(p.wg/info.MaxSubgroupSize, 1))
	stamp()
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(p.Chunk))
		src := b.Src.Sub(first*4, elems*4)
		p.reduce.Dispatch(r, align.CeilDiv(nc, perGroup), chunkPush{C0: uint32(first / uint64(p.Chunk)), NC: uint32(nc), Chunk: p.Chunk, N: uint32(elems), CountOn: countOn},
			src, src, sums, count)
	}
	stamp()
	// With n == 0 this writes a zero total (nChunks is 0).
	p.sums.Dispatch(r, 1, sumsPush{NChunks: p.NChunks}, sums, b.Total.Sub(0, TotalSize))
	stamp()
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(p.Chunk))
		src, dst := b.Src.Sub(first*4, elems*4), b.Dst.Sub(first*4, elems*4)
		p.apply.Dispatch(r, align.CeilDiv(nc, perGroup), chunkPush{C0: uint32(first / uint64(p.Chunk)), NC: uint32(nc), Chunk: p.Chunk, N: uint32(elems), CountOn: countOn},
			src, src, sums, dst, dst, count)
	}
	stamp()
}

// recordSinglePass records one dispatch of a workgroup per tile, after a
// clear of its status words (tile counter, tiles' status, finished count)
// unless the commands recorded so far leave them zero, as the pass itself
// does up to tiling.SelfResetMaxTiles tiles (shaders/include/tile_reset.glsl).
func (p *Plan) recordSinglePass(r *pipeline.Recorder, b Buffers, stamp func()) {
	words := 2 + 2*uint64(p.tiles)
	status := b.Scratch.Sub(0, words*4)
	count, countOn := b.Count, uint32(1)
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	n := uint64(p.n)
	src, dst := b.Src.Sub(0, n*4), b.Dst.Sub(0, n*4)
	stamp()
	if !p.selfReset || !status.KnownZero() {
		transfer.RecordFill(r, status, 0)
	}
	stamp()
	push := onepassPush{N: p.n, Tiles: p.tiles, CountOn: countOn, Spins: p.spins}
	if p.windowTiles == 0 {
		p.pass.Dispatch(r, uint64(p.tiles), push, src, src, status, dst, dst, b.Total.Sub(0, TotalSize), count)
	} else {
		p.recordWindows(r, b, push, status, count)
	}
	if p.selfReset {
		r.LeaveZero(status)
	}
	stamp()
	stamp()
}

// recordWindows records a single pass past one binding: one dispatch per
// window of p.windowTiles tiles, binding the same window of the input and
// the output, each after a barrier (the recorder's: each reads and
// writes status).
func (p *Plan) recordWindows(r *pipeline.Recorder, b Buffers, push onepassPush, status, count vk.Range) {
	n := uint64(p.n)
	info := p.ctx.Info()
	for t0 := uint32(0); t0 < p.tiles; t0 += p.windowTiles {
		tiles := min(p.windowTiles, p.tiles-t0)
		first := uint64(t0) * uint64(p.tile)
		elems := min(uint64(tiles)*uint64(p.tile), n-first)
		src, dst := b.Src.Sub(first*4, elems*4), b.Dst.Sub(first*4, elems*4)
		push.Tile0, push.TileEnd = t0, t0+tiles
		p.pass.Dispatch(r, uint64(tiles), push, src, src, status, dst, dst, b.Total.Sub(0, TotalSize), count)
		grid, err := pipeline.GridFor(info, uint64(tiles))
		if err != nil {
			r.Fail(err)
			return
		}
		push.WgBase += grid.X * grid.Y // each took a number from the tile counter
	}
}

func (p *Plan) check(r *pipeline.Recorder, b *Buffers) error {
	if p == nil {
		return vk.Invalidf("scan: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return vk.Invalidf("scan: the plan was made for another context")
	}
	n := uint64(p.n) * 4
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: n, Write: p.sum.InPlace},
		{Name: "total", Range: b.Total, Need: TotalSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.ScratchSize(), Write: true}}
	if p.sum.InPlace {
		if b.Dst.Buffer != nil && b.Dst != b.Src {
			return vk.Invalidf("scan: in place, the destination must be the source or left empty")
		}
		b.Dst = b.Src
	} else {
		list = append(list, bufcheck.Range{Name: "destination", Range: b.Dst, Need: n, Write: true})
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true})
	}
	return bufcheck.Check("scan", p.ctx, list)
}
