package scan

import (
	"fmt"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The tuning of a prefix sum: a pure function of the device's information,
// the element count, the Scan and the bytes one binding holds, which
// creates nothing and picks one algorithm (threephase.go, singlepass.go),
// each tuned by a pure function of its own; then NewPlan creates the
// pipelines it names.

// Tuning reports the choices a plan made.
type Tuning struct {
	Path vkcompact.Path // the path taken
	// The three phases: processors, elements per chunk, chunks, and the
	// elements bound at once (maxStorageBufferRange).
	Processors, Chunk, Chunks, SegmentElems uint32
	// WorkgroupSize and LoadsPerLane are the resolved Options.
	WorkgroupSize, LoadsPerLane uint32
	// The single pass: elements per tile, tiles, re-reads of a late
	// predecessor before the fallback sums it, and whether a workgroup's
	// tile is its index in the dispatch (rather than the next number of a
	// tile counter).
	Tile, Tiles, Spins uint32
	TilesByIndex       bool // tiles by workgroup index (not a counter)
	// SelfReset: the pass sets its status words back to zero as it ends,
	// so a Record whose scratch is known zero records no clear before it
	// (package vkcompact, "Scratch between runs").
	SelfReset bool
	// WindowTiles: past one binding, the tiles of each dispatch, one per
	// window of the input and output; 0 when one dispatch binds them.
	WindowTiles uint32
}

// request is a prefix sum checked for n elements: what every algorithm
// shares. Its key type, key, is never Unset.
type request struct {
	scan Scan
	key  vkcompact.Type
	n    uint32
}

// algorithm is one way to run a prefix sum, tuned for one request: its
// pipelines, scratch layout and recording.
type algorithm interface {
	// pipelines creates the pipelines the tuning names.
	pipelines(cache *pipeline.Cache, info vk.DeviceInfo, req request) error
	// scratchSize is the bytes of scratch the recording uses.
	scratchSize() uint64
	// phases names the intervals between the stamps record writes.
	phases() []string
	// record records the prefix sum of n elements into r, calling stamp
	// before the first phase and after each.
	record(r *pipeline.Recorder, n uint32, b Buffers, stamp func())
	tuning() Tuning
}

// checkRequest checks s for n elements: plain elements of a key type
// (Unset is Uint32), count and path.
func checkRequest(n uint64, s Scan) (request, error) {
	key, err := gotype.PlainKey(s.Elem, "Scan.Elem")
	if err != nil {
		return request{}, fmt.Errorf("scan: %w", err)
	}
	key = key.OrUint32()
	switch key {
	case vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32:
	default:
		return request{}, errs.Invalidf("scan: a prefix scan of %v: the element type must be u32, i32 or f32", key)
	}
	if n > MaxElements {
		return request{}, errs.Invalidf("scan: %d elements: at most %d", n, uint64(MaxElements))
	}
	if err := checkOp(s.Op); err != nil {
		return request{}, err
	}
	if s.Path > vkcompact.PathSinglePass {
		return request{}, errs.Invalidf("scan: unknown path %d", s.Path)
	}
	return request{scan: s, key: key, n: uint32(n)}, nil
}

// tune checks s for n elements on a device with info and picks the
// plan's algorithm and its tuning: a pure function of its arguments,
// which creates nothing (the plan it returns has no context and no
// pipelines). windowLimit, when not zero, lowers the bytes one binding of
// the single pass holds below maxStorageBufferRange (tests cut small
// inputs into windows with it).
func tune(info vk.DeviceInfo, n uint64, s Scan, windowLimit uint64) (*Plan, error) {
	req, err := checkRequest(n, s)
	if err != nil {
		return nil, err
	}
	s = req.scan
	wg, loads, procs, err := tiling.Resolve(info, s.WorkgroupSize, s.LoadsPerLane, s.Processors, 1)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	// PathAuto keeps the three phases for no elements (their one dispatch
	// writes the total); the single pass takes them when asked.
	auto := s.Path == vkcompact.PathAuto && req.n > 0 && (tiling.AutoSinglePass(info) || req.n <= passTunings[classOf(info)].autoElems)
	if s.Path == vkcompact.PathSinglePass || auto {
		pass, why := tuneSinglePass(info, req, wg, windowLimit)
		if why == "" {
			return &Plan{request: req, alg: pass}, nil
		}
		if s.Path == vkcompact.PathSinglePass {
			return nil, errs.Invalidf("scan: the single pass does not apply to this prefix sum: %s", why)
		}
	}
	phases, err := tuneThreePhase(info, n, wg, loads, procs)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	return &Plan{request: req, alg: phases}, nil
}

// Tuning reports the choices the plan made.
func (p *Plan) Tuning() Tuning {
	if p == nil {
		return Tuning{}
	}
	return p.alg.tuning()
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
