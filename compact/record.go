package compact

import (
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Record records the selection into r's command buffer: count, scan and
// move dispatches with a buffer barrier between each (and, in place, a
// copy back). Errors, such as a range too small, are kept by r and
// returned by r.Err or pipeline.Run.
//
// Synchronisation contract. The first accesses are compute-shader reads of
// Src, Flags and Count (VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
// VK_ACCESS_SHADER_READ_BIT), compute-shader writes of Dst and Result
// (VK_ACCESS_SHADER_WRITE_BIT; Src too with InPlace), and compute-shader
// reads and writes of Scratch (the single pass reads the status words
// its last run left zero there): the caller makes its earlier writes of
// Src, Flags and Scratch available to them, and orders its earlier uses
// of the written ranges before them. The last accesses
// are compute-shader writes of Dst (Src with InPlace), Result and Scratch:
// the caller orders its later reads after them, and to use the result
// block as indirect arguments it records a barrier from
// VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT to
// VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT /
// VK_ACCESS_INDIRECT_COMMAND_READ_BIT. Recording binds pipelines, push
// descriptors and push constants: the caller's compute state is not kept.
//
// uint8 flags are read as 4-byte words: when n is not a multiple of 4 the
// last word's padding bytes, up to n rounded up to 4, must lie inside the
// flags buffer (their values are ignored).
func (p *Plan) Record(r *pipeline.Recorder, b Buffers) {
	p.record(r, b, pipeline.Stamps(r, nil))
}

// RecordTimed is Record with timestamps for profiling: t's queries 0 to 3
// are written before the count, after it, after the scan and at the end.
// t needs 4 queries and must be reset (Timer.Reset) earlier in the
// command buffer.
func (p *Plan) RecordTimed(r *pipeline.Recorder, b Buffers, t *vk.Timer) {
	if t == nil {
		r.Fail(invalid("compact: RecordTimed needs a timer"))
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
	l := p.scratchLayout()
	counts := b.Scratch.Sub(l.counts.off, l.counts.size)
	count, countOn := b.Count, uint32(1)
	if count.Buffer == nil {
		count, countOn = counts, 0 // bound, never read
	}
	args := b.Scratch.Sub(l.args.off, l.args.size)
	out := b.Dst
	if p.sel.InPlace {
		out = b.Scratch.Sub(l.tmp.off, l.tmp.size)
	}
	n := uint64(p.n)
	seg := uint64(p.segElems)
	perGroup := uint64(max(p.wg/info.MaxSubgroupSize, 1))

	stamp()
	// Phase 1: count, one dispatch per segment.
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(p.chunk))
		src := b.Src.Sub(first*p.size, elems*p.size)
		p.count.Dispatch(r, align.CeilDiv(nc, perGroup),
			countPush{C0: uint32(first / uint64(p.chunk)), NC: uint32(nc), Chunk: p.chunk, N: uint32(elems), CLo: p.cLo, CHi: p.cHi, CountOn: countOn},
			countBindings{SrcVec: src, SrcWord: src, Flags: p.flagsFor(b, src, first, elems), Counts: counts, GpuCount: count})
	}
	stamp()
	// Phase 2: scan the counts; write the result block.
	copyAll := uint32(0)
	if p.sel.Split {
		copyAll = 1
	}
	p.scan.Dispatch(r, 1, scanPush{NChunks: p.nChunks, N: p.n, GroupSize: p.sel.GroupSize, MaxX: info.MaxWorkgroupCount[0],
		PieceElems: p.segElems, Pieces: p.pieces, CopyTile: p.wg * 4, CountOn: countOn, CopyAll: copyAll},
		scanBindings{Counts: counts, Result: b.Result.Sub(0, ResultSize), Args: args, GpuCount: count})
	stamp()
	// Phase 3: move, one dispatch per segment and destination page.
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(p.chunk))
		src := b.Src.Sub(first*p.size, elems*p.size)
		flags := p.flagsFor(b, src, first, elems)
		for page := uint64(0); page < n; page += seg {
			pageCount := min(seg, n-page)
			dst := out.Sub(page*p.size, pageCount*p.size)
			p.move.Dispatch(r, align.CeilDiv(nc, perGroup),
				movePush{C0: uint32(first / uint64(p.chunk)), NC: uint32(nc), Chunk: p.chunk, N: uint32(elems), SegFirst: uint32(first),
					PageFirst: uint32(page), PageCount: uint32(pageCount), CLo: p.cLo, CHi: p.cHi, CountOn: countOn},
				moveBindings{SrcVec: src, SrcWord: src, Flags: flags, Counts: counts, DstVec: dst, DstWord: dst, GpuCount: count})
		}
	}
	defer stamp()
	if !p.sel.InPlace || n == 0 {
		return
	}
	// In place: copy back what the move wrote to scratch, sized on the
	// GPU: the kept elements, or for a split all of them.
	for i := uint32(0); i < p.pieces; i++ {
		first := uint64(i) * seg
		elems := min(seg, n-first)
		from, to := out.Sub(first*p.size, elems*p.size), b.Src.Sub(first*p.size, elems*p.size)
		p.copyback.DispatchIndirect(r, args.Sub(uint64(i)*16, 16), copybackPush{First: uint32(first), PieceElems: uint32(elems), Which: copyAll},
			copybackBindings{SrcVec: from, DstVec: to, SrcWord: from, DstWord: to, Counts: counts})
	}
}

