package pipeline

import (
	"fmt"

	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/vk"
)

// Recorder appends dispatches to a command buffer and inserts a buffer
// memory barrier wherever a dispatch touches a range that an earlier
// dispatch of the sequence wrote (read-after-write, write-after-write), or
// writes a range an earlier dispatch read (write-after-read). Dispatches
// that touch disjoint ranges run without barriers between them.
//
// Like bufio.Writer, a Recorder keeps the first error: later calls record
// nothing, and Err (or Run) returns it.
//
// Synchronisation: package vkcompact's documentation (Synchronisation).
type Recorder struct {
	cb           vk.CommandBuffer
	ctx          *vk.Context
	err          error
	written      []vk.Range // written since the last barrier
	read         []vk.Range // read since the last barrier
	indirectRead bool       // some of read were indirect arguments
	// flushed were written before the last barrier, which made them
	// visible to compute shaders but not to indirect-command reads.
	flushed []vk.Range
	nDisp   int
	nBarr   int
	zeroed  []vk.Range // LeaveZero's ranges, taken back on failure
}

// Record returns a Recorder appending to cb, which must be recording. If
// commands cannot be recorded into cb (the zero CommandBuffer, one that
// Wrap refused, one of a released context: vk.CommandBuffer.Err), the
// Recorder starts with that error and records nothing.
func Record(cb vk.CommandBuffer) *Recorder {
	r := &Recorder{cb: cb, ctx: cb.Context()}
	if err := cb.Err(); err != nil {
		r.err = fmt.Errorf("pipeline: %w", err)
	}
	return r
}

// Err returns the first error met while recording, or nil. A nil
// Recorder reports an error, so that recording into one records nothing.
func (r *Recorder) Err() error {
	if r == nil {
		return errs.Invalidf("pipeline: nil Recorder")
	}
	return r.err
}

// Fail makes err the recorder's error if it has none yet. Layers above
// use it to report bad arguments through the same sticky error.
func (r *Recorder) Fail(err error) {
	if r != nil && r.err == nil && err != nil {
		r.setErr(err)
	}
}

// setErr makes err the recorder's error. A failed recording is not
// submitted, so what it noted as left zero (LeaveZero) is taken back.
func (r *Recorder) setErr(err error) {
	r.err = err
	r.forgetZeroes()
}

func (r *Recorder) forgetZeroes() {
	for _, z := range r.zeroed {
		z.NoteWritten()
	}
	r.zeroed = nil
}

// LeaveZero notes that the dispatches recorded so far leave rng zero once
// they have run (vk.Range.NoteZero), as a kernel that resets its own
// scratch does, so that the next recording can skip a clear. If the
// recorder fails later, or the submission of the library's command buffer does, the note is taken
// back: that command buffer never runs (vk.CommandBuffer.LeaveZero).
func (r *Recorder) LeaveZero(rng vk.Range) {
	if r == nil || r.err != nil {
		return
	}
	r.cb.LeaveZero(rng)
	r.zeroed = append(r.zeroed, rng)
}

// Stats reports how many dispatches and barriers were recorded.
func (r *Recorder) Stats() (dispatches, barriers int) {
	if r == nil {
		return 0, 0
	}
	return r.nDisp, r.nBarr
}

// CommandBuffer returns the command buffer being recorded (the zero
// CommandBuffer for a nil Recorder).
func (r *Recorder) CommandBuffer() vk.CommandBuffer {
	if r == nil {
		return vk.CommandBuffer{}
	}
	return r.cb
}

func overlaps(a, b vk.Range) bool {
	return a.Buffer == b.Buffer && a.Offset < b.Offset+b.Size && b.Offset < a.Offset+a.Size
}

func anyOverlap(set []vk.Range, r vk.Range) bool {
	for _, s := range set {
		if overlaps(s, r) {
			return true
		}
	}
	return false
}

