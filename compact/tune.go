package compact

import (
	"fmt"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/vk"
)

// The tuning of a selection: a pure function of the device's information,
// the element count, the Selection and the binding limits, which creates
// nothing. It checks the request (checkRequest), then picks one algorithm:
// the single pass where it is asked for or PathAuto takes it and it
// applies (tuneSinglePass says why not where it does not), else the three
// phases (tuneThreePhase). Each returns its own value; nothing is set and
// then undone.

// limits bound what one binding of a plan holds. A zero field means the
// device's maxStorageBufferRange, as NewPlan has it; tests pass small ones
// so that small inputs take several segments or windows. They are
// arguments rather than package state, so the tuning stays a pure function
// of its arguments.
type limits struct {
	// segBytes bounds the three phases' segments, and so their destination
	// pages and in-place copy-back pieces.
	segBytes uint64
	// windowBytes bounds the single pass's bindings: past it, the input is
	// cut into windows (planWindows).
	windowBytes uint64
}

// bindingBytes is limit where it is set and below the device's one
// binding, maxStorageBufferRange, and that otherwise.
func bindingBytes(info vk.DeviceInfo, limit uint64) uint64 {
	if limit != 0 && limit < uint64(info.MaxStorageBufferRange) {
		return limit
	}
	return uint64(info.MaxStorageBufferRange)
}

// request is a selection of n elements checked for a device: what every
// algorithm shares.
type request struct {
	sel   Selection // as given, GroupSize defaulted
	n     uint32
	size  uint64 // bytes per element
	words uint32 // 32-bit words per element
	epv   uint32 // elements per uvec4 load (1 for elements past 8 bytes)
	pred  uint32 // select.glsl's predicate code
	cLo   uint32 // the predicate's constant, low word
	cHi   uint32 // and high word
	// vwords is the 32-bit words per value of Selection.Values (0: none).
	vwords uint32
	// The resolved Options (tiling.Resolve): the three phases' workgroup
	// size, loads per lane and processors; the single pass starts from the
	// first two.
	wg, loads, procs uint32
}

// tunePlan checks sel for n elements on a device with info and picks the
// plan's algorithm, its tuning and sizes within lim: a pure function of
// its arguments, which creates nothing (the plan it returns has no
// context and no pipelines).
func tunePlan(info vk.DeviceInfo, n uint64, sel Selection, lim limits) (*Plan, error) {
	q, err := checkRequest(info, n, sel, tuningFor(info).workgroup)
	if err != nil {
		return nil, err
	}
	alg, err := pick(info, &q, lim)
	if err != nil {
		return nil, err
	}
	if err := checkOneBinding(&q, alg); err != nil {
		return nil, err
	}
	if err := checkValuesBinding(info, &q, alg, lim); err != nil {
		return nil, err
	}
	return &Plan{req: q, alg: alg}, nil
}

// pick tunes the algorithm that q takes on a device with info.
func pick(info vk.DeviceInfo, q *request, lim limits) (algorithm, error) {
	path := q.sel.Path
	// PathAuto keeps the three phases for no elements: their one dispatch
	// writes the result block; the single pass takes them when asked.
	if path == vkcompact.PathSinglePass || (path == vkcompact.PathAuto && q.n > 0 && tuningFor(info).autoSinglePass(info, uint64(q.n)*q.size)) {
		s, why := tuneSinglePass(info, q, lim.windowBytes)
		if why == "" {
			return &s, nil
		}
		if path == vkcompact.PathSinglePass {
			return nil, errs.Invalidf("compact: the single pass does not apply: %s", why)
		}
	}
	t, err := tuneThreePhase(info, q, lim.segBytes)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// checkRequest checks sel for n elements on a device with info and
// resolves what every algorithm shares; defaultWG is the workgroup where
// sel chose none (0: tiling.Resolve's).
func checkRequest(info vk.DeviceInfo, n uint64, sel Selection, defaultWG uint32) (request, error) {
	if err := sel.Elem.Check(); err != nil {
		return request{}, errs.Invalidf("%w", err)
	}
	if n > MaxElements {
		return request{}, errs.Invalidf("compact: %d elements: at most %d", n, uint64(MaxElements))
	}
	pred, lo, hi, err := sel.Keep.encode(sel.Elem.Key)
	if err != nil {
		return request{}, errs.Invalidf("%w", err)
	}
	q := request{sel: sel, n: uint32(n), size: uint64(sel.Elem.Size()), pred: pred, cLo: lo, cHi: hi}
	q.words = uint32(q.size / 4)
	q.epv = 1
	switch q.words {
	case 1:
		q.epv = 4
	case 2:
		q.epv = 2
	}
	o := sel.Options
	wg := o.WorkgroupSize
	if wg == 0 {
		wg = defaultWG // 0: tiling's default
	}
	if q.wg, q.loads, q.procs, err = tiling.Resolve(info, wg, o.LoadsPerLane, o.Processors, q.words); err != nil {
		return request{}, fmt.Errorf("compact: %w", err)
	}
	if o.GroupSize == 0 {
		q.sel.GroupSize = defaultGroupSize
	}
	if o.Path > vkcompact.PathSinglePass {
		return request{}, errs.Invalidf("compact: unknown path %d", o.Path)
	}
	if o.Write > WriteStaged { // checked here: the single pass ignores Write
		return request{}, errs.Invalidf("compact: unknown write strategy %d", o.Write)
	}
	if sel.ReverseRejected && !sel.Split {
		return request{}, errs.Invalidf("compact: ReverseRejected applies to a split only")
	}
	if err := checkIndices(sel); err != nil {
		return request{}, err
	}
	if q.vwords, err = checkValues(sel); err != nil {
		return request{}, err
	}
	return q, nil
}

// region is a range of the scratch: off bytes from its start, size bytes
// long (none when size is 0).
type region struct{ off, size uint64 }

// selectSpec is select.glsl's specialization constants for q with
// workgroups of wg, procs processors and loads loads per lane.
func (q *request) selectSpec(wg, procs, loads uint32) tiling.SelectSpec {
	flagBytes := q.sel.Keep.FlagBytes
	if flagBytes == 0 {
		flagBytes = 4
	}
	return tiling.SelectSpec{WorkgroupSize: wg, Procs: procs, Stride: q.words, KeyWord: q.sel.Elem.KeyOffset / 4,
		KeyType: tiling.KeyCode(q.sel.Elem.Key), Pred: q.pred, FlagBytes: flagBytes, Vecs: loads}
}
