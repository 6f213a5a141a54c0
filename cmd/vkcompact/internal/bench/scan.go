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
