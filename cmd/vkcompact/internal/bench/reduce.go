package bench

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// benchReduce times the reduction (op Sum or Max) of n random uint32 to
// one value, the anchor's reduce_sum_u32 and reduce_max_u32, and checks
// every set's result block against Go.
func benchReduce(op reduce.Op) benchOp {
	return func(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
		name := fmt.Sprintf("reduce_%s_u32", op)
		plan, err := reduce.NewPlan(ctx, n, reduce.Reduce{Elem: vkcompact.Plain(vkcompact.Uint32), Op: op})
		if err != nil {
			return Row{}, err
		}
		rng := rand.New(rand.NewPCG(47, n))
		in := make([]uint32, n)
		var sum, greatest uint32
		for i := range in {
			in[i] = rng.Uint32()
			sum += in[i]
			greatest = max(greatest, in[i])
		}
		want := sum
		if op == reduce.Max {
			want = greatest
		}
		return setBench[reduce.Buffers]{
			op: name, n: n, keep: 1, sets: setsFor(4 * n), stamps: uint32(len(plan.Phases()) + 1),
			prepare: func(s *bufferSets, b *reduce.Buffers) error {
				if err := s.allocAll(bufSize{&b.Src, 4 * n}, bufSize{&b.Result, reduce.ResultSize}, bufSize{&b.Scratch, plan.ScratchSize()}); err != nil {
					return err
				}
				return load(ctx, b.Src, in, b.Result)
			},
			record: plan.RecordTimed,
			check: func(b *reduce.Buffers) error {
				res, err := reduce.ReadResult(b.Result)
				if err != nil {
					return err
				}
				if res.Uint32() != want || res.Bits>>32 != 0 || uint64(res.Count) != n || res.Index != reduce.NoIndex {
					return fmt.Errorf("%s: result %#x over %d (index %d), want %#x over %d", name, res.Bits, res.Count, res.Index, want, n)
				}
				return nil
			},
			printPhases: func(w io.Writer, phases [][]float64) {
				t := plan.Tuning()
				windows := ""
				if t.WindowWorkgroups > 0 {
					windows = fmt.Sprintf(", %d workgroups per window", t.WindowWorkgroups)
				}
				fmt.Fprintf(w, "# %s n=%d: %s ms (medians); %v, %d workgroups of %d elements (workgroup %d, %d loads per lane)%s\n",
					name, n, phaseText(plan.Phases(), phases), t.Path, t.Workgroups, t.Chunk, t.WorkgroupSize, t.LoadsPerLane, windows)
			},
		}.run(ctx, cfg)
	}
}

// phaseText writes each phase's median time: "clear 0.00100, reduce
// 0.03000".
func phaseText(names []string, phases [][]float64) string {
	s := ""
	for i, name := range names {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %.5f", name, median(phases[i]))
	}
	return s
}

// benchSegmentedSum is the anchor's segment length for segreduce_sum_u32:
// DeviceSegmentedReduce::Sum over segments of 1024.
const benchSegmentedSum = 1024

// benchSegReduce times the sum within segments of benchSegmentedSum of n
// uint32 (offsets[i] = min(n, i*1024), the last segment shorter), on the
// anchor's input (the histogram's samples, uniform in [0, 2^24)), and
// checks every set's sums against Go. The row's keep_ratio column
// carries the segment length, as the anchor's does.
func benchSegReduce(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
	const op = "segreduce_sum_u32"
	offsets := make([]uint32, (n+benchSegmentedSum-1)/benchSegmentedSum+1)
	for i := range offsets {
		offsets[i] = uint32(min(uint64(i)*benchSegmentedSum, n))
	}
	segments := uint64(len(offsets) - 1)
	plan, err := reduce.NewSegmentedPlan(ctx, n, uint32(segments), reduce.Segmented{Elem: vkcompact.Plain(vkcompact.Uint32), Op: reduce.Sum})
	if err != nil {
		return Row{}, err
	}
	in := histogramSamples(n)
	want := make([]uint32, segments)
	for s := range want {
		for _, x := range in[offsets[s]:offsets[s+1]] {
			want[s] += x
		}
	}
	return setBench[reduce.SegmentedBuffers]{
		op: op, n: n, keep: benchSegmentedSum, sets: setsFor(4 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *reduce.SegmentedBuffers) error {
			if err := s.allocAll(bufSize{&b.Src, 4 * n}, bufSize{&b.Offsets, 4 * uint64(len(offsets))}, bufSize{&b.Dst, 4 * segments},
				bufSize{&b.Scratch, plan.ScratchSize()}); err != nil {
				return err
			}
			if plan.ScratchSize() == 0 {
				b.Scratch = vk.Range{}
			}
			if err := vk.Upload(b.Offsets, offsets); err != nil {
				return err
			}
			return load(ctx, b.Src, in, b.Dst)
		},
		record: plan.RecordTimed,
		check:  func(b *reduce.SegmentedBuffers) error { return checkWords(b.Dst, want, op+" sums") },
		printPhases: func(w io.Writer, phases [][]float64) {
			t := plan.Tuning()
			fmt.Fprintf(w, "# %s n=%d: %s ms (medians); %d tiles of %d (workgroup %d, %d loads per lane)\n",
				op, n, phaseText(plan.Phases(), phases), t.Tiles, t.Tile, t.WorkgroupSize, t.LoadsPerLane)
		},
	}.run(ctx, cfg)
}

