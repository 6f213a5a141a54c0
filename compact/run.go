package compact

import (
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// ReadResult reads the result block at r (ResultSize bytes, written by a
// recorded selection whose submission has completed).
func ReadResult(r vk.Range) (Result, error) {
	if r.Buffer != nil && r.Size < 12 {
		return Result{}, errs.Invalidf("compact: a result range of %d bytes: the kept, rejected and total counts need 12", r.Size)
	}
	var w [3]uint32
	if err := vk.Download(r.Sub(ResultKeptOffset, 12), w[:]); err != nil {
		return Result{}, err
	}
	return Result{Kept: w[0], Rejected: w[1], Total: w[2]}, nil
}

// Run records the selection on the context's own queue, waits, and reads
// the result block back. A zero Result or Scratch range is allocated for
// the call and released after it.
func (p *Plan) Run(b Buffers) (Result, error) {
	if p == nil {
		return Result{}, errs.Invalidf("compact: nil Plan")
	}
	return planrun.Run(p.ctx, []planrun.Temp{{Range: &b.Result, Size: ResultSize}, {Range: &b.Scratch, Size: p.ScratchSize()}},
		func(r *pipeline.Recorder) { p.Record(r, b) }, func() (Result, error) { return ReadResult(b.Result) })
}

// Select plans and runs a selection of n elements (see NewPlan, Plan.Run).
func Select(ctx *vk.Context, n uint64, sel Selection, b Buffers) (Result, error) {
	p, err := NewPlan(ctx, n, sel)
	if err != nil {
		return Result{}, err
	}
	return p.Run(b)
}
