package reduce

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The tuning of a reduction: a pure function of the device's information,
// the element count, the request and the bytes one binding holds, which
// creates nothing; NewPlan then creates the pipelines it names.

// Tuning reports the choices a plan made.
type Tuning struct {
	Path vkcompact.Path // the path taken: single pass or the two dispatches (PathThreePhase)
	// WorkgroupSize and LoadsPerLane are the resolved Options.
	WorkgroupSize, LoadsPerLane uint32
	// Workgroups is the partial results (one per workgroup), Chunk the
	// elements each workgroup reduces (the last fewer), a multiple of a
	// step: WorkgroupSize * LoadsPerLane uvec4s.
	Workgroups, Chunk uint32
	// WindowWorkgroups: past one binding (maxStorageBufferRange), the
	// workgroups of each dispatch, one per window of the input; 0 when
	// one dispatch binds it all.
	WindowWorkgroups uint32
}

// tuning is a plan's resolved choices.
type tuning struct {
	path                 vkcompact.Path
	wg, loads            uint32
	groups, chunk        uint32
	windowGroups         uint32
	size                 uint64 // bytes per element
	combineWG            uint32 // reduce_combine's workgroup: the tiles' own, so that both paths combine alike
	partialsOff, scratch uint64
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	return Tuning{Path: p.path, WorkgroupSize: p.wg, LoadsPerLane: p.loads, Workgroups: p.groups, Chunk: p.chunk, WindowWorkgroups: p.windowGroups}
}

func (t tuning) scratchSize() uint64 { return t.scratch }

// loadStep is the loads per lane for inputs of at most maxN elements.
type loadStep struct {
	maxN  uint64
	loads uint32
}

// gpuLoads are a GPU's loads per lane by input size, where the caller
// chose neither the workgroup size nor the loads: smaller steps give
// more workgroups at engine sizes, as the prefix sum's single pass takes
// them (scan's table); past the last step, vkcompact.MaxLoadsPerLane.
var gpuLoads = [...]loadStep{{1 << 17, 1}, {1 << 19, 2}}

// checkRequest checks r for n elements and returns it with its element
// type resolved.
func checkRequest(n uint64, r Reduce) (Reduce, error) {
	t, err := checkElem(r.Elem, "Reduce.Elem")
	if err != nil {
		return r, err
	}
	r.Elem = vkcompact.Plain(t)
	if r.Op > ArgMax {
		return r, invalid("unknown operation %d", r.Op)
	}
	if n > MaxElements {
		return r, invalid("%d elements: at most %d", n, uint64(MaxElements))
	}
	if r.Path > vkcompact.PathSinglePass {
		return r, invalid("unknown path %d", r.Path)
	}
	if r.Spins != 0 {
		return r, invalid("Options.Spins %d: a reduction has no look-back (leave it 0)", r.Spins)
	}
	if r.GroupSize != 0 {
		return r, invalid("Options.GroupSize %d: a reduction writes no dispatch arguments (leave it 0)", r.GroupSize)
	}
	return r, nil
}

// resolveGroup applies the defaults of the workgroup size and the loads
// per lane and checks them.
func resolveGroup(info vk.DeviceInfo, n uint64, o Options) (wg, loads uint32, err error) {
	wg = o.WorkgroupSize
	if wg == 0 {
		wg = min(max(256, info.MaxSubgroupSize), info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])
	}
	if wg%info.MaxSubgroupSize != 0 || wg > info.MaxWorkgroupInvocations || wg > info.MaxWorkgroupSize[0] {
		return 0, 0, invalid("workgroup size %d: want a multiple of the largest subgroup size %d up to %d", wg, info.MaxSubgroupSize,
			min(info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0]))
	}
	loads = o.LoadsPerLane
	if loads > vkcompact.MaxLoadsPerLane {
		return 0, 0, invalid("%d loads per lane: at most %d", loads, vkcompact.MaxLoadsPerLane)
	}
	if loads == 0 {
		loads = vkcompact.MaxLoadsPerLane
		if !info.CPU() && o.WorkgroupSize == 0 {
			for _, s := range gpuLoads {
				if n <= s.maxN {
					loads = s.loads
					break
				}
			}
		}
	}
	return wg, loads, nil
}

// tune checks r for n elements on a device with info and picks the
// plan's tuning: a pure function of its arguments. windowLimit, when not
// zero, lowers the bytes one binding holds below maxStorageBufferRange.
func tune(info vk.DeviceInfo, n uint64, r Reduce, windowLimit uint64) (Reduce, tuning, error) {
	r, err := checkRequest(n, r)
	if err != nil {
		return r, tuning{}, err
	}
	wg, loads, err := resolveGroup(info, n, r.Options)
	if err != nil {
		return r, tuning{}, err
	}
	t := tuning{path: vkcompact.PathSinglePass, wg: wg, loads: loads, size: sizeOf(r.Elem.Key), combineWG: wg}
	if r.Path == vkcompact.PathThreePhase {
		t.path = vkcompact.PathThreePhase
	}
	step := uint64(wg) * uint64(loads) * (16 / t.size)
	groups := uint64(r.Workgroups)
	if groups == 0 {
		groups = uint64(tiling.DefaultProcessors(info, wg) / max(wg/info.MaxSubgroupSize, 1))
	}
	limit := bindingLimit(info, windowLimit)
	if n*t.size > limit {
		// Past one binding: chunks of at most a 16th of a binding, so
		// that a window holds a whole number of them at an aligned
		// offset (tiling.WindowTiles).
		groups = max(groups, align.CeilDiv(n*t.size*16, limit))
	}
	// At most a step each, and at least enough that no workgroup's walk
	// passes pipeline.LoopBudget steps.
	groups = max(min(groups, align.CeilDiv(n, step)), align.CeilDiv(n, pipeline.LoopBudget*step), 1)
	chunk := max(align.Up(align.CeilDiv(n, groups), step), step)
	t.chunk, t.groups = uint32(chunk), uint32(max(align.CeilDiv(n, chunk), 1))
	t.partialsOff = 16
	t.scratch = align.Up(t.partialsOff+16*uint64(t.groups), 256)
	if t.scratch > uint64(info.MaxStorageBufferRange) {
		return r, tuning{}, invalid("%d workgroups: their partial results (%d bytes) exceed one binding (maxStorageBufferRange %d)", t.groups, t.scratch, info.MaxStorageBufferRange)
	}
	if n*t.size > limit {
		if t.windowGroups = tiling.WindowTiles(info, limit, chunk*t.size); t.windowGroups == 0 {
			return r, tuning{}, invalid("past one binding (%d bytes of elements, maxStorageBufferRange %d) the windows are whole chunks at offsets aligned to %d bytes, and one binding holds none of chunks of %d bytes",
				n*t.size, limit, info.MinStorageBufferOffsetAlignment, chunk*t.size)
		}
	}
	return r, t, nil
}

// bindingLimit is the bytes a plan puts in one binding:
// maxStorageBufferRange, or windowLimit where that is lower and not zero.
func bindingLimit(info vk.DeviceInfo, windowLimit uint64) uint64 {
	if windowLimit != 0 {
		return min(windowLimit, uint64(info.MaxStorageBufferRange))
	}
	return uint64(info.MaxStorageBufferRange)
}
