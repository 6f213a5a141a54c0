package compact

import (
	"fmt"
	"reflect"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/vk"
)

// Unique by key: a values array beside the elements (Selection.Values),
// moved in the same pass as the elements. The single pass stages each
// kept element's index and writes the element and its value re-read
// there; the three phases' move does the same (or, scattered, writes
// both from the lane that holds the element). Both are in the neighbour
// modules (select_*_runs), which carry FirstOfRun.

// checkValues checks sel's Values and returns its words per value (0
// where there are none).
func checkValues(sel Selection) (uint32, error) {
	if sel.Values == vkcompact.Unset {
		return 0, nil
	}
	size := sel.Values.Size()
	switch {
	case size == 0:
		return 0, errs.Invalidf("compact: unknown values type %d (Selection.Values)", sel.Values)
	case sel.Keep.Op != FirstOfRun:
		return 0, errs.Invalidf("compact: values (Selection.Values) move beside a unique selection (FirstOfRun), not %v", sel.Keep)
	case sel.Split:
		return 0, errs.Invalidf("compact: values (Selection.Values) apply to a compaction, not a split")
	case sel.InPlace:
		return 0, errs.Invalidf("compact: values (Selection.Values) are written out of place, to Buffers.ValuesOut: not InPlace")
	case sel.Output != OutputElements:
		return 0, errs.Invalidf("compact: values (Selection.Values) go with the kept elements, not with Output %v", sel.Output)
	}
	return size / 4, nil
}

// checkValuesBinding refuses values that one binding does not hold: the
// neighbour selections bind the whole input, and the values beside it.
func checkValuesBinding(info vk.DeviceInfo, q *request, alg algorithm, lim limits) error {
	if q.vwords == 0 {
		return nil
	}
	limit := lim.windowBytes
	if _, ok := alg.(*threePhase); ok {
		limit = lim.segBytes
	}
	bytes := uint64(q.n) * uint64(q.vwords) * 4
	if b := bindingBytes(info, limit); bytes > b {
		return errs.Invalidf("compact: values (Selection.Values) need one binding; %d values of %d bytes exceed it (maxStorageBufferRange %d)", q.n, q.vwords*4, b)
	}
	return nil
}

// valueRanges returns the values' and kept values' ranges of b for q, or
// where q has none the ranges that stand in for them (bound, never
// accessed): src, read, and dst, written.
func (q *request) valueRanges(b Buffers, src, dst vk.Range) (values, valuesOut vk.Range) {
	if q.vwords == 0 {
		return src, dst
	}
	bytes := uint64(q.n) * uint64(q.vwords) * 4
	return b.Values.Sub(0, bytes), b.ValuesOut.Sub(0, bytes)
}

// String names the output.
func (o Output) String() string {
	switch o {
	case OutputElements:
		return "elements"
	case OutputIndices:
		return "indices"
	case OutputBoth:
		return "indices and elements"
	case outputRunLengths:
		return "run lengths"
	}
	return fmt.Sprintf("Output(%d)", uint8(o))
}

// UniqueByKeySlice keeps the first of each run of equal keys and the value
// at its position, as CUB's DeviceSelect::UniqueByKey: it returns the
// unique keys and their values, in order. keys and values have one entry
// each per element. K and sel.Elem are as UniqueSlice takes them (a key
// type, or a struct with sel.Elem saying where its key is), and so is
// sel.Keep (zero, or FirstOfRun with the Equality); sel.Values is set to
// V's type (one already set must be it). The kept count is the Result's.
func UniqueByKeySlice[K any, V uint32 | int32 | float32 | uint64 | int64 | float64](ctx *vk.Context, keys []K, values []V, sel Selection) ([]K, []V, Result, error) {
	if len(values) != len(keys) {
		return nil, nil, Result{}, errs.Invalidf("compact: %d values for %d keys", len(values), len(keys))
	}
	vt, _ := vkcompact.TypeOf(reflect.TypeFor[V]())
	if sel.Values != vkcompact.Unset && sel.Values != vt {
		return nil, nil, Result{}, errs.Invalidf("compact: Selection.Values is %v; the values are %v", sel.Values, vt)
	}
	if k := sel.Keep; k.Op != NonZero && k.Op != FirstOfRun || k.Value != (Value{}) || k.FlagBytes != 0 {
		return nil, nil, Result{}, errs.Invalidf("compact: UniqueByKeySlice keeps the first of each run; Keep %v asks for another test (leave Keep zero, or set only Keep.Equal)", k)
	}
	if sel.Output != OutputElements {
		return nil, nil, Result{}, errs.Invalidf("compact: UniqueByKeySlice returns keys and values, not Output %v", sel.Output)
	}
	sel.Keep = KeepFirstOfRun(sel.Keep.Equal)
	sel.Values = vt
	elem, err := elemFor[K](sel.Elem)
	if err != nil {
		return nil, nil, Result{}, err
	}
	sel.Elem = elem
	n := uint64(len(keys))
	p, err := NewPlan(ctx, n, sel)
	if err != nil {
		return nil, nil, Result{}, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	var b Buffers
	kb, vb := uint64(elem.Size()), uint64(vt.Size())
	for _, x := range []struct {
		r     *vk.Range
		bytes uint64
	}{{&b.Src, n * kb}, {&b.Dst, n * kb}, {&b.Values, n * vb}, {&b.ValuesOut, n * vb}} {
		if *x.r, err = bufs.New(ctx, x.bytes); err != nil {
			return nil, nil, Result{}, err
		}
	}
	if err := vk.Upload(b.Src, keys); err != nil {
		return nil, nil, Result{}, err
	}
	if err := vk.Upload(b.Values, values); err != nil {
		return nil, nil, Result{}, err
	}
	res, err := p.Run(b)
	if err != nil {
		return nil, nil, Result{}, err
	}
	if res.Total != uint32(n) || uint64(res.Kept) > n {
		return nil, nil, res, fmt.Errorf("compact: the GPU reported %d kept of %d for %d elements", res.Kept, res.Total, n)
	}
	outKeys, outValues := make([]K, res.Kept), make([]V, res.Kept)
	if err := vk.Download(b.Dst.Sub(0, uint64(res.Kept)*kb), outKeys); err != nil {
		return nil, nil, res, err
	}
	if err := vk.Download(b.ValuesOut.Sub(0, uint64(res.Kept)*vb), outValues); err != nil {
		return nil, nil, res, err
	}
	return outKeys, outValues, res, nil
}
