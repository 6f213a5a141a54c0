package scan_test

import (
	"fmt"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestEmptyInput plans prefix sums of no elements on every path, the
// single pass forced among them (an engine's empty frame), with and
// without a GPU count: each writes a zero total over a poisoned one and
// nothing else, and ScanSlice returns an empty slice.
func TestEmptyInput(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, path := range []vkcompact.Path{vkcompact.PathAuto, vkcompact.PathSinglePass, vkcompact.PathThreePhase} {
		for _, gpuCount := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/gpucount=%v", path, gpuCount), func(t *testing.T) {
				p, err := scan.NewPlan(ctx, 0, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Inclusive: gpuCount, Options: scan.Options{Path: path}})
				if err != nil {
					t.Fatal(err)
				}
				if path != vkcompact.PathAuto && p.Tuning().Path != path {
					t.Fatalf("took %v, asked %v", p.Tuning().Path, path)
				}
				buf := vktest.NewPoisoned(t, ctx, 4096)
				b := scan.Buffers{Src: buf.Range(0, 0), Dst: buf.Range(256, 0), Total: buf.Range(512, scan.TotalSize),
					Scratch: buf.Range(1024, p.ScratchSize())}
				if gpuCount {
					b.Count = buf.Range(768, 4)
					if err := vk.Upload(b.Count, []uint32{7}); err != nil {
						t.Fatal(err)
					}
				}
				if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
					t.Fatal(err)
				}
				got := make([]uint32, 1024)
				if err := vk.Download(buf.All(), got); err != nil {
					t.Fatal(err)
				}
				if got[128] != 0 {
					t.Errorf("total %#x, want 0", got[128])
				}
				for i, w := range got {
					written := i == 128 || uint64(i*4) >= 1024 && uint64(i*4) < 1024+p.ScratchSize() || gpuCount && i == 192
					if !written && w != vktest.Poison {
						t.Fatalf("word %d (byte %d) outside the total and scratch written: %#x", i, 4*i, w)
					}
				}
			})
		}
		t.Run(fmt.Sprintf("%v/ScanSlice", path), func(t *testing.T) {
			out, total, err := scan.ScanSlice(ctx, []int32{}, scan.Scan{Options: scan.Options{Path: path}})
			if err != nil || len(out) != 0 || total != 0 {
				t.Fatalf("ScanSlice of nothing: %v, %d, %v", out, total, err)
			}
		})
	}
}
