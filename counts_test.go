package vkcompact_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// TestCountWordsChain chains every count word of a three-way partition's
// result block (the first at byte 0; the second and the rest at bytes 4
// and 8, which no device's minStorageBufferOffsetAlignment above 4 lets a
// range start at) into the passes that take a Count, all in one
// recording: a compaction of the second group, a prefix sum of the rest,
// a run-length encoding of the second group, a scan by key of the
// input's first elements by the second group, a counted copy of the rest,
// a partition of the rest, plain copies of both words (one to the last
// word of an aligned window, whose index in its binding is the largest,
// which then counts a compaction of its own), a radix sort of the rest,
// unique by key of the sorted rest with the input's first elements as
// values, and a struct sort of the second group; each output checked
// against Go with the buffers poisoned first.
func TestCountWordsChain(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	for _, n := range []int{1, 1000, 70001} {
		for _, path := range []vkcompact.Path{vkcompact.PathAuto, vkcompact.PathThreePhase, vkcompact.PathSinglePass} {
			t.Run(fmt.Sprintf("n=%d/%v", n, path), func(t *testing.T) { chainCounts(t, ctx, rng, n, path) })
		}
	}
}

func chainCounts(t *testing.T, ctx *vk.Context, rng *rand.Rand, n int, path vkcompact.Path) {
	align := max(ctx.Info().MinStorageBufferOffsetAlignment, 4)
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = rng.Uint32N(100)
	}
	// Go's answers.
	var first, second, rest []uint32
	for _, k := range keys {
		switch {
		case k < 30:
			first = append(first, k)
		case k < 70:
			second = append(second, k)
		default:
			rest = append(rest, k)
		}
	}
	var odd []uint32 // the compaction of second: odd keys
	for _, k := range second {
		if k&1 != 0 {
			odd = append(odd, k)
		}
	}
	sums := make([]uint32, len(rest)) // the exclusive prefix sum of rest
	total := uint32(0)
	for i, k := range rest {
		sums[i], total = total, total+k
	}
	var runKeys, runLens []uint32 // the runs of second
	for i, k := range second {
		if i == 0 || k != second[i-1] {
			runKeys, runLens = append(runKeys, k), append(runLens, 0)
		}
		runLens[len(runLens)-1]++
	}
	keyScans := make([]uint32, len(second)) // the exclusive sum by key of keys[:len(second)], by second
	var acc uint32
	for i, k := range second {
		if i == 0 || k != second[i-1] {
			acc = 0
		}
		keyScans[i], acc = acc, acc+keys[i]
	}
	sortedRest := slices.Sorted(slices.Values(rest))
	var uniqueKeys, uniqueValues []uint32 // unique by key of sortedRest, the values keys[:len(rest)]
	for i, k := range sortedRest {
		if i == 0 || k != sortedRest[i-1] {
			uniqueKeys, uniqueValues = append(uniqueKeys, k), append(uniqueValues, keys[i])
		}
	}
	var restLow, restHigh []uint32 // the partition of rest by x < 85
	for _, k := range rest {
		if k < 85 {
			restLow = append(restLow, k)
		} else {
			restHigh = append(restHigh, k)
		}
	}

	size := uint64(4 * n)
	slot := func(k uint64) uint64 { return k * ((size + 4095) &^ 4095) } // every range at a multiple of 4 KiB
	buf := vktest.NewPoisoned(t, ctx, slot(18))
	r := func(k uint64, bytes uint64) vk.Range { return buf.Range(slot(k), bytes) }
	blocks := vktest.NewPoisoned(t, ctx, 16*align+4096)
	block := func(k uint64, bytes uint64) vk.Range { return blocks.Range(k*max(align, 256), bytes) }
	if err := vk.Upload(r(0, size), keys); err != nil {
		t.Fatal(err)
	}

	p3, err := compact.NewPartition3Plan(ctx, uint64(n), compact.Partition3{First: compact.KeepIf(compact.Less, compact.Uint(30)), Second: compact.KeepIf(compact.Less, compact.Uint(70))})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := compact.NewPlan(ctx, uint64(n), compact.Selection{Keep: compact.KeepMask(1), Options: compact.Options{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := scan.NewPlan(ctx, uint64(n), scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: scan.Options{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := runs.NewPlan(ctx, uint64(n), runs.Encoding{Op: runs.Encode, Options: compact.Options{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	byKey, err := scan.NewByKeyPlan(ctx, uint64(n), scan.ByKey{})
	if err != nil {
		t.Fatal(err)
	}
	p3b, err := compact.NewPartition3Plan(ctx, uint64(n), compact.Partition3{First: compact.KeepIf(compact.Less, compact.Uint(85)), Second: compact.KeepIf(compact.Less, compact.Uint(0))})
	if err != nil {
		t.Fatal(err)
	}
	sortOpts := radix.Options{Path: path}
	if path == vkcompact.PathSinglePass {
		sortOpts.DigitBits = 6 // a CPU driver's shared memory holds the single pass's 6-bit digits
	}
	sorter, err := radix.NewPlan(ctx, uint64(n), radix.Sort{Options: sortOpts})
	if err != nil {
		t.Fatal(err)
	}
	uniqueByKey, err := compact.NewPlan(ctx, uint64(n), compact.Selection{Keep: compact.KeepUnique(), Values: vkcompact.Uint32, Options: compact.Options{Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	structs, err := radix.NewStructPlan(ctx, uint64(n), radix.StructSort{Elem: vkcompact.Struct(4, 0, vkcompact.Uint32), Options: sortOpts})
	if err != nil {
		t.Fatal(err)
	}
	scratch := func(bytes uint64) vk.Range { return vktest.NewPoisoned(t, ctx, bytes).Range(0, bytes) }
	p3Block := block(0, compact.Partition3ResultSize)
	secondWord := p3Block.Sub(compact.Partition3SecondOffset, 4)
	restWord := p3Block.Sub(compact.Partition3RestOffset, 4)
	lastWord := block(8, align).Sub(align-4, 4) // the last word of an aligned window
	words := block(9, 16)                       // the plain copies of the second and rest words
	err = pipeline.Run(ctx, func(rec *pipeline.Recorder) {
		p3.Record(rec, compact.Partition3Buffers{Src: r(0, size), First: r(1, size), Second: r(2, size), Rest: r(3, size),
			Result: p3Block, Scratch: scratch(p3.ScratchSize())})
		sel.Record(rec, compact.Buffers{Src: r(2, size), Dst: r(4, size), Result: block(1, compact.ResultSize),
			Scratch: scratch(sel.ScratchSize()), Count: secondWord})
		sum.Record(rec, scan.Buffers{Src: r(3, size), Dst: r(5, size), Total: block(2, scan.TotalSize),
			Scratch: scratch(sum.ScratchSize()), Count: restWord})
		enc.Record(rec, runs.Buffers{Src: r(2, size), Keys: r(6, size), Lengths: r(7, size), Result: block(3, runs.ResultSize),
			Scratch: scratch(enc.ScratchSize()), Count: secondWord})
		byKey.Record(rec, scan.ByKeyBuffers{Keys: r(2, size), Values: r(0, size), Dst: r(15, size), Scratch: scratch(byKey.ScratchSize()), Count: secondWord})
		transfer.RecordCopyCount(rec, r(8, size), r(3, size), restWord, 4, transfer.CopyOptions{})
		p3b.Record(rec, compact.Partition3Buffers{Src: r(3, size), First: r(9, size), Second: r(10, size), Rest: r(11, size),
			Result: block(4, compact.Partition3ResultSize), Scratch: scratch(p3b.ScratchSize()), Count: restWord})
		transfer.RecordCopy(rec, words.Sub(0, 4), secondWord, transfer.CopyOptions{})
		transfer.RecordCopy(rec, words.Sub(4, 4), restWord, transfer.CopyOptions{})
		transfer.RecordCopy(rec, lastWord, secondWord, transfer.CopyOptions{})
		sel.Record(rec, compact.Buffers{Src: r(2, size), Dst: r(12, size), Result: block(5, compact.ResultSize),
			Scratch: scratch(sel.ScratchSize()), Count: lastWord})
		sorter.Record(rec, radix.Buffers{Keys: r(3, size), KeysOut: r(13, size), Scratch: scratch(sorter.ScratchSize()), Count: restWord})
		uniqueByKey.Record(rec, compact.Buffers{Src: r(13, size), Dst: r(16, size), Values: r(0, size), ValuesOut: r(17, size),
			Result: block(6, compact.ResultSize), Scratch: scratch(uniqueByKey.ScratchSize()), Count: restWord})
		structs.Record(rec, radix.StructBuffers{Src: r(2, size), Dst: r(14, size), Scratch: scratch(structs.ScratchSize()), Count: secondWord})
	})
	if err != nil {
		t.Fatal(err)
	}
	download := func(what string, rg vk.Range, want []uint32) {
		t.Helper()
		got := make([]uint32, rg.Size/4)
		if err := vk.Download(rg, got); err != nil {
			t.Fatal(err)
		}
		if len(want) < len(got) {
			// Past the count: unwritten.
			for i, w := range got[len(want):] {
				if w != vktest.Poison {
					t.Fatalf("%s: word %d past the count written: %#x", what, len(want)+i, w)
				}
			}
			got = got[:len(want)]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", what, head(got), head(want))
		}
	}
	u := func(v int) uint32 { return uint32(v) }
	download("partition counts", p3Block.Sub(0, 16), []uint32{u(len(first)), u(len(second)), u(len(rest)), u(n)})
	download("second group", r(2, size), second)
	download("compaction of the second group, counted by its word", r(4, size), odd)
	download("its result", block(1, 12), []uint32{u(len(odd)), u(len(second) - len(odd)), u(len(second))})
	download("prefix sum of the rest, counted by its word", r(5, size), sums)
	download("its total", block(2, 4), []uint32{total})
	download("run keys of the second group", r(6, size), runKeys)
	download("run lengths", r(7, size), runLens)
	download("runs' count", block(3, runs.ResultSize).Sub(runs.ResultRunsOffset, 4), []uint32{u(len(runKeys))})
	download("scan by key by the second group, counted by its word", r(15, size), keyScans)
	download("counted copy of the rest", r(8, size), rest)
	download("partition of the rest, counted by its word", r(9, size), restLow)
	download("its third group", r(11, size), restHigh)
	download("its counts", block(4, 16), []uint32{u(len(restLow)), 0, u(len(restHigh)), u(len(rest))})
	download("copies of the second and rest words", words.Sub(0, 8), []uint32{u(len(second)), u(len(rest))})
	download("the copy to the window's last word", lastWord, []uint32{u(len(second))})
	download("compaction counted by the window's last word", r(12, size), odd)
	download("radix sort of the rest, counted by its word", r(13, size), slices.Sorted(slices.Values(rest)))
	download("unique by key of the sorted rest, counted by its word", r(16, size), uniqueKeys)
	download("its values", r(17, size), uniqueValues)
	download("its result", block(6, 12), []uint32{u(len(uniqueKeys)), u(len(rest) - len(uniqueKeys)), u(len(rest))})
	download("struct sort of the second group, counted by its word", r(14, size), slices.Sorted(slices.Values(second)))
}

// head is the first few words of a slice, for a message.
func head(w []uint32) []uint32 { return w[:min(len(w), 8)] }
