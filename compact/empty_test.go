package compact_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestEmptyInput plans selections of no elements on every path, the
// single pass forced among them (an engine's empty frame): compactions,
// a split, indices with elements, flags, a GPU count; each writes the
// whole result block of an empty selection over a poisoned one (no
// kept, rejected or total, no workgroups, no vertices) and nothing
// else, and SelectSlice returns an empty slice.
func TestEmptyInput(t *testing.T) {
	ctx := vktest.Shared(t)
	want := []uint32{0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0} // compact.ResultSize: counts, dispatch, draw
	u32 := vkcompact.Plain(vkcompact.Uint32)
	for _, path := range []vkcompact.Path{vkcompact.PathAuto, vkcompact.PathSinglePass, vkcompact.PathThreePhase} {
		for _, c := range []struct {
			name     string
			sel      compact.Selection
			gpuCount bool
		}{
			{"compaction", compact.Selection{Elem: u32, Keep: compact.KeepNonZero()}, false},
			{"reversed split", compact.Selection{Elem: u32, Keep: compact.KeepNonZero(), Split: true, ReverseRejected: true}, false},
			{"indices and elements", compact.Selection{Elem: vkcompact.Struct(12, 4, vkcompact.Float32), Keep: compact.KeepIf(compact.Less, compact.Float(0.5)), Output: compact.OutputBoth}, false},
			{"flagged", compact.Selection{Elem: u32, Keep: compact.KeepFlagged(1)}, false},
			{"unique", compact.Selection{Elem: u32, Keep: compact.KeepUnique()}, false},
			{"GPU count", compact.Selection{Elem: u32, Keep: compact.KeepNonZero()}, true},
		} {
			sel := c.sel
			sel.Path = path
			t.Run(fmt.Sprintf("%v/%s", path, c.name), func(t *testing.T) {
				p, err := compact.NewPlan(ctx, 0, sel)
				if err != nil {
					t.Fatal(err)
				}
				if path != vkcompact.PathAuto && p.Tuning().Path != path {
					t.Fatalf("took %v, asked %v", p.Tuning().Path, path)
				}
				// Every range holds poison the plan must leave, the result
				// block poison it must overwrite.
				buf := vktest.NewPoisoned(t, ctx, 4096)
				at := func(k uint64) vk.Range { return buf.Range(k*256, 0) }
				b := compact.Buffers{Src: at(0), Dst: at(1), Result: buf.Range(512, compact.ResultSize),
					Scratch: buf.Range(1024, p.ScratchSize())}
				if sel.Keep.Op == compact.Flagged {
					b.Flags = at(3)
				}
				if sel.Output == compact.OutputBoth {
					b.Elements = at(3)
				}
				if c.gpuCount {
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
				if res := got[128 : 128+12]; !slices.Equal(res, want) {
					t.Errorf("result block %v, want %v", res, want)
				}
				for i, w := range got {
					inResult := i >= 128 && i < 128+12
					inScratch := uint64(i*4) >= 1024 && uint64(i*4) < 1024+p.ScratchSize()
					if !inResult && !inScratch && !(c.gpuCount && i == 192) && w != vktest.Poison {
						t.Fatalf("word %d (byte %d) outside the result block and scratch written: %#x", i, 4*i, w)
					}
				}
			})
		}
		t.Run(fmt.Sprintf("%v/SelectSlice", path), func(t *testing.T) {
			out, res, err := compact.SelectSlice(ctx, []uint32{}, compact.Selection{Keep: compact.KeepNonZero(), Options: compact.Options{Path: path}})
			if err != nil || len(out) != 0 || res != (compact.Result{}) {
				t.Fatalf("SelectSlice of nothing: %v, %+v, %v", out, res, err)
			}
			idx, res, err := compact.SelectIndicesSlice(ctx, []float32{}, compact.Selection{Keep: compact.KeepIf(compact.Less, compact.Float(1)), Options: compact.Options{Path: path}})
			if err != nil || len(idx) != 0 || res != (compact.Result{}) {
				t.Fatalf("SelectIndicesSlice of nothing: %v, %+v, %v", idx, res, err)
			}
		})
	}
}
