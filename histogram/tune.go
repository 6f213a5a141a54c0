package histogram

import (
	"fmt"
	"math"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The tuning of a histogram: a pure function of the device's information,
// the sample count, the Histogram and the bytes one dispatch binds, which
// creates nothing; NewPlan then creates the pipeline it names.

// Tuning reports the choices a plan made.
type Tuning struct {
	// WorkgroupSize and LoadsPerLane are the resolved Options.
	WorkgroupSize, LoadsPerLane uint32
	// Workgroups is each dispatch's grid; Replicas the sub-histograms
	// per workgroup.
	Workgroups, Replicas uint32
	// SharedEdges: bins by edges search a copy of the edges in shared
	// memory (where it fits beside the replicas), not the buffer.
	SharedEdges bool
	// SegmentSamples is the most samples one dispatch binds
	// (maxStorageBufferRange); Segments the dispatches.
	SegmentSamples, Segments uint32
}

// classTuning is the measured-or-reasoned choices for one kind of device.
type classTuning struct {
	// replicaBytes bounds the shared memory of the replicas: on a GPU
	// 16 KiB keeps several workgroups resident per unit; 0 means one
	// replica (a CPU device runs a workgroup on one thread, where more
	// replicas only cost their clearing and summing).
	replicaBytes uint32
	// groupsPerUnit is the resident workgroups per compute unit where
	// the device does not say how many subgroups a unit keeps.
	groupsPerUnit uint32
	// minSamplesPerBin: a workgroup gets at least this many samples per
	// count it clears and flushes (replicas times bins), so that small
	// inputs take fewer workgroups.
	minSamplesPerBin uint32
	// edgesLoads is the default loads per lane of bins by edges: each
	// sample's search is 13 steps written out, once per sample of a
	// step; on lavapipe four loads made a pipeline take 0.9 s to compile
	// against 0.13 s for even bins.
	edgesLoads uint32
}

var (
	gpuTuning = classTuning{replicaBytes: 16 << 10, groupsPerUnit: 4, minSamplesPerBin: 2, edgesLoads: defaultLoads}
	cpuTuning = classTuning{groupsPerUnit: 2, minSamplesPerBin: 2, edgesLoads: 1}
)

// defaultWorkgroup and defaultLoads are Options' defaults.
const (
	defaultWorkgroup = 256
	defaultLoads     = 4
)

// checkHistogram checks h: the sample type (an unset Elem is uint32), the
// bins, and the bounds for even bins.
func checkHistogram(h Histogram) (Histogram, error) {
	if h.Elem.Stride != 0 || h.Elem.KeyOffset != 0 {
		return h, invalid("histogram: Elem %v: the samples must be plain uint32, int32 or float32", h.Elem)
	}
	h.Elem.Key = h.Elem.Key.OrUint32()
	switch h.Elem.Key {
	case vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32:
	default:
		return h, invalid("histogram: Elem %v: the samples must be uint32, int32 or float32", h.Elem)
	}
	if h.Bins == 0 || h.Bins > MaxBins {
		return h, invalid("histogram: Bins %d: want 1 to %d", h.Bins, MaxBins)
	}
	if h.Edges {
		if h.Lower != 0 || h.Upper != 0 {
			return h, invalid("histogram: Lower %v and Upper %v bound even bins: with Edges both must be zero", h.Lower, h.Upper)
		}
		return h, nil
	}
	return h, checkBounds(h)
}

// checkBounds checks even bins' Lower and Upper for the sample type.
func checkBounds(h Histogram) error {
	lo, hi, t := h.Lower, h.Upper, h.Elem.Key
	for _, b := range []struct {
		name string
		v    float64
	}{{"Lower", lo}, {"Upper", hi}} {
		switch {
		case math.IsNaN(b.v) || math.IsInf(b.v, 0):
			return invalid("histogram: %s %v is not finite", b.name, b.v)
		case t == vkcompact.Uint32 && (b.v != math.Trunc(b.v) || b.v < 0 || b.v > math.MaxUint32):
			return invalid("histogram: %s %v is not a uint32", b.name, b.v)
		case t == vkcompact.Int32 && (b.v != math.Trunc(b.v) || b.v < math.MinInt32 || b.v > math.MaxInt32):
			return invalid("histogram: %s %v is not an int32", b.name, b.v)
		case t == vkcompact.Float32 && float64(float32(b.v)) != b.v:
			return invalid("histogram: %s %v is not a float32 value (nearest %v)", b.name, b.v, float32(b.v))
		}
	}
	if !(lo < hi) {
		return invalid("histogram: the range [%v, %v): Lower must be below Upper", lo, hi)
	}
	if t == vkcompact.Float32 {
		w := float32(hi) - float32(lo)
		if math.IsInf(float64(w), 0) {
			return invalid("histogram: the range [%v, %v) is wider than the largest float32", lo, hi)
		}
		if s := float32(h.Bins) / w; math.IsInf(float64(s), 0) {
			return invalid("histogram: the range [%v, %v) is too narrow for %d float32 bins: Bins / (Upper - Lower) overflows", lo, hi, h.Bins)
		}
	}
	return nil
}

// bounds returns the even bins' bounds as the kernel takes them.
func bounds(h Histogram) countPush {
	if h.Edges {
		return countPush{}
	}
	switch h.Elem.Key {
	case vkcompact.Int32:
		return countPush{Lower: uint32(int32(h.Lower)), Upper: uint32(int32(h.Upper)), Scale: float32(float64(h.Bins) / (h.Upper - h.Lower))}
	case vkcompact.Float32:
		lo, hi := float32(h.Lower), float32(h.Upper)
		return countPush{Lower: math.Float32bits(lo), Upper: math.Float32bits(hi), Scale: float32(h.Bins) / (hi - lo)}
	}
	return countPush{Lower: uint32(h.Lower), Upper: uint32(h.Upper), Scale: float32(float64(h.Bins) / (h.Upper - h.Lower))}
}

// tune checks h for n samples on a device with info and picks the plan's
// tuning: a pure function of its arguments, which creates nothing (the
// plan it returns has no context and no pipeline). segLimit, when not
// zero, lowers the bytes one dispatch binds below maxStorageBufferRange.
func tune(info vk.DeviceInfo, n uint64, h Histogram, segLimit uint64) (*Plan, error) {
	h, err := checkHistogram(h)
	if err != nil {
		return nil, err
	}
	if n > MaxElements {
		return nil, invalid("histogram: %d samples: at most %d", n, uint64(MaxElements))
	}
	class := cpuTuning
	if !info.CPU() {
		class = gpuTuning
	}
	t, err := resolve(info, class, h)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	limit := uint64(info.MaxStorageBufferRange)
	if segLimit != 0 {
		limit = min(limit, segLimit)
	}
	step := max(info.MinStorageBufferOffsetAlignment, 16) / 4 // samples: keeps segment offsets aligned
	seg := limit / 4 / step * step
	if seg == 0 {
		return nil, invalid("histogram: the device's maxStorageBufferRange %d holds no segment of samples", limit)
	}
	t.SegmentSamples = uint32(min(seg, MaxElements&^(step-1)))
	t.Segments = uint32(align.CeilDiv(n, uint64(t.SegmentSamples)))
	if t.Workgroups, err = grid(info, class, h, t, min(n, uint64(t.SegmentSamples))); err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	p := &Plan{n: uint32(n), h: h, tun: t}
	p.push = bounds(h)
	return p, nil
}

// resolve applies the defaults of the workgroup size, loads, replicas and
// shared edges, and checks them against the device's limits.
func resolve(info vk.DeviceInfo, class classTuning, h Histogram) (Tuning, error) {
	t := Tuning{WorkgroupSize: h.WorkgroupSize, LoadsPerLane: h.LoadsPerLane, Replicas: h.Replicas}
	if t.WorkgroupSize == 0 {
		t.WorkgroupSize = max(min(defaultWorkgroup, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0]), info.MaxSubgroupSize)
	}
	if t.WorkgroupSize%info.MaxSubgroupSize != 0 || t.WorkgroupSize > info.MaxWorkgroupInvocations || t.WorkgroupSize > info.MaxWorkgroupSize[0] {
		return t, invalid("workgroup size %d: want a multiple of the largest subgroup size %d up to %d", t.WorkgroupSize, info.MaxSubgroupSize, min(info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0]))
	}
	if t.LoadsPerLane == 0 {
		t.LoadsPerLane = defaultLoads
		if h.Edges {
			t.LoadsPerLane = class.edgesLoads
		}
	}
	if t.LoadsPerLane > vkcompact.MaxLoadsPerLane {
		return t, invalid("%d loads per lane: at most %d", t.LoadsPerLane, vkcompact.MaxLoadsPerLane)
	}
	words := info.MaxSharedMemory / 4
	bins := h.Bins
	if t.Replicas == 0 {
		subgroups := max(t.WorkgroupSize/info.MaxSubgroupSize, 1)
		t.Replicas = max(min(subgroups, class.replicaBytes/(4*bins)), 1)
	}
	if uint64(t.Replicas)*uint64(bins)+1 > uint64(words) {
		return t, invalid("%d replicas of %d bins take %d bytes of shared memory: the device has %d", t.Replicas, bins, 4*(uint64(t.Replicas)*uint64(bins)+1), info.MaxSharedMemory)
	}
	t.SharedEdges = h.Edges && uint64(t.Replicas)*uint64(bins)+uint64(bins)+1 <= uint64(words)
	return t, nil
}

