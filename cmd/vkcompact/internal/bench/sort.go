package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// benchSort returns the timing of the sort of n uint32 keys, with values
// for pairs (timeSort).
func benchSort(pairs bool) benchOp {
	return func(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
		return timeSort(ctx, n, pairs, cfg)
	}
}

// timeSort times the ascending sort of n random uint32 keys, with their
// indices as values for pairs, and checks every set's output against a Go
// stable sort.
func timeSort(ctx *vk.Context, n uint64, pairs bool, cfg benchConfig) (Row, error) {
	op := "sort_keys_u32"
	if pairs {
		op = "sort_pairs_u32"
	}
	plan, err := radix.NewPlan(ctx, n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: pairs, Options: cfg.sortOpts})
	if err != nil {
		return Row{}, err
	}
	rng := rand.New(rand.NewPCG(44, n))
	keys := make([]uint32, n)
	vals := make([]uint32, n)
	for i := range keys {
		keys[i] = rng.Uint32()
		vals[i] = uint32(i)
	}
	wantKeys, wantVals := stableSortRef(keys, vals)
	perSet := 8 * n
	if pairs {
		perSet *= 2
	}
	names := plan.Phases()
	return setBench[radix.Buffers]{
		op: op, n: n, keep: 1, sets: setsFor(perSet), stamps: uint32(len(names) + 1),
		prepare: func(s *bufferSets, b *radix.Buffers) error {
			err := s.inOut(ctx, keys, &b.Keys, &b.KeysOut, bufSize{&b.Scratch, plan.ScratchSize()})
			if err == nil && pairs {
				err = s.inOut(ctx, vals, &b.Values, &b.ValuesOut)
			}
			return err
		},
		record: plan.RecordTimed,
		check: func(b *radix.Buffers) error {
			err := checkWords(b.KeysOut, wantKeys, op+" keys")
			if err == nil && pairs {
				err = checkWords(b.ValuesOut, wantVals, op+" values")
			}
			return err
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			printSortPhases(w, fmt.Sprintf("%s n=%d", op, n), plan.Tuning(), names, phases)
		},
	}.run(ctx, cfg)
}

// printSortPhases prints the sort's tuning and the median time of each
// kind of phase (bench -phases); what names the measurement.
func printSortPhases(w io.Writer, what string, t radix.Tuning, names []string, phases [][]float64) {
	if t.OneWorkgroup {
		fmt.Fprintf(w, "# %s: one workgroup in shared memory: %d passes of %d bits, workgroup %d, %d keys per lane\n",
			what, t.Passes, t.DigitBits, t.WorkgroupSize, t.KeysPerLane)
	} else if t.LaneSerial {
		words := "32-bit words"
		if t.Words64 {
			words = "64-bit words"
		}
		fmt.Fprintf(w, "# %s: lane-serial: %d passes of at most %d bits, %d workgroups of %d lanes, %d keys a lane, %s\n",
			what, t.Passes, t.DigitBits, t.Processors, t.WorkgroupSize, t.KeysPerLane, words)
	} else if t.Path == vkcompact.PathSinglePass {
		fmt.Fprintf(w, "# %s: single pass: %d passes of %d bits, %d tiles of %d keys, workgroup %d, %d keys per lane, %d spins; histogram by %d processors of %d keys\n",
			what, t.Passes, t.DigitBits, t.Tiles, t.Tile, t.WorkgroupSize, t.KeysPerLane, t.Spins, t.Processors, t.Chunk)
	} else {
		counts := "a count phase per pass"
		if t.FusedCounts {
			counts = "later passes counted by the scatter before"
		}
		if t.HeldTails {
			counts += ", run tails held for the next round"
		}
		fmt.Fprintf(w, "# %s: three phases: %d passes of at most %d bits (shared out evenly), %d processors of %d keys, workgroup %d, %d keys per lane, %s\n",
			what, t.Passes, t.DigitBits, t.Processors, t.Chunk, t.WorkgroupSize, t.KeysPerLane, counts)
	}
	fmt.Fprintf(w, "# %s: %s\n", what, sortPhaseSummary(names, phases))
}

// stableSortRef is the bench's reference: a plain stable counting sort by
// bytes, least significant first (a Go sort of 2^28 keys takes too long).
func stableSortRef(keys, vals []uint32) ([]uint32, []uint32) {
	k, v := slices.Clone(keys), slices.Clone(vals)
	k2, v2 := make([]uint32, len(k)), make([]uint32, len(v))
	for shift := 0; shift < 32; shift += 8 {
		var count [257]int
		for _, x := range k {
			count[(x>>shift&0xff)+1]++
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for i, x := range k {
			d := x >> shift & 0xff
			k2[count[d]], v2[count[d]] = x, v[i]
			count[d]++
		}
		k, k2, v, v2 = k2, k, v2, v
	}
	return k, v
}

// sortPhaseSummary sums the sort's per-run interval times by phase name
// (every pass's count, scan, scatter) and gives each sum's median over
// the runs, with the number of intervals it holds.
func sortPhaseSummary(names []string, phases [][]float64) string {
	var order []string
	sums := map[string][]float64{}
	counts := map[string]int{}
	for i, name := range names {
		if _, ok := sums[name]; !ok {
			order = append(order, name)
			sums[name] = make([]float64, len(phases[i]))
		}
		counts[name]++
		for run, ms := range phases[i] {
			sums[name][run] += ms
		}
	}
	var parts []string
	for _, name := range order {
		parts = append(parts, fmt.Sprintf("%s %.5f ms (%d)", name, median(sums[name]), counts[name]))
	}
	return "per-run sums, medians: " + strings.Join(parts, ", ")
}
