package compact

import (
	"fmt"

	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/errs"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// threePhase is Billeter's three phases: count, scan and move, one
// dispatch of each per segment of the input (and per destination page for
// the move), and in place a copy back from the scratch.
type threePhase struct {
	wg, loads, procs uint32
	chunk, nChunks   uint32
	segElems         uint32 // elements per segment, and per destination page
	perGroup         uint64 // processors (subgroups) per workgroup
	maxX             uint32 // maxComputeWorkGroupCount[0]
	staged           bool
	stageWords       uint64 // the staged write's shared words per workgroup (1 when scattered)
	pieces           uint32 // in place: the copy-back's pieces, one per segment
	layout           threePhaseLayout
	lengths          *runLengths // run lengths: the chunks' records and the fix-up
	scratch          uint64

	count    pipeline.TypedPipeline[countPush, countBindings]
	scan     pipeline.TypedPipeline[scanPush, scanBindings]
	move     pipeline.TypedPipeline[movePush, moveBindings]
	copyback pipeline.TypedPipeline[copybackPush, copybackBindings]
}

// threePhaseLayout is what the three phases use of the scratch, as Record
// binds it: the counts, the copy-back's indirect arguments (16 bytes per
// piece; bound even when there is no copy-back) and, in place, the copy
// of the output the move writes.
type threePhaseLayout struct {
	counts, args, tmp region
}

// threePhasePhases names the intervals RecordTimed measures on the three
// phases (Plan.Phases).
var threePhasePhases = []string{"count", "scan", "move"}

// tuneThreePhase sizes the three phases for q on a device with info, with
// segments of at most segBytes bytes (0: maxStorageBufferRange).
func tuneThreePhase(info vk.DeviceInfo, q *request, segBytes uint64) (threePhase, error) {
	t := threePhase{wg: q.wg, loads: q.loads, maxX: info.MaxWorkgroupCount[0], perGroup: uint64(max(q.wg/info.MaxSubgroupSize, 1))}
	if l := tuningFor(info).threePhaseLoads; l != 0 && q.sel.Options.LoadsPerLane == 0 {
		t.loads = l
	}
	stageWords := uint64(t.wg) * uint64(t.loads) * uint64(q.epv) * uint64(q.stagedWords())
	fits := stageWords*4 <= uint64(info.MaxSharedMemory)
	switch w := q.sel.Write; {
	case q.sel.Output == outputRunLengths && w == WriteScattered:
		return threePhase{}, errs.Invalidf("compact: run lengths are found in the staged write: WriteScattered does not apply")
	case w == WriteStaged || q.sel.Output == outputRunLengths:
		if !fits {
			return threePhase{}, errs.Invalidf("compact: the staged write needs %d bytes of shared memory here (workgroup %d, %d loads per lane, %d-byte elements); the device has %d",
				stageWords*4, t.wg, t.loads, q.size, info.MaxSharedMemory)
		}
		t.staged = true
	case w == WriteAuto:
		t.staged = fits && tuningFor(info).autoStaged
	}
	t.stageWords = 1
	if t.staged {
		t.stageWords = stageWords
	}

	cutInfo := info // tiling.Cut reads maxStorageBufferRange only, as the segments' bound
	cutInfo.MaxStorageBufferRange = uint32(bindingBytes(info, segBytes))
	c, err := tiling.Cut(cutInfo, uint64(q.n), q.size, q.procs, tiling.MaxChunk(info, t.loads, q.epv, q.words, t.staged))
	if err != nil {
		return threePhase{}, fmt.Errorf("compact: %w", err)
	}
	t.procs, t.chunk, t.nChunks, t.segElems = c.Procs, c.Chunk, c.NChunks, c.SegElems
	if q.sel.InPlace {
		t.pieces = uint32(align.CeilDiv(uint64(q.n), uint64(t.segElems)))
	}
	t.layOut(q)
	return t, nil
}

// layOut places the counts, the copy-back's arguments and, in place, the
// copy of the output in the scratch, each at a multiple of 256 bytes.
func (t *threePhase) layOut(q *request) {
	args := align.Up(countsWords(t.procs)*4, 256)
	tmp := args + align.Up(uint64(max(t.pieces, 1))*16, 256)
	t.layout = threePhaseLayout{counts: region{0, countsWords(t.procs) * 4}, args: region{args, uint64(max(t.pieces, 1)) * 16}}
	t.scratch = tmp
	if q.sel.InPlace {
		t.layout.tmp = region{tmp, uint64(q.n) * q.size}
		t.scratch += align.Up(uint64(q.n)*q.size, 256)
	}
	if q.sel.Output == outputRunLengths {
		t.lengths, t.scratch = newRunLengths(t.nChunks, t.scratch)
	}
}

// countsWords is the words of the three phases' counts for procs
// processors: each chunk's count (its first slot once scanned; the kept
// total at the chunk count), then the kept total at procs and the element
// count at procs + 1 (shaders/compact/select_scan.comp), which the move and the
// copy-back read.
func countsWords(procs uint32) uint64 { return uint64(procs) + 2 }

func (t *threePhase) scratchSize() uint64 { return t.scratch }

func (t *threePhase) phases() []string { return withLengths(threePhasePhases, t.lengths) }

func (t *threePhase) tuning() Tuning {
	w := WriteScattered
	if t.staged {
		w = WriteStaged
	}
	return Tuning{Path: vkcompact.PathThreePhase, WorkgroupSize: t.wg, LoadsPerLane: t.loads, Write: w,
		ThreePhaseTuning: ThreePhaseTuning{Processors: t.procs, Chunk: t.chunk, Chunks: t.nChunks, SegmentElems: t.segElems}}
}

// pipelines creates the three phases' pipelines on ctx.
func (t *threePhase) pipelines(ctx *vk.Context, q *request) error {
	split, staged := uint32(0), uint32(0)
	if q.sel.Split {
		split = 1
		if q.sel.ReverseRejected {
			split = 2
		}
	}
	if t.staged {
		staged = 1
	}
	common := q.selectSpec(t.wg, t.procs, t.loads)
	cache := pipeline.For(ctx)
	var err error
	count, move := countKernel, moveKernel
	if q.neighbours() {
		count, move = countRunsKernel, moveRunsKernel
	}
	if t.count, err = count.Get(cache, common); err != nil {
		return err
	}
	ms := moveSpec{SelectSpec: common, Split: split, Staged: staged, StageWords: uint32(t.stageWords), OutIndex: q.outIndex(), ValueWords: q.vwords}
	if tuningFor(ctx.Info()).stageRejected {
		ms.StageRej = 1
	}
	if t.move, err = move.Get(cache, ms); err != nil {
		return err
	}
	if t.scan, err = scanKernel.Get(cache, tiling.DefaultSelectSpec(pipeline.ScanWorkgroup(ctx.Info()), t.procs, q.words)); err != nil {
		return err
	}
	if t.lengths != nil {
		if err = t.lengths.pipelines(ctx); err != nil {
			return err
		}
	}
	if t.pieces > 0 {
		if t.copyback, err = copybackKernel.Get(cache, copybackSpec{WorkgroupSize: t.wg, VecsPerThread: 1, Stride: q.words, Procs: t.procs}); err != nil {
			return err
		}
	}
	return nil
}

// record records the count, scan and move dispatches (and in place the
// copy back), calling stamp before the count, after it, after the scan
// and at the end.
func (t *threePhase) record(r *pipeline.Recorder, q *request, b Buffers, stamp func()) {
	l := &t.layout
	counts := b.Scratch.Sub(l.counts.off, l.counts.size)
	count, countOn := bufcheck.CountWord(r.CommandBuffer().Context(), b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = counts, 0 // bound, never read
	}
	args := b.Scratch.Sub(l.args.off, l.args.size)
	out := b.Dst
	if q.sel.InPlace {
		out = b.Scratch.Sub(l.tmp.off, l.tmp.size)
	}
	n, seg, size := uint64(q.n), uint64(t.segElems), q.size

	stamp()
	// Phase 1: count, one dispatch per segment.
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(t.chunk))
		src := b.Src.Sub(first*size, elems*size)
		t.count.Dispatch(r, align.CeilDiv(nc, t.perGroup),
			countPush{C0: uint32(first / uint64(t.chunk)), NC: uint32(nc), Chunk: t.chunk, N: uint32(elems), CLo: q.cLo, CHi: q.cHi, CountOn: countOn},
			countBindings{SrcVec: src, SrcWord: src, Flags: q.flagsFor(b, src, first, elems), Counts: counts, GpuCount: count})
	}
	stamp()
	// Phase 2: scan the counts; write the result block.
	copyAll := uint32(0)
	if q.sel.Split {
		copyAll = 1
	}
	t.scan.Dispatch(r, 1, scanPush{NChunks: t.nChunks, N: q.n, GroupSize: q.sel.GroupSize, MaxX: t.maxX,
		PieceElems: t.segElems, Pieces: t.pieces, CopyTile: t.wg * 4, CountOn: countOn, CopyAll: copyAll},
		scanBindings{Counts: counts, Result: b.Result.Sub(0, ResultSize), Args: args, GpuCount: count})
	stamp()
	t.recordMove(r, q, b, out, counts, count, countOn)
	if q.sel.InPlace && n > 0 {
		t.recordCopyBack(r, q, b, out, args, counts, copyAll)
	}
	stamp()
	if t.lengths != nil {
		t.lengths.record(r, n, b)
		stamp()
	}
}

