// Package planrun runs an operation's plan once on its context's own
// queue, for the operations' Run methods and slice helpers: it allocates
// the ranges the caller left zero, records and waits, reads the results
// back while those ranges live, and releases what it allocated, whatever
// happened.
package planrun

import (
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// Temp is a range Run allocates for the call where the caller left it
// zero.
type Temp struct {
	Range *vk.Range // the caller's range: allocated where its Buffer is nil
	Size  uint64    // the bytes it needs
}

// Run allocates each of temps whose Range is zero (Buffers.New), records
// with record on ctx's own queue and waits (pipeline.Run), then calls
// read, where it is not nil, while the ranges it allocated live, and
// releases them. record and read see the allocated ranges through the
// pointers in temps.
func Run[T any](ctx *vk.Context, temps []Temp, record func(*pipeline.Recorder), read func() (T, error)) (T, error) {
	var zero T
	var bufs Buffers
	defer bufs.Release()
	for _, t := range temps {
		if t.Range.Buffer != nil {
			continue
		}
		r, err := bufs.New(ctx, t.Size)
		if err != nil {
			return zero, err
		}
		*t.Range = r
	}
	if err := pipeline.Run(ctx, record); err != nil {
		return zero, err
	}
	if read == nil {
		return zero, nil
	}
	return read()
}

// Buffers are device-local buffers made for one call and released
// together. The zero value holds none.
type Buffers struct {
	bufs []*vk.Buffer
}

// New makes a device-local buffer on ctx of size bytes, rounded up to a
// multiple of 4 and to at least 16 (a buffer holds something), and
// returns its first size bytes.
func (b *Buffers) New(ctx *vk.Context, size uint64) (vk.Range, error) {
	buf, err := ctx.NewBuffer(max(align.Up(size, 4), 16), vk.DeviceLocal)
	if err != nil {
		return vk.Range{}, err
	}
	b.bufs = append(b.bufs, buf)
	return buf.Range(0, size), nil
}

// Release releases the buffers New made (vk.Buffer.Release: each is
// retired until the library's work that may use it has completed) and
// forgets them.
func (b *Buffers) Release() {
	for _, buf := range b.bufs {
		buf.Release()
	}
	b.bufs = nil
}

// Upload makes a device-local buffer on ctx in b (Buffers.New) of size
// bytes and uploads data to its start; a nil data uploads nothing (an
// output's range).
func Upload[T any](ctx *vk.Context, b *Buffers, data []T, size uint64) (vk.Range, error) {
	r, err := b.New(ctx, size)
	if err == nil && data != nil {
		err = vk.Upload(r, data)
	}
	return r, err
}
