package vk_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// What a context holds over an engine's life: the tests here hold each
// object count flat however many submissions and distinct buffer ranges
// a program uses.

// TestSubmissionsReuseCommandBuffers submits 500 times in a row, then from
// four goroutines at once: the library's own submissions keep one command
// pool, one command buffer and one fence per submission in flight, never
// one per submission (each submission once allocated a command buffer its
// pool kept until the context's Release).
func TestSubmissionsReuseCommandBuffers(t *testing.T) {
	ctx := vktest.Open(t)
	empty := func(vk.CommandBuffer) error { return nil }
	if err := ctx.Submit(empty); err != nil {
		t.Fatal(err)
	}
	want := vk.VulkanObjects{CommandPools: 1, CommandBuffers: 1, Fences: 1}
	if got := ctx.Objects().Vulkan; got != want {
		t.Fatalf("after one submission: %+v, want %+v", got, want)
	}
	for i := range 500 {
		if err := ctx.Submit(empty); err != nil {
			t.Fatalf("submission %d: %v", i, err)
		}
	}
	if got := ctx.Objects().Vulkan; got != want {
		t.Fatalf("after 500 submissions: %+v, want %+v", got, want)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for range 100 {
				if err := ctx.Submit(empty); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := ctx.Objects().Vulkan
	if got.CommandBuffers > 4 || got.CommandPools != got.CommandBuffers || got.Fences != got.CommandBuffers {
		t.Fatalf("after 400 submissions from 4 goroutines: %+v, want at most 4 of each, as many pools and fences as command buffers", got)
	}
	for range 100 {
		if err := ctx.Submit(empty); err != nil {
			t.Fatal(err)
		}
	}
	if again := ctx.Objects().Vulkan; again != got {
		t.Fatalf("100 more submissions: %+v, then %+v", got, again)
	}
}

// copyRig is the copy kernel and the buffers the descriptor tests move
// their ranges through: a source of 64 words, and a destination of slots
// of 64 words each at minStorageBufferOffsetAlignment.
type copyRig struct {
	ctx      *vk.Context
	p        *vk.ComputePipeline
	src, dst *vk.Buffer
	slot     uint64
	want     []uint32
}

const copyWords = 64

func newCopyRig(t *testing.T, ctx *vk.Context, slots int) *copyRig {
	t.Helper()
	p, err := ctx.NewComputePipeline(vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, 1}})
	if err != nil {
		t.Fatal(err)
	}
	r := &copyRig{ctx: ctx, p: p, slot: max(ctx.Info().MinStorageBufferOffsetAlignment, 4*copyWords)}
	r.src = poisoned(t, ctx, copyWords)
	r.dst = poisoned(t, ctx, int(uint64(slots)*r.slot/4))
	r.want = make([]uint32, copyWords)
	for i := range r.want {
		r.want[i] = uint32(i)*2654435761 + 1
	}
	if err := vk.Upload(r.src.All(), r.want); err != nil {
		t.Fatal(err)
	}
	return r
}

// dispatch records a copy of the source into slot k.
func (r *copyRig) dispatch(cb vk.CommandBuffer, k int) error {
	d := r.dst.Range(uint64(k)*r.slot, 4*copyWords)
	return cb.Dispatch(r.p, []uint32{copyWords}, []vk.Range{r.src.All(), d, r.src.All(), d}, 1, 1, 1)
}

// check requires the source's words in slot k and poison before and
// after them up to the slot's end.
func (r *copyRig) check(t *testing.T, k int) {
	t.Helper()
	got := make([]uint32, r.slot/4)
	if err := vk.Download(r.dst.Range(uint64(k)*r.slot, r.slot), got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[:copyWords], r.want) || slices.ContainsFunc(got[copyWords:], func(w uint32) bool { return w != vktest.Poison }) {
		t.Fatalf("slot %d: the copy is wrong", k)
	}
}

