package bench

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// benchSort64 returns the timing of the sort of n uint64 keys, with
// uint32 values for pairs (timeSort64).
func benchSort64(pairs bool) benchOp {
	return func(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
		return timeSort64(ctx, n, pairs, cfg)
	}
}

// timeSort64 times the ascending sort of n random uint64 keys on all 64
// bits, as the CUB anchor's sort_keys_u64 and sort_pairs_u64 rows do
// (uint32 values: each key's index), and checks every set's output
// against a Go stable sort.
func timeSort64(ctx *vk.Context, n uint64, pairs bool, cfg benchConfig) (Row, error) {
	op := "sort_keys_u64"
	if pairs {
		op = "sort_pairs_u64"
	}
	plan, err := radix.NewPlan(ctx, n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), Values: pairs, Options: cfg.sortOpts})
	if err != nil {
		return Row{}, err
	}
	rng := rand.New(rand.NewPCG(64, n))
	keys := make([]uint64, n)
	vals := make([]uint32, n)
	for i := range keys {
		keys[i] = rng.Uint64()
		vals[i] = uint32(i)
	}
	sorted, sortedVals := stableSortRef64(keys, vals)
	in, want := words64(keys), words64(sorted)
	perSet := 16 * n
	if pairs {
		perSet += 8 * n
	}
	names := plan.Phases()
	return setBench[radix.Buffers]{
		op: op, n: n, keep: 1, sets: setsFor(perSet), stamps: uint32(len(names) + 1),
		prepare: func(s *bufferSets, b *radix.Buffers) error {
			err := s.inOut(ctx, in, &b.Keys, &b.KeysOut, bufSize{&b.Scratch, plan.ScratchSize()})
			if err == nil && pairs {
				err = s.inOut(ctx, vals, &b.Values, &b.ValuesOut)
			}
			return err
		},
		record: plan.RecordTimed,
		check: func(b *radix.Buffers) error {
			err := checkWords(b.KeysOut, want, op+" keys")
			if err == nil && pairs {
				err = checkWords(b.ValuesOut, sortedVals, op+" values")
			}
			return err
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			printSortPhases(w, fmt.Sprintf("%s n=%d", op, n), plan.Tuning(), names, phases)
		},
	}.run(ctx, cfg)
}

// words64 returns k as little-endian 32-bit words, the low word first.
func words64(k []uint64) []uint32 {
	w := make([]uint32, 2*len(k))
	for i, x := range k {
		w[2*i], w[2*i+1] = uint32(x), uint32(x>>32)
	}
	return w
}

// stableSortRef64 is the reference of the 64-bit sorts: a plain stable
// counting sort by 16-bit digits, least significant first (a comparison
// sort of 2^28 keys takes too long).
func stableSortRef64(keys []uint64, vals []uint32) ([]uint64, []uint32) {
	k, v := append([]uint64(nil), keys...), append([]uint32(nil), vals...)
	k2, v2 := make([]uint64, len(k)), make([]uint32, len(v))
	count := make([]int, 1<<16+1)
	for shift := 0; shift < 64; shift += 16 {
		clear(count)
		for _, x := range k {
			count[(x>>shift&0xffff)+1]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for i, x := range k {
			d := x >> shift & 0xffff
			k2[count[d]], v2[count[d]] = x, v[i]
			count[d]++
		}
		k, k2, v, v2 = k2, k, v2, v
	}
	return k, v
}
