package vkcompact_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// nilCase is one public entry point called with a nil or zero handle,
// context, buffer, range, command buffer, recorder, plan or timer.
type nilCase struct {
	entry, input string
	// msg is a part of the error's text naming what was nil or zero;
	// empty where the entry returns no error and must only not panic
	// (an accessor, which returns a zero value).
	msg  string
	call func() error
}

// TestNilAndZeroHandles calls every public entry point of the library that
// takes a handle, a context, a buffer, a range, a command buffer, a
// recorder, a plan or a timer with a nil or zero one: each returns an
// error matching vk.ErrInvalid that names it (or, for an accessor with no
// error to return, a zero value), and none panics or reaches the driver
// with a nil handle. It runs in every CI leg (no GPU work but a context).
func TestNilAndZeroHandles(t *testing.T) {
	ctx := vktest.Open(t)
	var (
		nilCtx   *vk.Context
		nilBuf   *vk.Buffer
		nilPipe  *vk.ComputePipeline
		nilTimer *vk.Timer
		nilRec   *pipeline.Recorder
		nilCache *pipeline.Cache
		nilKern  *pipeline.Kernel
		nilCPlan *compact.Plan
		nilSPlan *scan.Plan
		nilSkPl  *scan.ByKeyPlan
		nilRPlan *radix.Plan
		nilStPl  *radix.StructPlan
		nilRdPl  *reduce.Plan
		nilSgPl  *reduce.SegmentedPlan
		nilBkPl  *reduce.ByKeyPlan
		zeroCB   vk.CommandBuffer
		zeroR    vk.Range
	)
	buf, err := ctx.NewBuffer(1024, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	zeroRec := func() *pipeline.Recorder { return pipeline.Record(zeroCB) }
	// rec runs record on a Recorder over the zero CommandBuffer and
	// returns its error: every Record into it must fail, naming it.
	rec := func(record func(*pipeline.Recorder)) func() error {
		return func() error { r := zeroRec(); record(r); return r.Err() }
	}
	// viaNilRecorder records through a nil Recorder: nothing may panic,
	// and the nil Recorder's Err reports it.
	viaNil := func(record func(*pipeline.Recorder)) func() error {
		return func() error { record(nilRec); return nilRec.Err() }
	}
	// inRun records into the context's own command buffer, where the
	// nil or zero thing is an argument of record.
	inRun := func(record func(*pipeline.Recorder)) func() error {
		return func() error { return pipeline.Run(ctx, record) }
	}
	none := func(f func()) func() error { return func() error { f(); return nil } }
	const nilContext, nilBuffer, zeroCommand = "nil context", "nil buffer", "zero CommandBuffer"
	cases := []nilCase{
		// vk: contexts.
		{"vk.Borrow", "zero Handles", "nil", func() error { _, err := vk.Borrow(vk.Handles{}); return err }},
		{"vk.DeviceRequirements", "nil instance and physical device", "nil", func() error { _, err := vk.DeviceRequirements(nil, nil, 0); return err }},
		{"Context.NewBuffer", "nil context", nilContext, func() error { _, err := nilCtx.NewBuffer(64, vk.DeviceLocal); return err }},
		{"vk.NewBufferOf", "nil context", nilContext, func() error { _, err := vk.NewBufferOf[uint32](nilCtx, 4, vk.DeviceLocal); return err }},
		{"Context.WrapBuffer", "nil context", nilContext, func() error { _, err := nilCtx.WrapBuffer(buf.Handle(), 64); return err }},
		{"Context.WrapBuffer", "nil VkBuffer", "nil VkBuffer", func() error { _, err := ctx.WrapBuffer(nil, 64); return err }},
		{"Context.NewTimer", "nil context", nilContext, func() error { _, err := nilCtx.NewTimer(2); return err }},
		{"Context.NewComputePipeline", "nil context", nilContext, func() error { _, err := nilCtx.NewComputePipeline(vk.PipelineDesc{}); return err }},
		{"Context.Submit", "nil context", nilContext, func() error { return nilCtx.Submit(func(vk.CommandBuffer) error { return nil }) }},
		{"Context.SubmitTimeout", "nil context", nilContext, func() error { return nilCtx.SubmitTimeout(time.Second, nil) }},
		{"Context.Submit", "nil record function", "nil record function", func() error { return ctx.Submit(nil) }},
		{"Context.Err", "nil context", nilContext, func() error { return nilCtx.Err() }},
		{"Context.Wrap", "nil context", nilContext, func() error { return nilCtx.Wrap(unsafe.Pointer(buf)).Err() }},
		{"Context.Submitted", "nil context", nilContext, func() error { return nilCtx.Submitted(unsafe.Pointer(buf), unsafe.Pointer(buf)) }},
		{"Context.Wrap", "nil VkCommandBuffer", "nil VkCommandBuffer", func() error { return ctx.Wrap(nil).Err() }},
		{"Context accessors", "nil context", "", none(func() {
			_, _, _, _ = nilCtx.Info(), nilCtx.Borrowed(), nilCtx.FullSubgroups(), nilCtx.Handles()
			_, _, _, _ = nilCtx.Messages(), nilCtx.Validating(), nilCtx.AllocatedBytes(), nilCtx.Objects()
			_, _, _ = nilCtx.DescriptorSets(), nilCtx.PushDescriptors(), nilCtx.Pending()
			nilCtx.ClearMessages()
			nilCtx.SetTimeout(time.Second)
			_ = nilCtx.Timeout()
			nilCtx.OnRelease(func() {})
			nilCtx.Completed(nil)
			ctx.Completed(nil)
			nilCtx.Release()
			_ = nilCtx.Close()
		})},
		// vk: buffers and ranges.
		{"vk.Upload", "zero Range", nilBuffer, func() error { return vk.Upload(zeroR, []uint32{}) }},
		{"vk.Download", "zero Range", nilBuffer, func() error { return vk.Download(zeroR, []uint32{}) }},
		{"vk.Upload", "range of a nil buffer", nilBuffer, func() error { return vk.Upload(nilBuf.Range(0, 4), []uint32{1}) }},
		{"Range.Check", "zero Range", nilBuffer, func() error { return zeroR.Check() }},
		{"Buffer accessors", "nil buffer", "", none(func() {
			_, _, _, _, _ = nilBuf.Size(), nilBuf.Kind(), nilBuf.Handle(), nilBuf.Context(), nilBuf.Borrowed()
			_, _ = nilBuf.All(), nilBuf.Range(0, 4)
			_, _ = zeroR.KnownZero(), zeroR.Sub(0, 4)
			zeroR.NoteZero()
			zeroR.NoteWritten()
			nilBuf.Release()
			_ = nilBuf.Close()
		})},
		// vk: pipelines and timers.
		{"ComputePipeline.Statistics", "nil pipeline", "nil pipeline", func() error { _, err := nilPipe.Statistics(); return err }},
		{"Timer.Ticks", "nil timer", "nil timer", func() error { _, err := nilTimer.Ticks(); return err }},
		{"Timer.Nanoseconds", "nil timer", "nil timer", func() error { _, err := nilTimer.Nanoseconds(0, 1); return err }},
		{"Timer.Stamp", "nil timer", "nil timer", func() error {
			return ctx.Submit(func(cb vk.CommandBuffer) error { nilTimer.Reset(cb); nilTimer.Stamp(cb, 0); return nil })
		}},
		{"Timer and pipeline accessors", "nil", "", none(func() { _ = nilTimer.Count(); nilTimer.Release(); nilPipe.Release() })},
		// vk: command buffers.
		{"CommandBuffer.Dispatch", "zero CommandBuffer", zeroCommand, func() error { return zeroCB.Dispatch(nilPipe, nil, nil, 1, 1, 1) }},
		{"CommandBuffer.DispatchIndirect", "zero CommandBuffer", zeroCommand, func() error { return zeroCB.DispatchIndirect(nilPipe, nil, nil, zeroR) }},
		{"CommandBuffer recording", "zero CommandBuffer", zeroCommand, func() error {
			zeroCB.CopyBuffer(zeroR, zeroR)
			zeroCB.FillBuffer(zeroR, 0)
			zeroCB.MemoryBarrier(vk.StageComputeShader, vk.StageComputeShader, vk.AccessShaderWrite, vk.AccessShaderRead)
			zeroCB.BufferBarrier(vk.StageComputeShader, vk.StageComputeShader, vk.AccessShaderWrite, vk.AccessShaderRead, zeroR)
			zeroCB.LeaveZero(zeroR)
			_, _, _ = zeroCB.Recording(), zeroCB.Handle(), zeroCB.Context()
			return zeroCB.Err()
		}},
		{"CommandBuffer.CopyBuffer", "zero Ranges", nilBuffer, func() error {
			return ctx.Submit(func(cb vk.CommandBuffer) error { cb.CopyBuffer(zeroR, buf.All()); return nil })
		}},
		{"CommandBuffer.FillBuffer", "zero Range", nilBuffer, func() error {
			return ctx.Submit(func(cb vk.CommandBuffer) error { cb.FillBuffer(zeroR, 0); return nil })
		}},
		{"CommandBuffer.BufferBarrier", "zero Range", "nil buffer", func() error {
			return ctx.Submit(func(cb vk.CommandBuffer) error {
				cb.BufferBarrier(vk.StageComputeShader, vk.StageComputeShader, vk.AccessShaderWrite, vk.AccessShaderRead, zeroR)
				return nil
			})
		}},
		{"CommandBuffer.Dispatch", "nil pipeline", "nil pipeline", func() error {
			return ctx.Submit(func(cb vk.CommandBuffer) error { return cb.Dispatch(nilPipe, nil, nil, 1, 1, 1) })
		}},
		// pipeline.
		{"pipeline.Record", "zero CommandBuffer", zeroCommand, rec(func(*pipeline.Recorder) {})},
		{"pipeline.Record", "Context.Wrap(nil)", "nil VkCommandBuffer", func() error { return pipeline.Record(ctx.Wrap(nil)).Err() }},
		{"pipeline.Run", "nil context", "nil", func() error { return pipeline.Run(nilCtx, func(*pipeline.Recorder) {}) }},
		{"pipeline.Run", "nil record function", "nil", func() error { return pipeline.Run(ctx, nil) }},
		{"Recorder", "nil Recorder", "nil Recorder", viaNil(func(r *pipeline.Recorder) {
			r.Dispatch(nil, 1, nil)
			r.DispatchIndirect(nil, zeroR, nil)
			r.Fail(errors.New("x"))
			r.LeaveZero(zeroR)
			_, _ = r.Stats()
			_ = r.CommandBuffer()
			_ = r.Begin(func() error { return nil })
			pipeline.Stamps(r, nil)()
		})},
		{"Recorder.Dispatch", "nil pipeline", "nil pipeline", inRun(func(r *pipeline.Recorder) { r.Dispatch(nil, 1, nil) })},
		{"pipeline.For", "nil context", "nil context", func() error { _, err := pipeline.For(nilCtx).Get(nilKern, 64); return err }},
		{"Cache.Get", "nil cache", "nil context", func() error { _, err := nilCache.Get(nilKern, 64); return err }},
		{"Cache.Get", "nil kernel", "no SPIR-V", func() error { _, err := pipeline.For(ctx).Get(nilKern, 64); return err }},
		{"Cache accessors", "nil cache", "", none(func() { _, _ = nilCache.Len(), nilCache.Pipelines() })},
		// The root package's copy and fill.
		{"transfer.Copy", "nil context", "nil", func() error { return transfer.Copy(nilCtx, buf.All(), buf.All(), transfer.CopyOptions{}) }},
		{"transfer.Copy", "zero Ranges", nilBuffer, func() error { return transfer.Copy(ctx, zeroR, zeroR, transfer.CopyOptions{}) }},
		{"transfer.CheckCopyOptions", "nil context", "nil", func() error { return transfer.CheckCopyOptions(nilCtx, transfer.CopyOptions{}) }},
		{"transfer.RecordCopy", "zero CommandBuffer", zeroCommand, rec(func(r *pipeline.Recorder) {
			transfer.RecordCopy(r, buf.Range(0, 64), buf.Range(64, 64), transfer.CopyOptions{})
		})},
		{"transfer.RecordCopy", "zero Ranges", nilBuffer, inRun(func(r *pipeline.Recorder) { transfer.RecordCopy(r, zeroR, zeroR, transfer.CopyOptions{}) })},
		{"transfer.RecordCopyCount", "zero count Range", nilBuffer, inRun(func(r *pipeline.Recorder) {
			transfer.RecordCopyCount(r, buf.Range(0, 64), buf.Range(64, 64), zeroR, 4, transfer.CopyOptions{})
		})},
		{"transfer.RecordFill", "zero Range", nilBuffer, inRun(func(r *pipeline.Recorder) { transfer.RecordFill(r, zeroR, 0) })},
		{"transfer.RecordCopy and RecordFill", "nil Recorder", "nil Recorder", viaNil(func(r *pipeline.Recorder) {
			transfer.RecordCopy(r, buf.Range(0, 64), buf.Range(64, 64), transfer.CopyOptions{})
			transfer.RecordFill(r, buf.All(), 0)
		})},
	}
	cases = append(cases, operationCases(ctx, buf, zeroCB)...)
	cases = append(cases, reduceCases(ctx, buf, zeroCB)...)
	cases = append(cases, histogramPermuteCases(ctx, buf, zeroCB)...)
	cases = append(cases, []nilCase{
		{"compact.Plan", "nil Plan", "nil Plan", func() error {
			_, err := nilCPlan.Run(compact.Buffers{})
			_, _, _ = nilCPlan.N(), nilCPlan.ScratchSize(), nilCPlan.Tuning()
			return err
		}},
		{"compact.Plan.Record", "nil Plan", "nil Plan", inRun(func(r *pipeline.Recorder) { nilCPlan.Record(r, compact.Buffers{}) })},
		{"scan.Plan", "nil Plan", "nil Plan", func() error {
			_, err := nilSPlan.Run(scan.Buffers{})
			_, _, _ = nilSPlan.N(), nilSPlan.ScratchSize(), nilSPlan.Tuning()
			return err
		}},
		{"scan.Plan.Record", "nil Plan", "nil Plan", inRun(func(r *pipeline.Recorder) { nilSPlan.Record(r, scan.Buffers{}) })},
		{"scan.ByKeyPlan", "nil ByKeyPlan", "nil ByKeyPlan", func() error {
			err := nilSkPl.Run(scan.ByKeyBuffers{})
			_, _, _, _ = nilSkPl.N(), nilSkPl.ScratchSize(), nilSkPl.Tuning(), nilSkPl.Phases()
			return err
		}},
		{"scan.ByKeyPlan.Record", "nil ByKeyPlan", "nil ByKeyPlan", inRun(func(r *pipeline.Recorder) { nilSkPl.Record(r, scan.ByKeyBuffers{}) })},
		{"radix.Plan", "nil Plan", "nil Plan", func() error {
			err := nilRPlan.Run(radix.Buffers{})
			_, _, _, _, _ = nilRPlan.N(), nilRPlan.ScratchSize(), nilRPlan.Tuning(), nilRPlan.Passes(), nilRPlan.Phases()
			return err
		}},
		{"radix.Plan.Record", "nil Plan", "nil Plan", inRun(func(r *pipeline.Recorder) { nilRPlan.Record(r, radix.Buffers{}) })},
		{"radix.StructPlan", "nil StructPlan", "nil StructPlan", func() error {
			err := nilStPl.Run(radix.StructBuffers{})
			_, _, _ = nilStPl.N(), nilStPl.ScratchSize(), nilStPl.Elem()
			return err
		}},
		{"radix.StructPlan.Record", "nil StructPlan", "nil StructPlan", inRun(func(r *pipeline.Recorder) { nilStPl.Record(r, radix.StructBuffers{}) })},
		{"reduce.Plan", "nil Plan", "nil Plan", func() error {
			_, err := nilRdPl.Run(reduce.Buffers{})
			_, _, _, _ = nilRdPl.N(), nilRdPl.ScratchSize(), nilRdPl.Tuning(), nilRdPl.Phases()
			return err
		}},
		{"reduce.Plan.Record", "nil Plan", "nil Plan", inRun(func(r *pipeline.Recorder) { nilRdPl.Record(r, reduce.Buffers{}) })},
		{"reduce.SegmentedPlan", "nil SegmentedPlan", "nil SegmentedPlan", func() error {
			err := nilSgPl.Run(reduce.SegmentedBuffers{})
			_, _, _, _, _ = nilSgPl.N(), nilSgPl.Segments(), nilSgPl.ScratchSize(), nilSgPl.Tuning(), nilSgPl.Phases()
			return err
		}},
		{"reduce.SegmentedPlan.Record", "nil SegmentedPlan", "nil SegmentedPlan", inRun(func(r *pipeline.Recorder) { nilSgPl.Record(r, reduce.SegmentedBuffers{}) })},
		{"reduce.ByKeyPlan", "nil ByKeyPlan", "nil ByKeyPlan", func() error {
			_, err := nilBkPl.Run(reduce.ByKeyBuffers{})
			_, _, _, _ = nilBkPl.N(), nilBkPl.ScratchSize(), nilBkPl.Tuning(), nilBkPl.Phases()
			return err
		}},
		{"reduce.ByKeyPlan.Record", "nil ByKeyPlan", "nil ByKeyPlan", inRun(func(r *pipeline.Recorder) { nilBkPl.Record(r, reduce.ByKeyBuffers{}) })},
	}...)
	for _, c := range cases {
		panicked, err := callNoPanic(c.call)
		switch {
		case panicked != nil:
			t.Errorf("%s with %s panicked: %v", c.entry, c.input, panicked)
		case c.msg == "" && err != nil:
			t.Errorf("%s with %s: %v, want no error", c.entry, c.input, err)
		case c.msg != "" && (!errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%s with %s: %v, want an error matching vk.ErrInvalid naming %q", c.entry, c.input, err, c.msg)
		}
	}
	t.Logf("%d entry points called with nil or zero arguments", len(cases))
}

// operationCases are the operations' entry points: plans on a nil
// context, the slice helpers on a nil context, Record into the zero
// CommandBuffer, and zero buffers in Run.
func operationCases(ctx *vk.Context, buf *vk.Buffer, zeroCB vk.CommandBuffer) []nilCase {
	var nilCtx *vk.Context
	const nilContext = "nil context"
	cplan, err1 := compact.NewPlan(ctx, 16, compact.Selection{})
	splan, err2 := scan.NewPlan(ctx, 16, scan.Scan{})
	rplan, err3 := radix.NewPlan(ctx, 16, radix.Sort{})
	stplan, err4 := radix.NewStructPlan(ctx, 16, radix.StructSort{Elem: vkcompact.Struct(8, 4, vkcompact.Uint32)})
	skplan, err5 := scan.NewByKeyPlan(ctx, 16, scan.ByKey{})
	ukplan, err6 := compact.NewPlan(ctx, 16, compact.Selection{Keep: compact.KeepUnique(), Values: vkcompact.Float32})
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return []nilCase{{"plans", "a valid request", "plan", func() error { return fmt.Errorf("making the plans: %w", err) }}}
	}
	intoZero := func(record func(*pipeline.Recorder)) func() error {
		return func() error { r := pipeline.Record(zeroCB); record(r); return r.Err() }
	}
	return []nilCase{
		{"compact.NewPlan", "nil context", nilContext, func() error { _, err := compact.NewPlan(nilCtx, 16, compact.Selection{}); return err }},
		{"compact.Select", "nil context", nilContext, func() error { _, err := compact.Select(nilCtx, 16, compact.Selection{}, compact.Buffers{}); return err }},
		{"compact.SelectSlice", "nil context", nilContext, func() error { _, _, err := compact.SelectSlice(nilCtx, []uint32{1}, compact.Selection{}); return err }},
		{"compact.SelectFlaggedSlice", "nil context", nilContext, func() error {
			_, _, err := compact.SelectFlaggedSlice(nilCtx, []uint32{1}, []uint8{1}, compact.Selection{})
			return err
		}},
		{"compact.UniqueByKeySlice", "nil context", nilContext, func() error {
			_, _, _, err := compact.UniqueByKeySlice(nilCtx, []uint32{1}, []float32{1}, compact.Selection{})
			return err
		}},
		{"compact.Plan.Run", "unique by key's zero Values and ValuesOut", "no values buffer", func() error {
			var b compact.Buffers
			for _, x := range []struct {
				r    *vk.Range
				size uint64
			}{{&b.Src, 64}, {&b.Dst, 64}, {&b.Result, compact.ResultSize}, {&b.Scratch, ukplan.ScratchSize()}} {
				nb, err := ctx.NewBuffer(max(x.size, 16), vk.DeviceLocal)
				if err != nil {
					return err
				}
				defer nb.Release()
				*x.r = nb.Range(0, x.size)
			}
			_, err := ukplan.Run(b)
			return err
		}},
		{"compact.ReadResult", "zero Range", "nil buffer", func() error { _, err := compact.ReadResult(vk.Range{}); return err }},
		{"compact.Plan.Run", "zero Buffers", "source", func() error { _, err := cplan.Run(compact.Buffers{}); return err }},
		{"compact.Plan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			cplan.Record(r, compact.Buffers{Src: buf.Range(0, 64), Dst: buf.Range(64, 64)})
		})},
		{"scan.NewPlan", "nil context", nilContext, func() error { _, err := scan.NewPlan(nilCtx, 16, scan.Scan{}); return err }},
		{"scan.ScanSlice", "nil context", nilContext, func() error { _, _, err := scan.ScanSlice(nilCtx, []uint32{1}, scan.Scan{}); return err }},
		{"scan.Plan.Run", "zero Buffers", "source", func() error { _, err := splan.Run(scan.Buffers{}); return err }},
		{"scan.Plan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			splan.Record(r, scan.Buffers{Src: buf.Range(0, 64)})
		})},
		{"scan.NewByKeyPlan", "nil context", nilContext, func() error { _, err := scan.NewByKeyPlan(nilCtx, 16, scan.ByKey{}); return err }},
		{"scan.ScanByKeySlice", "nil context", nilContext, func() error {
			_, err := scan.ScanByKeySlice(nilCtx, []uint32{1}, []uint32{1}, scan.ByKey{})
			return err
		}},
		{"scan.ByKeyPlan.Run", "zero ByKeyBuffers", "keys", func() error { return skplan.Run(scan.ByKeyBuffers{}) }},
		{"scan.ByKeyPlan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			skplan.Record(r, scan.ByKeyBuffers{Keys: buf.Range(0, 64), Values: buf.Range(64, 64)})
		})},
		{"radix.NewPlan", "nil context", nilContext, func() error { _, err := radix.NewPlan(nilCtx, 16, radix.Sort{}); return err }},
		{"radix.NewStructPlan", "nil context", nilContext, func() error {
			_, err := radix.NewStructPlan(nilCtx, 16, radix.StructSort{Elem: vkcompact.Struct(8, 4, vkcompact.Uint32)})
			return err
		}},
		{"radix.SortSlice", "nil context", nilContext, func() error { _, err := radix.SortSlice(nilCtx, []uint32{1}, radix.Sort{}); return err }},
		{"radix.SortPairsSlice", "nil context", nilContext, func() error {
			_, _, err := radix.SortPairsSlice(nilCtx, []uint32{1}, []uint32{1}, radix.Sort{})
			return err
		}},
		{"radix.SortStructsSlice", "nil context", nilContext, func() error {
			_, err := radix.SortStructsSlice(nilCtx, []struct{ A, K uint32 }{{1, 2}}, "K", radix.StructSort{})
			return err
		}},
		{"radix.Plan.Run", "zero Buffers", "keys", func() error { return rplan.Run(radix.Buffers{}) }},
		{"radix.Plan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			rplan.Record(r, radix.Buffers{Keys: buf.Range(0, 64), KeysOut: buf.Range(64, 64)})
		})},
		{"radix.StructPlan.Run", "zero StructBuffers", "source", func() error { return stplan.Run(radix.StructBuffers{}) }},
		{"radix.StructPlan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			stplan.Record(r, radix.StructBuffers{Src: buf.Range(0, 128), Dst: buf.Range(128, 128)})
		})},
	}
}