// recordCopyBack records the copy back of an in-place selection: what the
// move wrote to out (the scratch) back to the source, one indirect
// dispatch per piece, sized on the GPU: the kept elements, or with
// copyAll (a split) all of them.
func (t *threePhase) recordCopyBack(r *pipeline.Recorder, q *request, b Buffers, out, args, counts vk.Range, copyAll uint32) {
	n, seg, size := uint64(q.n), uint64(t.segElems), q.size
	for i := uint32(0); i < t.pieces; i++ {
		first := uint64(i) * seg
		elems := min(seg, n-first)
		from, to := out.Sub(first*size, elems*size), b.Src.Sub(first*size, elems*size)
		t.copyback.DispatchIndirect(r, args.Sub(uint64(i)*16, 16), copybackPush{First: uint32(first), PieceElems: uint32(elems), Which: copyAll},
			copybackBindings{SrcVec: from, DstVec: to, SrcWord: from, DstWord: to, Counts: counts})
	}
}

// recordMove records phase 3, the move: one dispatch per segment and
// destination page of out.
func (t *threePhase) recordMove(r *pipeline.Recorder, q *request, b Buffers, out, counts, count vk.Range, countOn uint32) {
	n, seg, size := uint64(q.n), uint64(t.segElems), q.size
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(t.chunk))
		src := b.Src.Sub(first*size, elems*size)
		flags := q.flagsFor(b, src, first, elems)
		for page := uint64(0); page < n; page += seg {
			pageCount := min(seg, n-page)
			dst := out.Sub(page*q.outSize(), pageCount*q.outSize())
			kept := dst // the kept elements, with OutputBoth and run lengths
			if q.writesElements() {
				kept = b.Elements.Sub(page*size, pageCount*size)
			}
			values, valuesOut := q.valueRanges(b, src, dst) // one segment and one page: the values are refused past one binding
			records := dst                                  // bound, never written
			if t.lengths != nil {
				records = t.lengths.recordsIn(b.Scratch)
			}
			t.move.Dispatch(r, align.CeilDiv(nc, t.perGroup),
				movePush{C0: uint32(first / uint64(t.chunk)), NC: uint32(nc), Chunk: t.chunk, N: uint32(elems), SegFirst: uint32(first),
					PageFirst: uint32(page), PageCount: uint32(pageCount), CLo: q.cLo, CHi: q.cHi, CountOn: countOn},
				moveBindings{SrcVec: src, SrcWord: src, Flags: flags, Counts: counts, DstVec: dst, DstWord: dst, GpuCount: count, DstElems: kept,
					Values: values, ValuesOut: valuesOut, RunRecords: records})
		}
	}
}
