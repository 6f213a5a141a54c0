package vk

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"
)

// MemoryKind chooses where a buffer's memory lives.
type MemoryKind int

const (
	// DeviceLocal memory is fastest for the GPU; the host reaches it through
	// staging (or directly where the device maps it, as lavapipe does).
	DeviceLocal MemoryKind = iota
	// HostVisible memory is mapped for the host: for staging and read-back.
	HostVisible
)

// String names the kind: "device-local" or "host-visible".
func (k MemoryKind) String() string {
	if k == HostVisible {
		return "host-visible"
	}
	return "device-local"
}

// pick returns the first allowed memory type with all of want, preferring
// one with all of prefer too; -1 when none.
func (m memoryTypes) pick(allowed uint32, want, prefer uint32) int {
	best := -1
	for i, f := range m.flags {
		if allowed&(1<<i) == 0 || f&want != want {
			continue
		}
		if f&prefer == prefer {
			return i
		}
		if best < 0 {
			best = i
		}
	}
	return best
}

// Buffer is a VkBuffer with its own memory, or an engine's VkBuffer
// (Context.WrapBuffer). Release it explicitly; Release is idempotent and
// never frees memory a library submission may still use.
type Buffer struct {
	ctx      *Context
	buf      uint64 // VkBuffer
	mem      uint64 // VkDeviceMemory
	size     uint64
	memSize  uint64 // bytes of memory allocated, counted in Context.allocated
	kind     MemoryKind
	mapped   unsafe.Pointer // non-nil when the memory is host-visible
	coherent bool
	borrowed bool      // an engine's buffer (WrapBuffer): never destroyed here
	zero     zeroSpans // spans the recorded commands leave zero (zero.go)

	// use is held for reading by transfers through the mapping and for
	// writing by Release, so a Release waits for them.
	use sync.RWMutex
}

// bufferUsage covers every use vkcompact makes of a buffer: storage,
// transfers and indirect arguments.
const bufferUsage = 0x20 | 0x1 | 0x2 | 0x100 // VK_BUFFER_USAGE_ STORAGE_BUFFER, TRANSFER_SRC, TRANSFER_DST, INDIRECT_BUFFER

// NewBuffer creates a buffer of size bytes. Its contents are undefined.
func (c *Context) NewBuffer(size uint64, kind MemoryKind) (*Buffer, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.exit()
	if size == 0 {
		return nil, invalidf("buffer size 0: a buffer needs at least one byte")
	}
	if kind != DeviceLocal && kind != HostVisible {
		return nil, invalidf("unknown memory kind %d", int(kind))
	}
	f := c.fns
	buf, r := f.createBuffer(size, bufferUsage)
	if err := c.noteResult(check("vkCreateBuffer", r)); err != nil {
		return nil, fmt.Errorf("creating a %d-byte %s buffer: %w", size, kind, err)
	}
	reqSize, typeBits := f.memoryRequirements(buf)

	want, prefer := uint32(memDeviceLocal), uint32(memDeviceLocal)
	if kind == HostVisible {
		want, prefer = memHostVisible|memHostCoherent, memHostVisible|memHostCoherent|memHostCached
	}
	typ := c.memory.pick(typeBits, want, prefer)
	if typ < 0 && kind == DeviceLocal {
		typ = c.memory.pick(typeBits, 0, 0)
	}
	if typ < 0 && kind == HostVisible {
		typ = c.memory.pick(typeBits, memHostVisible, memHostVisible)
	}
	if typ < 0 {
		f.destroy(objBuffer, buf)
		return nil, errorf(ErrUnsupported, "vk: no %s memory type fits a storage buffer", kind)
	}
	if heap := c.memory.heaps[c.memory.heap[typ]]; reqSize > heap {
		f.destroy(objBuffer, buf)
		return nil, errorf(ErrOutOfDeviceMemory, "vk: a %d-byte %s buffer exceeds its memory heap (%d bytes)", size, kind, heap)
	}
	// Every buffer has memory of its own: say so (a dedicated allocation,
	// Vulkan 1.1), which lets the driver place and map it for that buffer
	// alone.
	mem, r := f.allocateMemory(reqSize, uint32(typ), buf)
	if err := c.noteResult(check("vkAllocateMemory", r)); err != nil {
		f.destroy(objBuffer, buf)
		return nil, fmt.Errorf("allocating %d bytes of %s memory: %w", size, kind, err)
	}
	if err := c.noteResult(check("vkBindBufferMemory", f.bindBufferMemory(buf, mem))); err != nil {
		f.destroy(objBuffer, buf)
		f.destroy(objMemory, mem)
		return nil, err
	}
	b := &Buffer{ctx: c, buf: buf, mem: mem, size: size, kind: kind}
	if flags := c.memory.flags[typ]; flags&memHostVisible != 0 {
		p, r := f.mapMemory(mem)
		if err := c.noteResult(check("vkMapMemory", r)); err != nil {
			f.destroy(objBuffer, buf)
			f.destroy(objMemory, mem)
			return nil, err
		}
		b.mapped, b.coherent = p, flags&memHostCoherent != 0
	}
	b.memSize = reqSize
	c.allocated.Add(b.memSize)
	if err := c.adopt(b); err != nil {
		return nil, err
	}
	return b, nil
}