// checkBinding validates one binding of a dispatch.
func (r *Recorder) checkBinding(k *Kernel, i int, b vk.Range) error {
	if err := b.Check(); err != nil {
		return fmt.Errorf("pipeline %s: binding %d: %w", k.Name, i, err)
	}
	if b.Buffer.Context() != r.ctx {
		return errs.Invalidf("pipeline %s: binding %d: the buffer belongs to another context", k.Name, i)
	}
	info := r.ctx.Info()
	if b.Size == 0 {
		return errs.Invalidf("pipeline %s: binding %d: empty range", k.Name, i)
	}
	if a := info.MinStorageBufferOffsetAlignment; a > 0 && b.Offset%a != 0 {
		return errs.Invalidf("pipeline %s: binding %d: offset %d is not a multiple of minStorageBufferOffsetAlignment %d", k.Name, i, b.Offset, a)
	}
	if b.Size > uint64(info.MaxStorageBufferRange) {
		return errs.Invalidf("pipeline %s: binding %d: %d bytes exceed maxStorageBufferRange %d", k.Name, i, b.Size, info.MaxStorageBufferRange)
	}
	return nil
}

// Dispatch records p over groups workgroups (spread over a 2D grid when
// above the device's x limit) with push constants push and binding i bound
// to bindings[i]. A barrier is recorded first if the dispatch depends on an
// earlier one of the sequence. groups == 0 records nothing.
func (r *Recorder) Dispatch(p *Pipeline, groups uint64, push []uint32, bindings ...vk.Range) {
	if !r.check(p, push, bindings) {
		return
	}
	grid, err := GridFor(r.ctx.Info(), groups)
	if err != nil {
		r.setErr(fmt.Errorf("pipeline %s: %w", p.Kernel.Name, err))
		return
	}
	if groups == 0 {
		return
	}
	r.barrierFor(p.Kernel, bindings, nil)
	if err := r.cb.Dispatch(p.p, push, bindings, grid.X, grid.Y, 1); err != nil {
		r.setErr(fmt.Errorf("pipeline %s: %w", p.Kernel.Name, err))
		return
	}
	r.nDisp++
	r.noteAccesses(p.Kernel, bindings)
}

// DispatchIndirect records p with its workgroup counts read on the GPU
// from the VkDispatchIndirectCommand at args (12 bytes, offset a multiple
// of 4), which an earlier dispatch of the sequence may have written: the
// barrier before it then covers the indirect-command read.
func (r *Recorder) DispatchIndirect(p *Pipeline, args vk.Range, push []uint32, bindings ...vk.Range) {
	if !r.check(p, push, bindings) {
		return
	}
	if err := args.Check(); err != nil {
		r.setErr(fmt.Errorf("pipeline %s: indirect arguments: %w", p.Kernel.Name, err))
		return
	}
	switch {
	case args.Buffer.Context() != r.ctx:
		r.setErr(errs.Invalidf("pipeline %s: indirect arguments in a buffer of another context", p.Kernel.Name))
		return
	case args.Offset%4 != 0:
		r.setErr(errs.Invalidf("pipeline %s: indirect arguments at offset %d: the offset must be a multiple of 4", p.Kernel.Name, args.Offset))
		return
	case args.Size < 12:
		r.setErr(errs.Invalidf("pipeline %s: indirect arguments of %d bytes: a VkDispatchIndirectCommand takes 12", p.Kernel.Name, args.Size))
		return
	}
	r.barrierFor(p.Kernel, bindings, &args)
	if err := r.cb.DispatchIndirect(p.p, push, bindings, args); err != nil {
		r.setErr(fmt.Errorf("pipeline %s: %w", p.Kernel.Name, err))
		return
	}
	r.nDisp++
	r.noteAccesses(p.Kernel, bindings)
	r.read = append(r.read, args)
	r.indirectRead = true
}

// check validates a dispatch's pipeline, push constants and bindings.
func (r *Recorder) check(p *Pipeline, push []uint32, bindings []vk.Range) bool {
	if r == nil || r.err != nil {
		return false
	}
	if !r.cb.Recording() {
		r.setErr(errs.Invalidf("pipeline: a Recorder used after its Submit callback returned: the command buffer is submitted; record inside the callback"))
		return false
	}
	if p == nil {
		r.setErr(errs.Invalidf("pipeline: dispatch of a nil pipeline"))
		return false
	}
	if p.ctx != r.ctx {
		r.setErr(errs.Invalidf("pipeline %s: dispatch of a pipeline from another context", p.Kernel.Name))
		return false
	}
	k := p.Kernel
	if len(bindings) != len(k.Bindings) {
		r.setErr(errs.Invalidf("pipeline %s: %d bindings given, the kernel has %d", k.Name, len(bindings), len(k.Bindings)))
		return false
	}
	if len(push) != k.PushWords {
		r.setErr(errs.Invalidf("pipeline %s: %d push-constant words given, the kernel takes %d", k.Name, len(push), k.PushWords))
		return false
	}
	for i, b := range bindings {
		if err := r.checkBinding(k, i, b); err != nil {
			r.setErr(err)
			return false
		}
	}
	return true
}

