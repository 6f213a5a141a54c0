package radix_test

import (
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// TestChainWithGPUCounts records, in one command buffer and with no read
// back between them, a compaction, a sort of the survivors whose count
// comes from the compaction's result block, and a copy of the sorted
// survivors sized by the same count, as an engine chains compaction,
// sorting and drawing. Only the end result is read back.
func TestChainWithGPUCounts(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	for _, n := range []int{1, 1000, 100003} {
		keys := make([]uint32, n)
		vals := make([]uint32, n)
		for i := range keys {
			if rng.IntN(3) != 0 {
				keys[i] = rng.Uint32() | 1 // kept: nonzero
			}
			vals[i] = uint32(i)
		}
		// The reference: the survivors, sorted stably.
		type kv struct{ k, v uint32 }
		var want []kv
		for i, k := range keys {
			if k != 0 {
				want = append(want, kv{k, vals[i]})
			}
		}
		slices.SortStableFunc(want, func(a, b kv) int {
			switch {
			case a.k < b.k:
				return -1
			case a.k > b.k:
				return 1
			}
			return 0
		})

		// Key-value pairs as 8-byte structs for the compaction; the sort
		// takes keys and values apart, so the compaction runs on each.
		sel := compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepNonZero(), InPlace: true}
		keyPlan, err := compact.NewPlan(ctx, uint64(n), sel)
		if err != nil {
			t.Fatal(err)
		}
		flagSel := compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepFlagged(4), InPlace: true}
		valPlan, err := compact.NewPlan(ctx, uint64(n), flagSel)
		if err != nil {
			t.Fatal(err)
		}
		sortPlan, err := radix.NewPlan(ctx, uint64(n), radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, InPlace: true})
		if err != nil {
			t.Fatal(err)
		}
		nb := uint64(4 * n)
		keyBuf, valBuf, flagBuf := vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, nb)
		outKeys, outVals := vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, nb)
		res1, res2 := vktest.NewPoisoned(t, ctx, compact.ResultSize), vktest.NewPoisoned(t, ctx, compact.ResultSize)
		s1 := vktest.NewPoisoned(t, ctx, keyPlan.ScratchSize())
		s2 := vktest.NewPoisoned(t, ctx, valPlan.ScratchSize())
		s3 := vktest.NewPoisoned(t, ctx, sortPlan.ScratchSize())
		for _, up := range []struct {
			b *vk.Buffer
			d []uint32
		}{{keyBuf, keys}, {valBuf, vals}, {flagBuf, keys}} {
			if err := vk.Upload(up.b.Range(0, nb), up.d); err != nil {
				t.Fatal(err)
			}
		}
		kept := res1.Range(compact.ResultKeptOffset, 4)
		err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
			// The keys' own values are their flags: the values follow them.
			valPlan.Record(r, compact.Buffers{Src: valBuf.Range(0, nb), Flags: flagBuf.Range(0, nb), Result: res2.All(), Scratch: s2.All()})
			keyPlan.Record(r, compact.Buffers{Src: keyBuf.Range(0, nb), Result: res1.All(), Scratch: s1.All()})
			sortPlan.Record(r, radix.Buffers{Keys: keyBuf.Range(0, nb), Values: valBuf.Range(0, nb), Scratch: s3.All(), Count: kept})
			transfer.RecordCopyCount(r, outKeys.Range(0, nb), keyBuf.Range(0, nb), kept, 4, transfer.CopyOptions{})
			transfer.RecordCopyCount(r, outVals.Range(0, nb), valBuf.Range(0, nb), kept, 4, transfer.CopyOptions{})
		})
		if err != nil {
			t.Fatal(err)
		}
		var block [12]uint32
		if err := vk.Download(res1.All(), block[:]); err != nil {
			t.Fatal(err)
		}
		if int(block[0]) != len(want) || block[8] != block[0] {
			t.Fatalf("n=%d: kept %d, draw count %d; want %d", n, block[0], block[8], len(want))
		}
		gotK, gotV := make([]uint32, n), make([]uint32, n)
		if err := vk.Download(outKeys.Range(0, nb), gotK); err != nil {
			t.Fatal(err)
		}
		if err := vk.Download(outVals.Range(0, nb), gotV); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			wk, wv := uint32(vktest.Poison), uint32(vktest.Poison)
			if i < len(want) {
				wk, wv = want[i].k, want[i].v
			}
			if gotK[i] != wk || gotV[i] != wv {
				t.Fatalf("n=%d: element %d is (%#x, %d), want (%#x, %d)", n, i, gotK[i], gotV[i], wk, wv)
			}
		}
	}
}
