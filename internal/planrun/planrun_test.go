package planrun_test

import (
	"errors"
	"testing"

	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// TestRun checks that Run allocates the zero ranges alone, at their
// sizes, that record and read see them, and that it releases them after,
// on success and on failure.
func TestRun(t *testing.T) {
	ctx := vktest.Open(t)
	given := vktest.NewPoisoned(t, ctx, 16)
	a := given.Range(0, 16)
	var b vk.Range
	buffers := ctx.Objects().Buffers
	got, err := planrun.Run(ctx, []planrun.Temp{{Range: &a, Size: 16}, {Range: &b, Size: 8}},
		func(r *pipeline.Recorder) {
			transfer.RecordFill(r, a, 7)
			transfer.RecordFill(r, b, 9)
		}, func() ([]uint32, error) {
			if b.Buffer == nil || b.Offset != 0 || b.Size != 8 {
				t.Errorf("read sees the temporary as %+v: want 8 bytes from 0", b)
			}
			if n := ctx.Objects().Buffers; n != buffers+1 {
				t.Errorf("%d buffers while reading, %d before: want one more", n, buffers)
			}
			w := make([]uint32, 2)
			return w, vk.Download(b, w)
		})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 9 || got[1] != 9 {
		t.Errorf("read the temporary as %v, want [9 9]", got)
	}
	if a.Buffer != given {
		t.Error("Run replaced the caller's range")
	}
	var w [4]uint32
	if err := vk.Download(given.All(), w[:]); err != nil {
		t.Fatal(err)
	}
	if w != [4]uint32{7, 7, 7, 7} {
		t.Errorf("the caller's range holds %v, want 7s", w)
	}
	if n := ctx.Objects().Buffers; n != buffers {
		t.Errorf("%d buffers after Run, %d before: the temporary is not released", n, buffers)
	}

	var c vk.Range
	read := false
	_, err = planrun.Run(ctx, []planrun.Temp{{Range: &c, Size: 4}}, func(r *pipeline.Recorder) { r.Fail(errs.Invalidf("refused")) },
		func() (int, error) { read = true; return 0, nil })
	if !errors.Is(err, vk.ErrInvalid) || read {
		t.Errorf("a failed recording: %v, read %v: want the recording's error and no read", err, read)
	}
	if n := ctx.Objects().Buffers; n != buffers {
		t.Errorf("%d buffers after a failed Run, %d before", n, buffers)
	}
	if v, err := planrun.Run[int](ctx, nil, func(r *pipeline.Recorder) { transfer.RecordFill(r, a, 1) }, nil); v != 0 || err != nil {
		t.Errorf("Run with no read: %v, %v", v, err)
	}
}

// TestUpload: Upload makes a buffer of the size asked for holding the
// data, or nothing uploaded for nil data, and Release frees both.
func TestUpload(t *testing.T) {
	ctx := vktest.Open(t)
	before := ctx.Objects().Buffers
	var bufs planrun.Buffers
	r, err := planrun.Upload(ctx, &bufs, []uint32{3, 1, 4}, 12)
	if err != nil || r.Size != 12 {
		t.Fatalf("Upload: %+v, %v", r, err)
	}
	got := make([]uint32, 3)
	if err := vk.Download(r, got); err != nil || got[0] != 3 || got[1] != 1 || got[2] != 4 {
		t.Fatalf("uploaded %v, %v: want [3 1 4]", got, err)
	}
	out, err := planrun.Upload[uint32](ctx, &bufs, nil, 8)
	if err != nil || out.Size != 8 || out.Buffer == r.Buffer {
		t.Fatalf("Upload of nil: %+v, %v", out, err)
	}
	if n := ctx.Objects().Buffers; n != before+2 {
		t.Errorf("%d buffers, %d before: want two more", n, before)
	}
	bufs.Release()
	if n := ctx.Objects().Buffers; n != before {
		t.Errorf("%d buffers after Release, %d before", n, before)
	}
}