// benchReduceByKey times the sum by key of n random uint32 values over
// the anchor's sorted keys in runs (sortedRuns: a new run with
// probability keep), reduce_by_key_u32, and checks every set's runs,
// keys and sums against Go.
func benchReduceByKey(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (Row, error) {
	const op = "reduce_by_key_u32"
	plan, err := reduce.NewByKeyPlan(ctx, n, reduce.ByKey{Op: reduce.Sum})
	if err != nil {
		return Row{}, err
	}
	keys, runKeys, lengths := sortedRuns(n, keep)
	values := byKeyValues(n)
	sums := make([]uint32, len(runKeys))
	i := 0
	for r, l := range lengths {
		for range l {
			sums[r] += values[i]
			i++
		}
	}
	return setBench[reduce.ByKeyBuffers]{
		op: op, n: n, keep: keep, sets: setsFor(16 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *reduce.ByKeyBuffers) error {
			if err := s.allocAll(bufSize{&b.Keys, 4 * n}, bufSize{&b.Values, 4 * n}, bufSize{&b.KeysOut, 4 * n}, bufSize{&b.ValuesOut, 4 * n},
				bufSize{&b.Result, reduce.ByKeyResultSize}, bufSize{&b.Scratch, plan.ScratchSize()}); err != nil {
				return err
			}
			if err := load(ctx, b.Keys, keys, b.KeysOut); err != nil {
				return err
			}
			if err := load(ctx, b.Values, values, b.ValuesOut); err != nil {
				return err
			}
			return poison(ctx, b.Result)
		},
		record: plan.RecordTimed,
		check: func(b *reduce.ByKeyBuffers) error {
			res, err := reduce.ReadByKeyResult(b.Result)
			if err != nil {
				return err
			}
			if int(res.Runs) != len(runKeys) || uint64(res.Total) != n {
				return fmt.Errorf("%s: %d runs of %d, want %d of %d", op, res.Runs, res.Total, len(runKeys), n)
			}
			if err := checkWords(b.KeysOut, runKeys, op+" keys"); err != nil {
				return err
			}
			return checkWords(b.ValuesOut, sums, op+" sums")
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			t := plan.Tuning()
			fmt.Fprintf(w, "# %s n=%d keep=%.3f: %s ms (medians); %d tiles of %d (workgroup %d, %d loads per lane), spins %d\n",
				op, n, keep, phaseText(plan.Phases(), phases), t.Tiles, t.Tile, t.WorkgroupSize, t.LoadsPerLane, t.Spins)
		},
	}.run(ctx, cfg)
}

// byKeyValues returns the by-key operations' values, n random uint32: the
// anchor's reduce_by_key_u32, unique_by_key_u32 and scan_by_key_u32 take
// the same values at every keep ratio.
func byKeyValues(n uint64) []uint32 {
	rng := rand.New(rand.NewPCG(48, n))
	values := make([]uint32, n)
	for i := range values {
		values[i] = rng.Uint32()
	}
	return values
}

// benchHistogramBins is histogram_u32's bins: the anchor's 256 even bins
// over [0, 2^24).
const benchHistogramBins = 256

// histogramSamples returns the anchor's histogram input: n uint32
// uniform in [0, 2^24).
func histogramSamples(n uint64) []uint32 {
	rng := rand.New(rand.NewPCG(49, n))
	in := make([]uint32, n)
	for i := range in {
		in[i] = rng.Uint32() & 0xffffff
	}
	return in
}

// benchHistogram times the histogram of n uint32 uniform in [0, 2^24) in
// 256 even bins over [0, 2^24), histogram_u32, and checks every set's
// counts against Go. The row's keep_ratio column carries the bins, as the
// anchor's does.
func benchHistogram(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
	const op = "histogram_u32"
	plan, err := histogram.NewPlan(ctx, n, histogram.Histogram{Bins: benchHistogramBins, Lower: 0, Upper: 1 << 24})
	if err != nil {
		return Row{}, err
	}
	in := histogramSamples(n)
	want := make([]uint32, benchHistogramBins)
	for _, x := range in {
		want[x>>16]++
	}
	return setBench[histogram.Buffers]{
		op: op, n: n, keep: benchHistogramBins, sets: setsFor(4 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *histogram.Buffers) error {
			if err := s.allocAll(bufSize{&b.Src, 4 * n}, bufSize{&b.Counts, 4 * benchHistogramBins}); err != nil {
				return err
			}
			return load(ctx, b.Src, in, b.Counts)
		},
		record: plan.RecordTimed,
		check:  func(b *histogram.Buffers) error { return checkWords(b.Counts, want, op+" counts") },
		printPhases: func(w io.Writer, phases [][]float64) {
			t := plan.Tuning()
			fmt.Fprintf(w, "# %s n=%d: %s ms (medians); %d workgroups of %d, %d loads per lane, %d replicas, %d segments\n",
				op, n, phaseText(plan.Phases(), phases), t.Workgroups, t.WorkgroupSize, t.LoadsPerLane, t.Replicas, t.Segments)
		},
	}.run(ctx, cfg)
}
