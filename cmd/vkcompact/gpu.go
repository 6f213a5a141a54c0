package main

import (
	"fmt"
	"io"

	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// releaseChecked releases ctx and, when the validation layer is on
// (VKCOMPACT_VALIDATE=1), turns its messages into an error.
func releaseChecked(ctx *vk.Context, err error, stderr io.Writer) error {
	ctx.Release()
	msgs := ctx.Messages()
	if len(msgs) == 0 || err != nil {
		return err
	}
	for _, m := range msgs {
		fmt.Fprintln(stderr, "vkcompact: validation:", m)
	}
	return fmt.Errorf("the validation layer reported %d message(s)", len(msgs))
}

// onDevice opens the device opts names, runs f on it with an allocator of
// device-local buffers, then frees the buffers and releases the device,
// turning the validation layer's messages into an error when it is on
// (releaseChecked). It returns the device's name, for the report. Every
// command that uses a device opens it here.
func onDevice(opts vk.Options, stderr io.Writer, f func(ctx *vk.Context, a *allocator) error) (device string, err error) {
	ctx, err := vk.Open(opts)
	if err != nil {
		return "", err
	}
	defer func() { err = releaseChecked(ctx, err, stderr) }()
	a := &allocator{ctx: ctx}
	defer a.release()
	return ctx.Info().Name, f(ctx, a)
}

// allocator allocates device-local buffers and keeps the first error.
type allocator struct {
	ctx  *vk.Context
	bufs []*vk.Buffer
	err  error
}

// alloc returns a range of size bytes in a new buffer (of at least 16
// bytes), or an empty range after an error.
func (a *allocator) alloc(size uint64) vk.Range {
	if a.err != nil {
		return vk.Range{}
	}
	b, err := a.ctx.NewBuffer(max(size, 16), vk.DeviceLocal)
	if err != nil {
		a.err = err
		return vk.Range{}
	}
	a.bufs = append(a.bufs, b)
	return b.Range(0, size)
}

// release frees the buffers.
func (a *allocator) release() {
	for _, b := range a.bufs {
		b.Release()
	}
}

// submitTimed records and runs one command buffer: the host's uploads
// ordered before record's work, and its results before the host's reads.
// It returns the GPU time of the work in milliseconds, or nil where the
// device has no timestamps.
func submitTimed(ctx *vk.Context, record func(*pipeline.Recorder)) (*float64, error) {
	var timer *vk.Timer
	if ctx.Info().TimestampValidBits > 0 {
		var err error
		if timer, err = ctx.NewTimer(2); err != nil {
			return nil, err
		}
		defer timer.Release()
	}
	err := ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageComputeShader, vk.AccessMemoryWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
		if timer != nil {
			timer.Reset(cb)
			timer.Stamp(cb, 0)
		}
		rec := pipeline.Record(cb)
		record(rec)
		if timer != nil {
			timer.Stamp(cb, 1)
		}
		cb.MemoryBarrier(vk.StageComputeShader, vk.StageAllCommands, vk.AccessShaderWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
		return rec.Err()
	})
	if err != nil || timer == nil {
		return nil, err
	}
	ns, err := timer.Nanoseconds(0, 1)
	if err != nil {
		return nil, err
	}
	ms := ns / 1e6
	return &ms, nil
}
