package bench

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStableSortRef64 holds the 64-bit sorts' reference to a Go stable
// sort, on keys with many repeats in every 16-bit digit so that its
// stability shows.
func TestStableSortRef64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, 5000)
	vals := make([]uint32, len(keys))
	for i := range keys {
		keys[i] = uint64(rng.IntN(4))<<62 | uint64(rng.IntN(3))<<40 | uint64(rng.IntN(5))<<17 | uint64(rng.IntN(2))
		vals[i] = uint32(i)
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	gotKeys, gotVals := stableSortRef64(keys, vals)
	for i, j := range idx {
		if gotKeys[i] != keys[j] || gotVals[i] != uint32(j) {
			t.Fatalf("element %d: got key %#x value %d, want %#x %d", i, gotKeys[i], gotVals[i], keys[j], j)
		}
	}
}
