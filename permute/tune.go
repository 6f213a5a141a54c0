package permute

import (
	"fmt"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/vk"
)

// The tuning of a move: a pure function of the device's information, the
// position count, the Permutation and the bytes one dispatch binds, which
// creates nothing; NewPlan then creates the pipeline it names.

// Tuning reports the choices a plan made.
type Tuning struct {
	// WorkgroupSize and LoadsPerLane are the resolved Options.
	WorkgroupSize, LoadsPerLane uint32
	// Packed: elements of 4 or 8 bytes, moved four positions a unit (the
	// indices one uvec4). Otherwise a unit is VectorWords words (4, 2 or
	// 1) of one element.
	Packed      bool
	VectorWords uint32
	// SegmentElems is the most positions one dispatch binds of the
	// in-order side (maxStorageBufferRange); Segments the dispatches.
	SegmentElems, Segments uint32
}

// defaultWorkgroup and defaultLoads are Options' defaults.
const (
	defaultWorkgroup = 256
	defaultLoads     = 2
)

// tune checks perm for n positions on a device with info and picks the
// plan's tuning: a pure function of its arguments, which creates nothing
// (the plan it returns has no context and no pipeline). segLimit, when
// not zero, lowers the bytes one dispatch binds below
// maxStorageBufferRange.
func tune(info vk.DeviceInfo, n uint64, perm Permutation, segLimit uint64) (*Plan, error) {
	if err := perm.Elem.Check(); err != nil {
		return nil, fmt.Errorf("permute: Elem %v: %w", perm.Elem, err)
	}
	if n > MaxElements {
		return nil, invalid("permute: %d positions: at most %d", n, uint64(MaxElements))
	}
	size := perm.Elem.Size()
	t := Tuning{WorkgroupSize: perm.WorkgroupSize, LoadsPerLane: perm.LoadsPerLane}
	maxWG := min(info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0])
	if t.WorkgroupSize == 0 {
		t.WorkgroupSize = max(min(defaultWorkgroup, maxWG), info.MaxSubgroupSize)
	}
	if t.WorkgroupSize%info.MaxSubgroupSize != 0 || t.WorkgroupSize > maxWG {
		return nil, invalid("permute: workgroup size %d: want a multiple of the largest subgroup size %d up to %d", t.WorkgroupSize, info.MaxSubgroupSize, maxWG)
	}
	if t.LoadsPerLane == 0 {
		t.LoadsPerLane = defaultLoads
	}
	if t.LoadsPerLane > vkcompact.MaxLoadsPerLane {
		return nil, invalid("permute: %d loads per lane: at most %d", t.LoadsPerLane, vkcompact.MaxLoadsPerLane)
	}
	words := size / 4
	t.Packed = words <= 2
	t.VectorWords = 1
	switch {
	case words%4 == 0:
		t.VectorWords = 4
	case words%2 == 0:
		t.VectorWords = 2
	}
	limit := uint64(info.MaxStorageBufferRange)
	if segLimit != 0 {
		limit = min(limit, segLimit)
	}
	step := max(info.MinStorageBufferOffsetAlignment, 16) / 4 // positions: keeps every window's offset aligned
	seg := min(limit/uint64(size), MaxElements) / step * step
	if seg == 0 {
		return nil, invalid("permute: %d-byte elements: the device's maxStorageBufferRange %d holds no segment of them", size, limit)
	}
	t.SegmentElems = uint32(seg)
	t.Segments = uint32(align.CeilDiv(n, seg))
	return &Plan{n: uint32(n), perm: perm, size: size, tun: t}, nil
}

// spec is the kernel's specialization constants for the plan.
func (p *Plan) spec() moveSpec {
	return moveSpec{WorkgroupSize: p.tun.WorkgroupSize, Words: p.size / 4, Scatter: p.perm.Scatter, Units: p.tun.LoadsPerLane}
}

// groups is the workgroups of a dispatch of elems positions.
func (p *Plan) groups(elems uint64) uint64 {
	units := elems * uint64(p.size/4/p.tun.VectorWords)
	if p.tun.Packed {
		units = elems/4 + 1 // the last unit takes the n % 4 positions left
	}
	return align.CeilDiv(units, uint64(p.tun.WorkgroupSize)*uint64(p.tun.LoadsPerLane))
}