// grid picks the workgroups of a dispatch of up to seg samples: the
// caller's, else enough to fill the device once, fewer where each would
// get fewer than minSamplesPerBin samples per count it clears; and never
// so few that a workgroup walks more than pipeline.LoopBudget tiles.
func grid(info vk.DeviceInfo, class classTuning, h Histogram, t Tuning, seg uint64) (uint32, error) {
	tile := uint64(t.WorkgroupSize) * uint64(t.LoadsPerLane) * 4
	need := uint32(max(align.CeilDiv(seg, tile*pipeline.LoopBudget), 1))
	if h.Workgroups != 0 {
		if h.Workgroups < need {
			return 0, invalid("%d workgroups: each would walk more than %d tiles of %d samples; at least %d", h.Workgroups, pipeline.LoopBudget, tile, need)
		}
		return h.Workgroups, nil
	}
	perGroup := max(t.WorkgroupSize/info.MaxSubgroupSize, 1)
	fill := uint32(64)
	switch {
	case info.ComputeUnits > 0 && info.SubgroupsPerUnit > 0 && !info.CPU():
		fill = info.ComputeUnits * max(info.SubgroupsPerUnit/perGroup, 1)
	case info.ComputeUnits > 0:
		fill = info.ComputeUnits * class.groupsPerUnit
	}
	least := max(tile, uint64(class.minSamplesPerBin)*uint64(t.Replicas)*uint64(h.Bins))
	groups := uint32(min(uint64(fill), max(align.CeilDiv(seg, least), 1)))
	return max(groups, need), nil
}

// spec is the kernel's specialization constants for the plan.
func (p *Plan) spec() countSpec {
	return countSpec{WorkgroupSize: p.tun.WorkgroupSize, Bins: p.h.Bins, Replicas: p.tun.Replicas,
		KeyType: tiling.KeyCode(p.h.Elem.Key), Edges: p.h.Edges, SharedEdges: p.tun.SharedEdges,
		IncludeUpper: p.h.IncludeUpper, Vecs: p.tun.LoadsPerLane}
}
