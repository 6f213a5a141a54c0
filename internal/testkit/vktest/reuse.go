package vktest

import (
	"testing"

	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// RecordRuns records before (when not nil) and then runs times run(r, i)
// into one command buffer of ctx's own, submits it, waits, and checks
// how many dispatches the runs recorded: one pass each, plus the clear of
// the status words before every run where the pass does not reset them
// itself (selfReset false), or before the first where it does but the
// scratch is not known zero (firstClear). The single-pass scratch-reuse
// tests of package compact and package scan use it.
func RecordRuns(t testing.TB, ctx *vk.Context, what string, runs int, selfReset, firstClear bool, before func(*pipeline.Recorder), run func(r *pipeline.Recorder, i int)) {
	t.Helper()
	RecordRunsOf(t, ctx, what, runs, 1, selfReset, firstClear, before, run)
}

// RecordRunsOf is RecordRuns for a run of perRun dispatches (the radix
// sort's single pass: a histogram and a dispatch per digit pass), besides
// the clears.
func RecordRunsOf(t testing.TB, ctx *vk.Context, what string, runs, perRun int, selfReset, firstClear bool, before func(*pipeline.Recorder), run func(r *pipeline.Recorder, i int)) {
	t.Helper()
	var got int
	err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
		if before != nil {
			before(r)
		}
		d0, _ := r.Stats()
		for i := range runs {
			run(r, i)
		}
		d1, _ := r.Stats()
		got = d1 - d0
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want := runs * perRun
	if !selfReset {
		want += runs
	} else if firstClear {
		want++
	}
	if got != want {
		t.Errorf("%s: %d dispatches for %d runs, want %d (self-reset %v, a first clear %v)", what, got, runs, want, selfReset, firstClear)
	}
}

// CheckZero fails t unless the first words 32-bit words of r are zero:
// the status words a self-resetting single pass leaves.
func CheckZero(t testing.TB, what string, r vk.Range, words uint64) {
	t.Helper()
	got := make([]uint32, words)
	if err := vk.Download(r.Sub(0, 4*words), got); err != nil {
		t.Fatal(err)
	}
	for i, w := range got {
		if w != 0 {
			t.Fatalf("%s: status word %d of %d is %#x after the runs, want 0", what, i, words, w)
		}
	}
}

// UploadStale fills r with words from word, through an upload (which
// vkcompact notes as a write of r): stale-looking status words.
func UploadStale(t testing.TB, r vk.Range, word func() uint32) {
	t.Helper()
	w := make([]uint32, r.Size/4)
	for i := range w {
		w[i] = word()
	}
	if err := vk.Upload(r, w); err != nil {
		t.Fatal(err)
	}
}
