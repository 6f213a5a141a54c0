package bench

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// benchScan times the exclusive prefix sum of n random uint32 and checks
// every set's output and total.
func benchScan(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
	plan, err := scan.NewPlan(ctx, n, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint32), Options: cfg.scanOpts})
	if err != nil {
		return Row{}, err
	}
	rng := rand.New(rand.NewPCG(43, n))
	in := make([]uint32, n)
	want := make([]uint32, n)
	var total uint32
	for i := range in {
		in[i] = rng.Uint32()
		want[i] = total
		total += in[i]
	}
	return setBench[scan.Buffers]{
		op: "scan_exclusive_u32", n: n, keep: 1, sets: setsFor(8 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *scan.Buffers) error {
			return s.inOut(ctx, in, &b.Src, &b.Dst, bufSize{&b.Total, scan.TotalSize}, bufSize{&b.Scratch, plan.ScratchSize()})
		},
		record: plan.RecordTimed,
		check: func(b *scan.Buffers) error {
			if err := checkWords(b.Dst, want, "scan output"); err != nil {
				return err
			}
			return checkWords(b.Total, []uint32{total}, "scan total")
		},
		printPhases: func(w io.Writer, phases [][]float64) { printScanPhases(w, n, plan.Tuning(), phases) },
	}.run(ctx, cfg)
}

// printScanPhases prints the median time of each phase of the prefix sum
// and its tuning (bench -phases).
func printScanPhases(w io.Writer, n uint64, t scan.Tuning, phases [][]float64) {
	if t.Path == vkcompact.PathSinglePass {
		fmt.Fprintf(w, "# scan_exclusive_u32 n=%d single pass: clear %.5f, pass %.5f ms (medians); %d tiles of %d (workgroup %d, %d loads per lane), spins %d\n",
			n, median(phases[0]), median(phases[1]), t.Tiles, t.Tile, t.WorkgroupSize, t.LoadsPerLane, t.Spins)
		return
	}
	fmt.Fprintf(w, "# scan_exclusive_u32 n=%d: reduce %.5f, scan %.5f, apply %.5f ms (medians); %d chunks of %d, %d loads per lane\n",
		n, median(phases[0]), median(phases[1]), median(phases[2]), t.Chunks, t.Chunk, t.LoadsPerLane)
}

// benchScanByKey times the exclusive sum by key of n random uint32 values
// (byKeyValues) over the anchor's sorted keys in runs (sortedRuns: a new
// run with probability keep), scan_by_key_u32 as the anchor's
// DeviceScan::ExclusiveSumByKey, and checks every set's scans against Go.
// -scan-wg, -scan-loads and -select-spins tune it; it has one path.
func benchScanByKey(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (Row, error) {
	const op = "scan_by_key_u32"
	opts := scan.Options{WorkgroupSize: cfg.scanOpts.WorkgroupSize, LoadsPerLane: cfg.scanOpts.LoadsPerLane, Spins: cfg.scanOpts.Spins}
	plan, err := scan.NewByKeyPlan(ctx, n, scan.ByKey{Op: scan.Sum, Options: opts})
	if err != nil {
		return Row{}, err
	}
	keys, _, lengths := sortedRuns(n, keep)
	values := byKeyValues(n)
	want := make([]uint32, n)
	i := 0
	for _, l := range lengths {
		var sum uint32
		for range l {
			want[i] = sum
			sum += values[i]
			i++
		}
	}
	return setBench[scan.ByKeyBuffers]{
		op: op, n: n, keep: keep, sets: setsFor(12 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *scan.ByKeyBuffers) error {
			if err := s.allocAll(bufSize{&b.Keys, 4 * n}, bufSize{&b.Values, 4 * n}, bufSize{&b.Dst, 4 * n}, bufSize{&b.Scratch, plan.ScratchSize()}); err != nil {
				return err
			}
			if err := vk.Upload(b.Keys, keys); err != nil {
				return err
			}
			return load(ctx, b.Values, values, b.Dst)
		},
		record: plan.RecordTimed,
		check:  func(b *scan.ByKeyBuffers) error { return checkWords(b.Dst, want, op+" scans") },
		printPhases: func(w io.Writer, phases [][]float64) {
			t := plan.Tuning()
			fmt.Fprintf(w, "# %s n=%d keep=%.3f: %s ms (medians); %d tiles of %d (workgroup %d, %d loads per lane), spins %d\n",
				op, n, keep, phaseText(plan.Phases(), phases), t.Tiles, t.Tile, t.WorkgroupSize, t.LoadsPerLane, t.Spins)
		},
	}.run(ctx, cfg)
}
