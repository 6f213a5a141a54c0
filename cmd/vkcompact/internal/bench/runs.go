package bench

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// sortedRuns returns the anchor's input for unique and run-length
// encoding, n sorted uint32 keys: for i == 0, or with probability keep,
// v += 1 + (rand & 7), and key[i] = v. It returns each run's first key
// and length too.
func sortedRuns(n uint64, keep float64) (in, keys, lengths []uint32) {
	rng := rand.New(rand.NewPCG(43, n^uint64(keep*1e6)))
	in = make([]uint32, n)
	v := uint32(0)
	for i := range in {
		if i == 0 || rng.Float64() < keep {
			v += 1 + rng.Uint32()&7
			keys = append(keys, v)
			lengths = append(lengths, 0)
		}
		in[i] = v
		lengths[len(lengths)-1]++
	}
	return in, keys, lengths
}

// benchUnique times unique (compact.KeepUnique) of n sorted uint32 keys
// (sortedRuns), checked against Go.
func benchUnique(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (Row, error) {
	const op = "unique_u32"
	plan, err := compact.NewPlan(ctx, n, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepUnique(), Options: cfg.selectOpts})
	if err != nil {
		return Row{}, err
	}
	in, want, _ := sortedRuns(n, keep)
	return setBench[compact.Buffers]{
		op: op, n: n, keep: keep, sets: setsFor(8 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *compact.Buffers) error {
			return s.inOut(ctx, in, &b.Src, &b.Dst, bufSize{&b.Result, compact.ResultSize}, bufSize{&b.Scratch, plan.ScratchSize()})
		},
		record: plan.RecordTimed,
		check: func(b *compact.Buffers) error {
			res, err := compact.ReadResult(b.Result)
			if err != nil {
				return err
			}
			if int(res.Kept) != len(want) || uint64(res.Total) != n {
				return fmt.Errorf("%s kept %d of %d, want %d of %d", op, res.Kept, res.Total, len(want), n)
			}
			return checkWords(b.Dst, want, op+" output")
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			printSelectPhases(w, fmt.Sprintf("%s n=%d keep=%.3f", op, n, keep), plan.Tuning(), phases)
		},
	}.run(ctx, cfg)
}

// benchUniqueByKey times unique by key (compact.KeepUnique with
// Selection.Values) of n sorted uint32 keys (sortedRuns) with n random
// uint32 values (byKeyValues), unique_by_key_u32 as the anchor's
// DeviceSelect::UniqueByKey, and checks every set's kept count, keys and
// values against Go.
func benchUniqueByKey(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (Row, error) {
	const op = "unique_by_key_u32"
	plan, err := compact.NewPlan(ctx, n, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepUnique(),
		Values: vkcompact.Uint32, Options: cfg.selectOpts})
	if err != nil {
		return Row{}, err
	}
	in, want, lengths := sortedRuns(n, keep)
	values := byKeyValues(n)
	wantValues := make([]uint32, 0, len(want))
	i := uint32(0)
	for _, l := range lengths {
		wantValues = append(wantValues, values[i])
		i += l
	}
	return setBench[compact.Buffers]{
		op: op, n: n, keep: keep, sets: setsFor(16 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *compact.Buffers) error {
			if err := s.inOut(ctx, in, &b.Src, &b.Dst, bufSize{&b.Values, 4 * n}, bufSize{&b.ValuesOut, 4 * n},
				bufSize{&b.Result, compact.ResultSize}, bufSize{&b.Scratch, plan.ScratchSize()}); err != nil {
				return err
			}
			return load(ctx, b.Values, values, b.ValuesOut)
		},
		record: plan.RecordTimed,
		check: func(b *compact.Buffers) error {
			res, err := compact.ReadResult(b.Result)
			if err != nil {
				return err
			}
			if int(res.Kept) != len(want) || uint64(res.Total) != n {
				return fmt.Errorf("%s kept %d of %d, want %d of %d", op, res.Kept, res.Total, len(want), n)
			}
			if err := checkWords(b.Dst, want, op+" keys"); err != nil {
				return err
			}
			return checkWords(b.ValuesOut, wantValues, op+" values")
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			printSelectPhases(w, fmt.Sprintf("%s n=%d keep=%.3f", op, n, keep), plan.Tuning(), phases)
		},
	}.run(ctx, cfg)
}

// benchRLE times run-length encoding (runs.Encode) of n sorted uint32
// keys (sortedRuns), checked against Go.
func benchRLE(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (Row, error) {
	const op = "rle_u32"
	plan, err := runs.NewPlan(ctx, n, runs.Encoding{Options: cfg.selectOpts, Lengths: cfg.rleLengths})
	if err != nil {
		return Row{}, err
	}
	in, keys, lengths := sortedRuns(n, keep)
	return setBench[runs.Buffers]{
		op: op, n: n, keep: keep, sets: setsFor(12 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *runs.Buffers) error {
			if err := s.inOut(ctx, in, &b.Src, &b.Keys, bufSize{&b.Lengths, 4 * n}, bufSize{&b.Result, runs.ResultSize}, bufSize{&b.Scratch, plan.ScratchSize()}); err != nil {
				return err
			}
			return poison(ctx, b.Lengths)
		},
		record: plan.RecordTimed,
		check: func(b *runs.Buffers) error {
			res, err := runs.ReadResult(b.Result)
			if err != nil {
				return err
			}
			if int(res.Runs) != len(keys) || uint64(res.Total) != n {
				return fmt.Errorf("%s: %d runs of %d, want %d of %d", op, res.Runs, res.Total, len(keys), n)
			}
			if err := checkWords(b.Keys, keys, op+" keys"); err != nil {
				return err
			}
			return checkWords(b.Lengths, lengths, op+" lengths")
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			t := plan.Tuning()
			fmt.Fprintf(w, "# %s n=%d keep=%.3f:", op, n, keep)
			for i, name := range plan.Phases() {
				fmt.Fprintf(w, " %s %.5f", name, median(phases[i]))
			}
			fmt.Fprintf(w, " ms (medians); the selection on %v, the lengths %v\n", t.Selection.Path, t.Lengths)
		},
	}.run(ctx, cfg)
}