// NewBufferOf creates a buffer of n elements of the plain type T (numbers,
// arrays and structs of numbers), n*sizeof(T) bytes: the typed
// counterpart of NewBuffer, to pair with Upload and Download of []T.
func NewBufferOf[T any](c *Context, n int, kind MemoryKind) (*Buffer, error) {
	t := reflect.TypeFor[T]()
	if !plainType(t) {
		return nil, invalidf("NewBufferOf: element type %v holds pointers or other Go references and cannot be copied to the GPU", t)
	}
	if n <= 0 {
		return nil, invalidf("NewBufferOf: %d elements of %v: a buffer needs at least one", n, t)
	}
	return c.NewBuffer(uint64(n)*uint64(t.Size()), kind)
}

// Close releases the buffer (see Release) and returns nil, making a Buffer
// an io.Closer: Release swallows no error.
func (b *Buffer) Close() error {
	b.Release()
	return nil
}

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() uint64 {
	if b == nil {
		return 0
	}
	return b.size
}

// Kind returns where the buffer's memory lives.
func (b *Buffer) Kind() MemoryKind {
	if b == nil {
		return DeviceLocal
	}
	return b.kind
}

// Handle returns the VkBuffer as an unsafe.Pointer (on 64-bit platforms a
// VkBuffer is a pointer-sized handle), for an engine's own barriers: with
// vulkan-go/vulkan or goki/vulkan, vulkan.Buffer(b.Handle()).
func (b *Buffer) Handle() unsafe.Pointer {
	if b == nil {
		return nil
	}
	return handlePointer(b.buf)
}

// Context returns the buffer's context (nil for a nil buffer).
func (b *Buffer) Context() *Context {
	if b == nil {
		return nil
	}
	return b.ctx
}

// live returns an error when b is nil or released.
func (b *Buffer) live() error {
	if b == nil || b.ctx == nil {
		return invalidf("nil buffer")
	}
	if !b.ctx.owns(b) {
		return released("buffer")
	}
	return nil
}

// Release frees the buffer, or, while a library submission that may use it
// is outstanding (being recorded, or in flight after a timed-out wait),
// retires it until that completes. The caller must not release a buffer
// that its own submitted command buffers still use. Release waits for
// transfers in progress on the buffer, and is idempotent.
func (b *Buffer) Release() {
	if b == nil || b.ctx == nil {
		return
	}
	b.use.Lock()
	defer b.use.Unlock()
	b.ctx.disown(b)
}

func (b *Buffer) destroyLocked() {
	c := b.ctx
	if c.sets != nil {
		c.sets.forget(c.fns, b) // its descriptor sets: a new buffer may take its handle
	}
	if b.borrowed {
		return
	}
	c.fns.destroy(objBuffer, b.buf)
	c.fns.destroy(objMemory, b.mem) // unmaps implicitly
	c.allocated.Add(-b.memSize)
}

// Range is a byte range of a buffer.
type Range struct {
	Buffer *Buffer // the buffer; nil in a zero Range
	Offset uint64  // bytes from the buffer's start
	Size   uint64  // bytes
}