func (r *Recorder) noteAccesses(k *Kernel, bindings []vk.Range) {
	for i, b := range bindings {
		if k.Bindings[i]&Write != 0 {
			r.written = append(r.written, b)
		}
		if k.Bindings[i]&Read != 0 {
			r.read = append(r.read, b)
		}
	}
}

// barrierFor records the barrier the next dispatch needs, if any; args is
// its indirect-argument range, if it has one.
func (r *Recorder) barrierFor(k *Kernel, bindings []vk.Range, args *vk.Range) {
	hazard, war, indirect := false, false, false
	for i, b := range bindings {
		if anyOverlap(r.written, b) {
			hazard = true
		}
		if k.Bindings[i]&Write != 0 && anyOverlap(r.read, b) {
			war = true
		}
	}
	if args != nil && anyOverlap(r.written, *args) {
		hazard, indirect = true, true
	}
	if args != nil && !indirect && anyOverlap(r.flushed, *args) {
		// Written before an earlier barrier that covered compute shaders
		// only: one more barrier makes the arguments visible to the
		// indirect read (chained through the compute stage).
		r.cb.BufferBarrier(vk.StageComputeShader, vk.StageDrawIndirect, vk.AccessShaderWrite, vk.AccessIndirectCommandRead, *args)
		r.nBarr++
	}
	if !hazard && !war {
		return
	}
	if len(r.written) > 0 {
		dstStage, dstAccess := vk.StageComputeShader, vk.AccessShaderRead|vk.AccessShaderWrite
		if indirect {
			dstStage |= vk.StageDrawIndirect
			dstAccess |= vk.AccessIndirectCommandRead
		}
		r.cb.BufferBarrier(vk.StageComputeShader, dstStage, vk.AccessShaderWrite, dstAccess, r.written...)
	}
	if war {
		// Write-after-read needs only an execution dependency: no access.
		srcStage := vk.StageComputeShader
		if r.indirectRead {
			srcStage |= vk.StageDrawIndirect
		}
		r.cb.BufferBarrier(srcStage, vk.StageComputeShader, 0, 0, r.read...)
	}
	r.nBarr++
	if !indirect {
		r.flushed = append(r.flushed, r.written...)
	}
	r.written, r.read, r.indirectRead = r.written[:0], r.read[:0], false
}

// Run records a sequence into a command buffer of ctx's own, submits it and
// waits. The sequence is ordered after all earlier work of the queue and
// before all later work by global memory barriers. It returns the
// recorder's first error, or the submission's.
func Run(ctx *vk.Context, record func(*Recorder)) error {
	if ctx == nil || record == nil {
		return errs.Invalidf("pipeline: Run needs a context and a record function; one is nil")
	}
	return ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageComputeShader, vk.AccessMemoryWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
		r := Record(cb)
		record(r)
		if err := r.Err(); err != nil {
			return err
		}
		cb.MemoryBarrier(vk.StageComputeShader, vk.StageAllCommands, vk.AccessShaderWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
		return nil
	})
}

// Begin opens an operation's recording: it runs check (the plan's
// validation of itself and of its buffers) unless r has already failed,
// and reports whether recording may go on; r keeps check's error.
func (r *Recorder) Begin(check func() error) bool {
	if r.Err() != nil {
		return false
	}
	if err := check(); err != nil {
		r.Fail(err)
		return false
	}
	return true
}

// Stamps returns the function an operation's recording calls at each of
// its timestamps: the i-th call writes t's query i into r's command
// buffer, unless r has failed. With a nil t it writes nothing (Record
// without timing).
func Stamps(r *Recorder, t *vk.Timer) func() {
	if t == nil {
		return func() {}
	}
	next := uint32(0)
	return func() {
		if r.Err() == nil {
			t.Stamp(r.CommandBuffer(), next)
		}
		next++
	}
}