// TestDescriptorSetsBounded copies into 300 distinct ranges, one
// submission each, then 40 in one submission, with at most 8 idle sets
// kept: every copy lands, the sets at rest stay at 8, and a submission
// holds the sets it binds (40) until it completes.
func TestDescriptorSetsBounded(t *testing.T) {
	ctx := vktest.OpenOptions(t, vk.Options{CachedDescriptorSets: 8})
	if ctx.PushDescriptors() {
		t.Skip("push descriptors: no sets to cache")
	}
	r := newCopyRig(t, ctx, 340)
	var first vk.ObjectCounts
	for k := range 300 {
		if err := ctx.Submit(func(cb vk.CommandBuffer) error { return r.dispatch(cb, k) }); err != nil {
			t.Fatal(err)
		}
		r.check(t, k)
		o := ctx.Objects()
		if o.Vulkan.DescriptorSets > 8 || o.HeldDescriptorSets != 0 {
			t.Fatalf("after copy %d: %d sets, %d held; want at most 8, none held", k, o.Vulkan.DescriptorSets, o.HeldDescriptorSets)
		}
		if k == 20 {
			first = o
		}
		if k > 20 && o != first {
			t.Fatalf("after copy %d: %+v; after copy 20 %+v", k, o, first)
		}
	}
	err := ctx.Submit(func(cb vk.CommandBuffer) error {
		for k := 300; k < 340; k++ {
			if err := r.dispatch(cb, k); err != nil {
				return err
			}
		}
		if held := ctx.Objects().HeldDescriptorSets; held != 40 {
			t.Errorf("recording 40 copies to distinct ranges: %d sets held, want 40", held)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := 300; k < 340; k++ {
		r.check(t, k)
	}
	if o := ctx.Objects(); o.Vulkan.DescriptorSets != 8 || o.HeldDescriptorSets != 0 {
		t.Fatalf("after the 40 copies: %d sets, %d held; want 8, none held", o.Vulkan.DescriptorSets, o.HeldDescriptorSets)
	}
}

// TestReusedSubmissionHoldsItsSets: the library reuses one submission's
// command buffer and descriptor-set hold from one Submit to the next, so a
// set that the previous recording bound (and released when it completed)
// must be taken again by the next recording that binds it. With one idle
// set kept, a copy into slot 0, then one submission copying into slot 0
// again and into a new slot 1: the first dispatch holds its set (one
// held), so the second gets a set of its own rather than rewriting the one
// the first has bound, and both copies land.
func TestReusedSubmissionHoldsItsSets(t *testing.T) {
	ctx := vktest.OpenOptions(t, vk.Options{CachedDescriptorSets: 1})
	if ctx.PushDescriptors() {
		t.Skip("push descriptors: no sets to hold")
	}
	r := newCopyRig(t, ctx, 2)
	if err := ctx.Submit(func(cb vk.CommandBuffer) error { return r.dispatch(cb, 0) }); err != nil {
		t.Fatal(err)
	}
	r.check(t, 0)
	if err := vk.Upload(r.dst.Range(0, r.slot), slices.Repeat([]uint32{vktest.Poison}, int(r.slot/4))); err != nil {
		t.Fatal(err)
	}
	err := ctx.Submit(func(cb vk.CommandBuffer) error {
		if err := r.dispatch(cb, 0); err != nil {
			return err
		}
		if held := ctx.Objects().HeldDescriptorSets; held != 1 {
			t.Errorf("a recording that bound slot 0's set again, bound by the previous recording of its command buffer: %d sets held, want 1", held)
		}
		return r.dispatch(cb, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	r.check(t, 0)
	r.check(t, 1)
}

// TestWrappedCommandBuffers plays an engine with two command buffers in
// flight (frame f records into buffer f%2 while the other may run), each
// frame copying into a range no frame before it used, with at most 4 idle
// sets kept: an engine command buffer holds its sets until Completed, so
// none is rewritten while it may run (the validation layer would report
// the update of a set in use), every copy lands, and the sets stay
// bounded by the idle ones plus those of the buffers in flight.
func TestWrappedCommandBuffers(t *testing.T) {
	ctx := vktest.OpenOptions(t, vk.Options{CachedDescriptorSets: 4})
	const frames, perFrame = 60, 3
	r := newCopyRig(t, ctx, frames*perFrame)
	var engine [2]*vk.EngineCommands
	for i := range engine {
		e, err := vk.NewEngineCommands(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Destroy()
		engine[i] = e
	}
	submitted := [2]bool{}
	for f := range frames {
		e := engine[f%2]
		if submitted[f%2] {
			if err := e.Wait(); err != nil {
				t.Fatal(err)
			}
			ctx.Completed(e.H)
		}
		if err := e.Begin(); err != nil {
			t.Fatal(err)
		}
		for k := range perFrame {
			// A Wrap per dispatch, as a Record per operation does: they
			// share the command buffer's hold.
			if err := r.dispatch(ctx.Wrap(e.H), f*perFrame+k); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Submit(); err != nil {
			t.Fatal(err)
		}
		submitted[f%2] = true
		o := ctx.Objects()
		if !ctx.PushDescriptors() && (o.HeldDescriptorSets > 2*perFrame || o.Vulkan.DescriptorSets > 4+2*perFrame) {
			t.Fatalf("frame %d: %d sets, %d held: want at most %d held, %d in all", f, o.Vulkan.DescriptorSets, o.HeldDescriptorSets, 2*perFrame, 4+2*perFrame)
		}
	}
	for _, e := range engine {
		if err := e.Wait(); err != nil {
			t.Fatal(err)
		}
		ctx.Completed(e.H)
	}
	for k := range frames * perFrame {
		r.check(t, k)
	}
	if o := ctx.Objects(); o.HeldDescriptorSets != 0 || o.WrappedCommandBuffers != 0 {
		t.Fatalf("after Completed: %d sets held, %d wrapped command buffers known", o.HeldDescriptorSets, o.WrappedCommandBuffers)
	}
}

// TestCommandBufferRefusals: a zero CommandBuffer, Wrap(nil), a bad range
// and recording after the context's Release record nothing and say why;
// the first refusal sticks, and Submit returns it.
func TestCommandBufferRefusals(t *testing.T) {
	ctx := vktest.Open(t)
	buf := poisoned(t, ctx, 16) // 64 bytes
	for _, tc := range []struct {
		name string
		cb   vk.CommandBuffer
		want string
	}{
		{"zero", vk.CommandBuffer{}, "zero CommandBuffer"},
		{"Wrap(nil)", ctx.Wrap(nil), "nil VkCommandBuffer"},
		{"nil context", (*vk.Context)(nil).Wrap(buf.Handle()), "nil context"},
	} {
		tc.cb.FillBuffer(buf.All(), 0)
		tc.cb.CopyBuffer(buf.Range(0, 16), buf.Range(16, 16))
		tc.cb.MemoryBarrier(vk.StageTransfer, vk.StageTransfer, vk.AccessTransferWrite, vk.AccessTransferRead)
		tc.cb.BufferBarrier(vk.StageTransfer, vk.StageTransfer, vk.AccessTransferWrite, vk.AccessTransferRead, buf.All())
		if err := tc.cb.Dispatch(nil, nil, nil, 1, 1, 1); !errors.Is(err, vk.ErrInvalid) || !containsAll(err, tc.want) {
			t.Errorf("%s: Dispatch: %v, want ErrInvalid naming %q", tc.name, err, tc.want)
		}
		if err := tc.cb.Err(); !errors.Is(err, vk.ErrInvalid) || !containsAll(err, tc.want) {
			t.Errorf("%s: Err: %v, want ErrInvalid naming %q", tc.name, err, tc.want)
		}
	}
	// A bad range refuses the command and every later one; Submit says so.
	err := ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.FillBuffer(buf.Range(32, 64), 1) // past the buffer
		cb.FillBuffer(buf.All(), 7)         // not recorded
		if err := cb.Err(); !errors.Is(err, vk.ErrInvalid) || !containsAll(err, "FillBuffer", "exceeds") {
			t.Errorf("after a fill past the buffer: %v", err)
		}
		return nil
	})
	if !errors.Is(err, vk.ErrInvalid) || !containsAll(err, "FillBuffer") {
		t.Errorf("Submit after a refused fill: %v", err)
	}
	got := make([]uint32, 16)
	if err := vk.Download(buf.All(), got); err != nil || slices.ContainsFunc(got, func(w uint32) bool { return w != vktest.Poison }) {
		t.Errorf("a refused recording changed the buffer: %v %x", err, got)
	}
	// Recording into an engine's command buffer after Release.
	other := vktest.Open(t)
	e, err := vk.NewEngineCommands(other)
	if err != nil {
		t.Fatal(err)
	}
	h := e.H
	cb := other.Wrap(h)
	e.Destroy()
	other.Release()
	cb.FillBuffer(buf.All(), 0)
	if err := cb.Dispatch(nil, nil, nil, 1, 1, 1); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("Dispatch after the context's Release: %v, want ErrReleased", err)
	}
	if w := other.Wrap(h); !errors.Is(w.Err(), vk.ErrReleased) {
		t.Errorf("Wrap after Release: %v, want ErrReleased", w.Err())
	}
}

// containsAll reports whether err's text holds every part.
func containsAll(err error, parts ...string) bool {
	if err == nil {
		return false
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			return false
		}
	}
	return true
}
