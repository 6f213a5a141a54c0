package scan

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/bufcheck"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// threePhase is the three phases (reduce, scan of the chunk sums, apply)
// tuned for one request: the input cut into chunks, one per subgroup,
// bound a segment at a time.
//
// Scratch: the chunk sums (scanned in place into each chunk's starting
// value), one word per chunk, then the total's word.
type threePhase struct {
	wg, loads uint32
	tiling.Chunks
	reduce pipeline.TypedPipeline[chunkPush, reduceBindings]
	apply  pipeline.TypedPipeline[chunkPush, applyBindings]
	sums   pipeline.TypedPipeline[sumsPush, sumsBindings]
}

// tuneThreePhase cuts n elements into chunks for workgroups of wg
// invocations issuing loads uvec4 loads per lane, over procs processors.
func tuneThreePhase(info vk.DeviceInfo, n uint64, wg, loads, procs uint32) (*threePhase, error) {
	chunks, err := tiling.Cut(info, n, 4, procs, tiling.MaxChunk(info, loads, 4, 1, false))
	if err != nil {
		return nil, err
	}
	return &threePhase{wg: wg, loads: loads, Chunks: chunks}, nil
}

// sumsWords is the scratch words the chunk sums and the total take.
func (a *threePhase) sumsWords() uint64 { return uint64(a.NChunks) + 1 }

func (a *threePhase) scratchSize() uint64 { return align.Up(a.sumsWords()*4, 256) }

func (a *threePhase) phases() []string { return []string{"reduce", "scan", "apply"} }

func (a *threePhase) tuning() Tuning {
	return Tuning{Path: vkcompact.PathThreePhase, Processors: a.Procs, Chunk: a.Chunk, Chunks: a.NChunks, WorkgroupSize: a.wg, LoadsPerLane: a.loads, SegmentElems: a.SegElems}
}

// pipelines creates the three phases' pipelines.
func (a *threePhase) pipelines(cache *pipeline.Cache, info vk.DeviceInfo, req request) error {
	chunks := tiling.DefaultSelectSpec(a.wg, a.Procs, 1)
	chunks.Vecs = a.loads
	wg := pipeline.ScanWorkgroup(info)
	var err error
	if req.scan.Op != Sum {
		op := uint32(req.scan.Op)
		chunks.KeyType = tiling.KeyCode(req.key)
		if a.reduce, err = reduceMinMaxKernel.of(req.key).Get(cache, reduceMinMaxSpec{SelectSpec: chunks, Op: op}); err != nil {
			return err
		}
		if a.apply, err = applyMinMaxKernel.of(req.key).Get(cache, applyMinMaxSpec{SelectSpec: chunks, Op: op, Inclusive: req.scan.Inclusive}); err != nil {
			return err
		}
		a.sums, err = sumsMinMaxKernel.of(req.key).Get(cache, sumsMinMaxSpec{WorkgroupSize: wg, Op: op, ElemType: chunks.KeyType})
		return err
	}
	float := req.key == vkcompact.Float32
	if a.reduce, err = reduceKernel.Get(cache, reduceSpec{SelectSpec: chunks, FloatSum: float}); err != nil {
		return err
	}
	if a.apply, err = applyKernel.Get(cache, applySpec{SelectSpec: chunks, FloatSum: float, Inclusive: req.scan.Inclusive}); err != nil {
		return err
	}
	a.sums, err = sumsKernel.Get(cache, sumsSpec{WorkgroupSize: wg, FloatSum: float})
	return err
}

// record records reduce, the scan of the chunk sums and apply, a dispatch
// per segment for reduce and apply, with a stamp before each phase and
// after the last.
func (a *threePhase) record(r *pipeline.Recorder, n32 uint32, b Buffers, stamp func()) {
	info := r.CommandBuffer().Context().Info()
	n := uint64(n32)
	sums := b.Scratch.Sub(0, a.sumsWords()*4)
	count, countOn := bufcheck.CountWord(r.CommandBuffer().Context(), b.Count) // any 4-byte aligned word
	if count.Buffer == nil {
		count, countOn = sums, 0 // bound, never read
	}
	seg := uint64(a.SegElems)
	perGroup := uint64(max(a.wg/info.MaxSubgroupSize, 1))
	stamp()
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(a.Chunk))
		src := b.Src.Sub(first*4, elems*4)
		a.reduce.Dispatch(r, align.CeilDiv(nc, perGroup), chunkPush{C0: uint32(first / uint64(a.Chunk)), NC: uint32(nc), Chunk: a.Chunk, N: uint32(elems), CountOn: countOn},
			reduceBindings{SrcVec: src, SrcWord: src, Sums: sums, GpuCount: count})
	}
	stamp()
	// With n == 0 this writes a zero total (nChunks is 0).
	a.sums.Dispatch(r, 1, sumsPush{NChunks: a.NChunks}, sumsBindings{Sums: sums, Total: b.Total.Sub(0, TotalSize)})
	stamp()
	for first := uint64(0); first < n; first += seg {
		elems := min(seg, n-first)
		nc := align.CeilDiv(elems, uint64(a.Chunk))
		src, dst := b.Src.Sub(first*4, elems*4), b.Dst.Sub(first*4, elems*4)
		a.apply.Dispatch(r, align.CeilDiv(nc, perGroup), chunkPush{C0: uint32(first / uint64(a.Chunk)), NC: uint32(nc), Chunk: a.Chunk, N: uint32(elems), CountOn: countOn},
			applyBindings{SrcVec: src, SrcWord: src, Sums: sums, DstVec: dst, DstWord: dst, GpuCount: count})
	}
	stamp()
}