// reduceCases are package reduce's entry points, as operationCases.
func reduceCases(ctx *vk.Context, buf *vk.Buffer, zeroCB vk.CommandBuffer) []nilCase {
	var nilCtx *vk.Context
	const nilContext = "nil context"
	plan, err1 := reduce.NewPlan(ctx, 16, reduce.Reduce{})
	seg, err2 := reduce.NewSegmentedPlan(ctx, 16, 2, reduce.Segmented{})
	bk, err3 := reduce.NewByKeyPlan(ctx, 16, reduce.ByKey{})
	if err := errors.Join(err1, err2, err3); err != nil {
		return []nilCase{{"reduce plans", "a valid request", "plan", func() error { return fmt.Errorf("making the plans: %w", err) }}}
	}
	intoZero := func(record func(*pipeline.Recorder)) func() error {
		return func() error { r := pipeline.Record(zeroCB); record(r); return r.Err() }
	}
	return []nilCase{
		{"reduce.NewPlan", "nil context", nilContext, func() error { _, err := reduce.NewPlan(nilCtx, 16, reduce.Reduce{}); return err }},
		{"reduce.NewSegmentedPlan", "nil context", nilContext, func() error {
			_, err := reduce.NewSegmentedPlan(nilCtx, 16, 2, reduce.Segmented{})
			return err
		}},
		{"reduce.NewByKeyPlan", "nil context", nilContext, func() error { _, err := reduce.NewByKeyPlan(nilCtx, 16, reduce.ByKey{}); return err }},
		{"reduce.ReduceSlice", "nil context", nilContext, func() error { _, _, err := reduce.ReduceSlice(nilCtx, []uint32{1}, reduce.Reduce{}); return err }},
		{"reduce.ReduceSegmentsSlice", "nil context", nilContext, func() error {
			_, err := reduce.ReduceSegmentsSlice(nilCtx, []uint32{1}, []uint32{0, 1}, reduce.Segmented{})
			return err
		}},
		{"reduce.ReduceByKeySlice", "nil context", nilContext, func() error {
			_, _, err := reduce.ReduceByKeySlice(nilCtx, []uint32{1}, []uint32{1}, reduce.ByKey{})
			return err
		}},
		{"reduce.ReadResult", "zero Range", "a result block of 0 bytes", func() error { _, err := reduce.ReadResult(vk.Range{}); return err }},
		{"reduce.ReadByKeyResult", "zero Range", "a result block of 0 bytes", func() error { _, err := reduce.ReadByKeyResult(vk.Range{}); return err }},
		{"reduce.Plan.Run", "zero Buffers", "source", func() error { _, err := plan.Run(reduce.Buffers{}); return err }},
		{"reduce.Plan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			plan.Record(r, reduce.Buffers{Src: buf.Range(0, 64)})
		})},
		{"reduce.SegmentedPlan.Run", "zero SegmentedBuffers", "source", func() error { return seg.Run(reduce.SegmentedBuffers{}) }},
		{"reduce.SegmentedPlan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			seg.Record(r, reduce.SegmentedBuffers{Src: buf.Range(0, 64)})
		})},
		{"reduce.ByKeyPlan.Run", "zero ByKeyBuffers", "keys", func() error { _, err := bk.Run(reduce.ByKeyBuffers{}); return err }},
		{"reduce.ByKeyPlan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			bk.Record(r, reduce.ByKeyBuffers{Keys: buf.Range(0, 64)})
		})},
	}
}

