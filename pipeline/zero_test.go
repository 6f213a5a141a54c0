package pipeline_test

import (
	"errors"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestKnownZero checks the record-time knowledge of zeroed ranges that
// lets the single pass skip its clear: spans noted zero, cut by writes
// (dispatches, fills, copies, uploads), and taken back when the command
// buffer that would have zeroed them is never submitted.
func TestKnownZero(t *testing.T) {
	ctx := vktest.Open(t)
	buf := vktest.NewPoisoned(t, ctx, 4096)
	r := func(off, size uint64) vk.Range { return buf.Range(off, size) }
	if r(0, 256).KnownZero() || (vk.Range{}).KnownZero() {
		t.Fatal("a new buffer's range or an empty range is known zero")
	}
	r(256, 1024).NoteZero()
	for _, c := range []struct {
		off, size uint64
		want      bool
	}{{256, 1024, true}, {512, 16, true}, {0, 512, false}, {1024, 512, false}, {256, 0, false}} {
		if got := r(c.off, c.size).KnownZero(); got != c.want {
			t.Errorf("[%d, +%d) known zero %v, want %v", c.off, c.size, got, c.want)
		}
	}
	r(512, 16).NoteWritten()
	if r(256, 1024).KnownZero() || !r(256, 256).KnownZero() || !r(528, 752).KnownZero() || r(500, 32).KnownZero() {
		t.Error("a write in the middle of a zero span did not cut exactly its bytes")
	}
	if err := vk.Upload(r(256, 16), make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if r(256, 256).KnownZero() {
		t.Error("an upload left its range known zero")
	}

	// Fills and copies recorded into the library's command buffer.
	err := ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.FillBuffer(r(2048, 512), 0)
		cb.FillBuffer(r(3072, 256), 7)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r(2048, 512).KnownZero() || r(3072, 256).KnownZero() {
		t.Error("a fill with zero must leave its range known zero, and only that one")
	}
	if err := ctx.Submit(func(cb vk.CommandBuffer) error { cb.CopyBuffer(r(0, 64), r(2048, 64)); return nil }); err != nil {
		t.Fatal(err)
	}
	if r(2048, 512).KnownZero() || !r(2112, 448).KnownZero() {
		t.Error("a copy must cut exactly its destination from the zero span")
	}

	// A command buffer that is not submitted takes its notes back.
	failed := errors.New("the caller's own failure")
	if err := ctx.Submit(func(cb vk.CommandBuffer) error { cb.LeaveZero(r(0, 64)); return failed }); !errors.Is(err, failed) {
		t.Fatalf("Submit: %v", err)
	}
	if r(0, 64).KnownZero() {
		t.Error("a note of a command buffer never submitted was kept")
	}
	if err := ctx.Submit(func(cb vk.CommandBuffer) error { cb.FillBuffer(r(64, 64), 0); return failed }); !errors.Is(err, failed) {
		t.Fatalf("Submit: %v", err)
	}
	if r(64, 64).KnownZero() {
		t.Error("a zero fill of a command buffer never submitted left its range known zero")
	}
	// So does a recorder that fails after the note.
	err = pipeline.Run(ctx, func(rec *pipeline.Recorder) {
		rec.LeaveZero(r(0, 64))
		rec.Fail(failed)
	})
	if !errors.Is(err, failed) || r(0, 64).KnownZero() {
		t.Errorf("a failed recorder's note was kept (Run: %v)", err)
	}
	if err := pipeline.Run(ctx, func(rec *pipeline.Recorder) { rec.LeaveZero(r(0, 64)) }); err != nil || !r(0, 64).KnownZero() {
		t.Errorf("a submitted recorder's note was not kept (Run: %v)", err)
	}
	// A dispatch that binds a range cuts it: the kernel may write it.
	p, err := pipeline.For(ctx).Get(copyKernel, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	other := vktest.NewPoisoned(t, ctx, buf.Size())
	if err := pipeline.Run(ctx, func(rec *pipeline.Recorder) { dispatchCopy(rec, p, buf, other, 1) }); err != nil {
		t.Fatal(err)
	}
	if r(0, 64).KnownZero() || r(2112, 448).KnownZero() {
		t.Error("a dispatch binding the buffer left a range of it known zero")
	}
}