// recordSinglePass records the single pass: one dispatch of a workgroup
// per tile, after a clear of its status words (tile counter, tiles'
// status, finished count) unless the commands recorded so far leave them
// zero, as the pass itself does up to tiling.SelfResetMaxTiles tiles
// (shaders/include/tile_reset.glsl).
func (p *Plan) recordSinglePass(r *pipeline.Recorder, b Buffers, stamp func()) {
	info := p.ctx.Info()
	l := p.scratchLayout()
	status := b.Scratch.Sub(l.status.off, l.status.size)
	count, countOn := b.Count, uint32(1)
	if count.Buffer == nil {
		count, countOn = status, 0 // bound, never read
	}
	n := uint64(p.n)
	src, dst := b.Src.Sub(0, n*p.size), b.Dst.Sub(0, n*p.size)
	push := onepassPush{N: p.n, Tiles: p.tiles, CLo: p.cLo, CHi: p.cHi, CountOn: countOn,
		GroupSize: p.sel.GroupSize, MaxX: info.MaxWorkgroupCount[0], Spins: p.spins}
	stamp()
	if !p.selfReset || !status.KnownZero() {
		transfer.RecordFill(r, status, 0)
	}
	stamp()
	if p.windowTiles > 0 {
		p.recordWindows(r, b, push, status, count)
	} else {
		p.pass.Dispatch(r, uint64(p.tiles), push, onepassBindings{SrcVec: src, SrcWord: src, Flags: p.flagsFor(b, src, 0, n), Status: status,
			DstVec: dst, DstWord: dst, Result: b.Result.Sub(0, ResultSize), GpuCount: count})
	}
	if p.selfReset {
		r.LeaveZero(status)
	}
	stamp()
	stamp()
}

// recordWindows records a single pass past one binding: one dispatch per
// window of p.windowTiles tiles of the input (and flags), each after a
// barrier (the recorder's: each reads and writes status), with the
// output bound as windows of p.winWords words.
func (p *Plan) recordWindows(r *pipeline.Recorder, b Buffers, push onepassPush, status, count vk.Range) {
	n := uint64(p.n)
	win := uint64(p.winWords) * 4
	var out [tiling.MaxOutWindows]vk.Range
	for w := range out {
		first := uint64(w) * win
		if first >= n*p.size {
			out[w] = out[0] // bound, never written
			continue
		}
		out[w] = b.Dst.Sub(first, min(win, n*p.size-first))
	}
	push.WinWords = p.winWords
	info := p.ctx.Info()
	for t0 := uint32(0); t0 < p.tiles; t0 += p.windowTiles {
		tiles := min(p.windowTiles, p.tiles-t0)
		first := uint64(t0) * uint64(p.tile)
		elems := min(uint64(tiles)*uint64(p.tile), n-first)
		src := b.Src.Sub(first*p.size, elems*p.size)
		push.Tile0, push.TileEnd = t0, t0+tiles
		p.wide.Dispatch(r, uint64(tiles), push, onepassWideBindings{SrcVec: src, SrcWord: src, Flags: p.flagsFor(b, src, first, elems), Status: status,
			DstVec: out[0], DstWord: out[0], Result: b.Result.Sub(0, ResultSize), GpuCount: count, DstWord1: out[1], DstWord2: out[2], DstWord3: out[3]})
		grid, err := pipeline.GridFor(info, uint64(tiles))
		if err != nil {
			r.Fail(err)
			return
		}
		push.WgBase += grid.X * grid.Y // each took a number from the tile counter
	}
}

// flagsFor returns the flags of the segment [first, first+elems), or src
// when the predicate reads no flags (the binding must hold something).
func (p *Plan) flagsFor(b Buffers, src vk.Range, first, elems uint64) vk.Range {
	if p.sel.Keep.Op != Flagged {
		return src
	}
	fb := uint64(p.sel.Keep.FlagBytes)
	return vk.Range{Buffer: b.Flags.Buffer, Offset: b.Flags.Offset + first*fb, Size: align.Up(elems*fb, 4)}
}

// check validates the buffers against the plan.
func (p *Plan) check(r *pipeline.Recorder, b *Buffers) error {
	if p == nil {
		return invalid("compact: nil Plan")
	}
	if r.CommandBuffer().Context() != p.ctx {
		return invalid("compact: the plan was made for another context")
	}
	n := uint64(p.n)
	list := []bufcheck.Range{{Name: "source", Range: b.Src, Need: n * p.size, Write: p.sel.InPlace},
		{Name: "result", Range: b.Result, Need: ResultSize, Write: true},
		{Name: "scratch", Range: b.Scratch, Need: p.scratch, Write: true}}
	if p.sel.InPlace {
		if b.Dst.Buffer != nil && b.Dst != b.Src {
			return invalid("compact: in place, the destination must be the source or left empty")
		}
	} else {
		list = append(list, bufcheck.Range{Name: "destination", Range: b.Dst, Need: n * p.size, Write: true})
	}
	if p.sel.Keep.Op == Flagged {
		list = append(list, bufcheck.Range{Name: "flags", Range: b.Flags, Need: n * uint64(p.sel.Keep.FlagBytes)})
	}
	if b.Count.Buffer != nil {
		list = append(list, bufcheck.Range{Name: "count", Range: b.Count, Need: 4, Exact: true})
	}
	if err := bufcheck.Check("compact", p.ctx, list); err != nil {
		return err
	}
	if p.sel.Keep.Op == Flagged && p.sel.Keep.FlagBytes == 1 && n%4 != 0 {
		if end := b.Flags.Offset + align.Up(n, 4); end > b.Flags.Buffer.Size() {
			return invalid("compact: uint8 flags are read in 4-byte words: the flags buffer needs %d bytes after offset %d (n rounded up to 4), it has %d",
				align.Up(n, 4), b.Flags.Offset, b.Flags.Buffer.Size()-b.Flags.Offset)
		}
	}
	return nil
}
