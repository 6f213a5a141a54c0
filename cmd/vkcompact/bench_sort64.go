package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// timeSort64 times the ascending sort of n random uint64 keys on all 64
// bits, as the CUB anchor's sort_keys_u64 row (-extra 1) does, and checks
// every set's output against Go's sort.
func timeSort64(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (benchRow, error) {
	const op = "sort_keys_u64"
	plan, err := radix.NewPlan(ctx, n, radix.Sort{Key: vkcompact.Uint64, Options: cfg.sortOpts})
	if err != nil {
		return benchRow{}, err
	}
	rng := rand.New(rand.NewPCG(64, n))
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = rng.Uint64()
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	words := func(k []uint64) []uint32 { // little-endian: low word first
		w := make([]uint32, 2*len(k))
		for i, x := range k {
			w[2*i], w[2*i+1] = uint32(x), uint32(x>>32)
		}
		return w
	}
	in, want := words(keys), words(sorted)
	names := plan.Phases()
	return setBench[radix.Buffers]{
		op: op, n: n, keep: 1, sets: setsFor(16 * n), stamps: uint32(len(names) + 1),
		prepare: func(s *bufferSets, b *radix.Buffers) error {
			return s.inOut(ctx, in, &b.Keys, &b.KeysOut, bufSize{&b.Scratch, plan.ScratchSize()})
		},
		record: plan.RecordTimed,
		check:  func(b *radix.Buffers) error { return checkWords(b.KeysOut, want, op+" keys") },
		printPhases: func(w io.Writer, phases [][]float64) {
			printSortPhases(w, fmt.Sprintf("%s n=%d", op, n), plan.Tuning(), names, phases)
		},
	}.run(ctx, cfg)
}