// Range returns the bytes [offset, offset+size) of b. Check it with
// Range.Check or let the call that uses it report a bad range.
func (b *Buffer) Range(offset, size uint64) Range {
	return Range{Buffer: b, Offset: offset, Size: size}
}

// All returns the whole buffer as a range.
func (b *Buffer) All() Range { return Range{Buffer: b, Size: b.Size()} }

// Check reports a nil or released buffer or a range that does not fit it.
func (r Range) Check() error {
	if err := r.Buffer.live(); err != nil {
		return err
	}
	if r.Offset > r.Buffer.size || r.Size > r.Buffer.size-r.Offset {
		return invalidf("range [%d, %d+%d) exceeds the %d-byte buffer", r.Offset, r.Offset, r.Size, r.Buffer.size)
	}
	return nil
}

// Sub returns the sub-range [offset, offset+size) of r, relative to r.
func (r Range) Sub(offset, size uint64) Range {
	return Range{Buffer: r.Buffer, Offset: r.Offset + offset, Size: size}
}

// plainType reports whether values of t can be copied to the GPU as bytes:
// no pointers, slices, strings, maps, channels, functions or interfaces.
func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !plainType(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// asBytes views a slice of plain values as bytes, checking that its size
// matches want.
func asBytes[T any](s []T, want uint64, verb string) ([]byte, error) {
	t := reflect.TypeFor[T]()
	if !plainType(t) {
		return nil, invalidf("%s: element type %v holds pointers or other Go references and cannot be copied to the GPU", verb, t)
	}
	n := uint64(len(s)) * uint64(t.Size())
	if n != want {
		return nil, invalidf("%s: a slice of %d %v (%d bytes) does not match the %d-byte range", verb, len(s), t, n, want)
	}
	if n == 0 {
		return nil, nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n), nil
}

// Upload copies src into dst, whose size must be exactly len(src) elements.
// T must be a plain type (numbers, arrays and structs of numbers). Uploads
// go through a staging buffer unless dst's memory is host-visible. Upload
// waits for the copy and orders it before all later GPU work of the context.
func Upload[T any](dst Range, src []T) error {
	b, err := asBytes(src, dst.Size, "Upload")
	if err != nil {
		return err
	}
	return dst.Buffer.transfer(dst, b, true)
}

// Download copies src into dst, whose length must be exactly src.Size bytes
// of elements. It makes the device's earlier writes visible to the host
// first (a signalled fence alone does not).
func Download[T any](src Range, dst []T) error {
	b, err := asBytes(dst, src.Size, "Download")
	if err != nil {
		return err
	}
	return src.Buffer.transfer(src, b, false)
}

// transfer checks r and copies data to it (upload) or from it, holding the
// buffer and the context in use meanwhile.
func (b *Buffer) transfer(r Range, data []byte, upload bool) error {
	if b == nil {
		return invalidf("nil buffer")
	}
	// Non-coherent memory is flushed and invalidated whole, which could
	// discard a concurrent transfer's unflushed writes: take it alone.
	if b.mapped != nil && !b.coherent {
		b.use.Lock()
		defer b.use.Unlock()
	} else {
		b.use.RLock()
		defer b.use.RUnlock()
	}
	if err := r.Check(); err != nil {
		return err
	}
	if len(data) == 0 {
		return nil
	}
	c := b.ctx
	if err := c.enter(); err != nil {
		return err
	}
	defer c.exit()
	if upload {
		r.NoteWritten()
		return c.upload(r, data)
	}
	return c.download(r, data)
}

// stagingChunk bounds the staging buffer: larger transfers go in pieces.
const stagingChunk = 64 << 20

// forceStaging makes every transfer use the staging path (tests use it on
// lavapipe, whose memory is all host-visible).
var forceStaging = false

func (c *Context) upload(dst Range, data []byte) error {
	if dst.Buffer.mapped != nil && !forceStaging {
		copy(unsafe.Slice((*byte)(unsafe.Add(dst.Buffer.mapped, dst.Offset)), len(data)), data)
		if !dst.Buffer.coherent {
			if err := c.flush(dst.Buffer); err != nil {
				return err
			}
		}
		// Order the host write before later device work: the next queue
		// submission makes host writes visible; nothing else is needed.
		return nil
	}
	c.stagingMu.Lock()
	defer c.stagingMu.Unlock()
	for done := uint64(0); done < uint64(len(data)); {
		n := min(uint64(len(data))-done, stagingChunk)
		st, err := c.stagingLocked(n)
		if err != nil {
			return err
		}
		copy(unsafe.Slice((*byte)(st.mapped), n), data[done:done+n])
		if !st.coherent {
			if err := c.flush(st); err != nil {
				return err
			}
		}
		off := dst.Offset + done
		err = c.Submit(func(cb CommandBuffer) error {
			cb.CopyBuffer(st.Range(0, n), Range{Buffer: dst.Buffer, Offset: off, Size: n})
			cb.MemoryBarrier(StageTransfer, StageAllCommands, AccessTransferWrite, AccessMemoryRead|AccessMemoryWrite)
			return nil
		})
		if err != nil {
			c.dropStagingLocked()
			return err
		}
		done += n
	}
	return nil
}

func (c *Context) download(src Range, data []byte) error {
	if src.Buffer.mapped != nil && !forceStaging {
		err := c.Submit(func(cb CommandBuffer) error {
			cb.MemoryBarrier(StageAllCommands, StageHost, AccessMemoryWrite, AccessHostRead)
			return nil
		})
		if err != nil {
			return err
		}
		if !src.Buffer.coherent {
			if err := c.invalidate(src.Buffer); err != nil {
				return err
			}
		}
		copy(data, unsafe.Slice((*byte)(unsafe.Add(src.Buffer.mapped, src.Offset)), len(data)))
		return nil
	}
	c.stagingMu.Lock()
	defer c.stagingMu.Unlock()
	for done := uint64(0); done < uint64(len(data)); {
		n := min(uint64(len(data))-done, stagingChunk)
		st, err := c.stagingLocked(n)
		if err != nil {
			return err
		}
		off := src.Offset + done
		err = c.Submit(func(cb CommandBuffer) error {
			cb.MemoryBarrier(StageAllCommands, StageTransfer, AccessMemoryWrite, AccessTransferRead)
			cb.CopyBuffer(Range{Buffer: src.Buffer, Offset: off, Size: n}, st.Range(0, n))
			cb.MemoryBarrier(StageTransfer, StageHost, AccessTransferWrite, AccessHostRead)
			return nil
		})
		if err != nil {
			c.dropStagingLocked()
			return err
		}
		if !st.coherent {
			if err := c.invalidate(st); err != nil {
				return err
			}
		}
		copy(data[done:done+n], unsafe.Slice((*byte)(st.mapped), n))
		done += n
	}
	return nil
}

// dropStagingLocked lets go of the staging buffer: after a failed or timed
// out transfer its copy may still be in flight, and the buffer is retired
// until it completes rather than reused.
func (c *Context) dropStagingLocked() {
	if c.staging != nil {
		c.disown(c.staging) // not Release: nobody else reaches the staging buffer, and its use lock is not held
		c.staging = nil
	}
}

// stagingLocked returns a host-visible buffer of at least n bytes.
func (c *Context) stagingLocked(n uint64) (*Buffer, error) {
	if c.staging != nil && c.staging.size >= n {
		return c.staging, nil
	}
	c.dropStagingLocked()
	size := max(n, min(uint64(stagingChunk), 1<<20))
	st, err := c.NewBuffer(size, HostVisible)
	if err != nil {
		return nil, fmt.Errorf("staging buffer: %w", err)
	}
	c.staging = st
	return st, nil
}

// flush makes host writes to b's whole memory available to the device.
func (c *Context) flush(b *Buffer) error {
	return c.noteResult(check("vkFlushMappedMemoryRanges", c.fns.wholeMemoryRange(b.mem, true)))
}

// invalidate makes device writes to b's whole memory visible to the host.
func (c *Context) invalidate(b *Buffer) error {
	return c.noteResult(check("vkInvalidateMappedMemoryRanges", c.fns.wholeMemoryRange(b.mem, false)))
}