// histogramPermuteCases are package histogram's and package permute's
// entry points, as operationCases: nil plans, a nil context, zero
// buffers, the zero CommandBuffer.
func histogramPermuteCases(ctx *vk.Context, buf *vk.Buffer, zeroCB vk.CommandBuffer) []nilCase {
	var (
		nilCtx  *vk.Context
		nilHist *histogram.Plan
		nilPerm *permute.Plan
	)
	const nilContext = "nil context"
	h := histogram.Histogram{Bins: 4, Lower: 0, Upper: 16}
	hist, err1 := histogram.NewPlan(ctx, 16, h)
	perm, err2 := permute.NewPlan(ctx, 16, permute.Permutation{})
	if err := errors.Join(err1, err2); err != nil {
		return []nilCase{{"histogram and permute plans", "a valid request", "plan", func() error { return fmt.Errorf("making the plans: %w", err) }}}
	}
	intoZero := func(record func(*pipeline.Recorder)) func() error {
		return func() error { r := pipeline.Record(zeroCB); record(r); return r.Err() }
	}
	inRun := func(record func(*pipeline.Recorder)) func() error {
		return func() error { return pipeline.Run(ctx, record) }
	}
	return []nilCase{
		{"histogram.Plan", "nil Plan", "nil Plan", func() error { _, err := nilHist.Run(histogram.Buffers{}); return err }},
		{"histogram.Plan.Record", "nil Plan", "nil Plan", inRun(func(r *pipeline.Recorder) { nilHist.Record(r, histogram.Buffers{}) })},
		{"histogram.NewPlan", "nil context", nilContext, func() error { _, err := histogram.NewPlan(nilCtx, 16, h); return err }},
		{"histogram.HistogramSlice", "nil context", nilContext, func() error { _, err := histogram.HistogramSlice(nilCtx, []uint32{1}, h); return err }},
		{"histogram.Plan.Run", "zero Buffers", "source", func() error { _, err := hist.Run(histogram.Buffers{}); return err }},
		{"histogram.Plan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			hist.Record(r, histogram.Buffers{Src: buf.Range(0, 64), Counts: buf.Range(256, 16)})
		})},
		{"permute.Plan", "nil Plan", "nil Plan", func() error { return nilPerm.Run(permute.Buffers{}) }},
		{"permute.Plan.Record", "nil Plan", "nil Plan", inRun(func(r *pipeline.Recorder) { nilPerm.Record(r, permute.Buffers{}) })},
		{"permute.NewPlan", "nil context", nilContext, func() error { _, err := permute.NewPlan(nilCtx, 16, permute.Permutation{}); return err }},
		{"permute.GatherSlice", "nil context", nilContext, func() error {
			_, err := permute.GatherSlice(nilCtx, []uint32{1}, []uint32{0}, permute.Permutation{})
			return err
		}},
		{"permute.ScatterSlice", "nil context", nilContext, func() error {
			_, err := permute.ScatterSlice(nilCtx, []uint32{0}, []uint32{1}, []uint32{0}, permute.Permutation{})
			return err
		}},
		{"permute.Plan.Run", "zero Buffers", "indices", func() error { return perm.Run(permute.Buffers{}) }},
		{"permute.Plan.Record", "zero CommandBuffer", "zero CommandBuffer", intoZero(func(r *pipeline.Recorder) {
			perm.Record(r, permute.Buffers{Indices: buf.Range(0, 64), Src: buf.Range(256, 64), Dst: buf.Range(512, 64)})
		})},
	}
}

// callNoPanic calls f, turning a panic into a value.
func callNoPanic(f func() error) (panicked any, err error) {
	defer func() { panicked = recover() }()
	return nil, f()
}
