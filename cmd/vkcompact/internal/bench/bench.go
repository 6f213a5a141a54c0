// Package bench times vkcompact's operations and the floors they stand on
// with GPU timestamps, as the CUB anchor times CUB's: each
// operation at each size and keep ratio, warmed up, on buffers that
// rotate so that small inputs do not run from the cache, its output
// checked against a Go reference; the median of the timed runs is the
// row. It reads rows of the anchor's CSV and draws rows as plots
// (throughput against size, SVG or PNG).
package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// Row is one measurement, in the CUB anchor's columns (the CSV's and the
// JSON's).
type Row struct {
	Impl      string  `json:"impl"`        // the implementation: vkcompact, or the anchor's (cub)
	Op        string  `json:"op"`          // the operation, as -ops names it
	N         uint64  `json:"n"`           // elements
	KeepRatio float64 `json:"keep_ratio"`  // the share of elements kept; 1 for an operation that keeps all
	MsMedian  float64 `json:"ms_median"`   // the median GPU time of the timed runs, in milliseconds
	GelemPerS float64 `json:"gelem_per_s"` // n at the median time, in billions of elements a second
}

// benchOp times one operation on n elements, at the keep ratio keep
// where it has one, and checks its output.
type benchOp func(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (Row, error)

// benchOps lists the operations bench can time, by the names its rows
// give them.
var benchOps = map[string]benchOp{
	"copy":               benchCopy,
	"select_if":          benchSelect(false),
	"partition_if":       benchSelect(true),
	"partition3_u32":     benchPartition3,
	"scan_exclusive_u32": benchScan,
	"sort_keys_u32":      benchSort(false),
	"sort_pairs_u32":     benchSort(true),
	"sort_keys_u64":      benchSort64(false),
	"sort_pairs_u64":     benchSort64(true),
	"unique_u32":         benchUnique,
	"rle_u32":            benchRLE,
	"segsort_keys_u32":   benchSegsort,
	"reduce_sum_u32":     benchReduce(reduce.Sum),
	"reduce_max_u32":     benchReduce(reduce.Max),
	"reduce_by_key_u32":  benchReduceByKey,
	"scan_by_key_u32":    benchScanByKey,
	"unique_by_key_u32":  benchUniqueByKey,
	"segreduce_sum_u32":  benchSegReduce,
	"histogram_u32":      benchHistogram,
	// The floors every operation stands on (n is ignored): one dispatch
	// of one workgroup, and two with the barrier the second needs.
	"floor_dispatch":                  benchFloor(1),
	"floor_dispatch_barrier_dispatch": benchFloor(2),
}

// keeps reports whether an operation runs once per keep ratio.
func keeps(op string) bool {
	return op == "select_if" || op == "partition_if" || op == "unique_u32" || op == "rle_u32" || op == "reduce_by_key_u32" || op == "scan_by_key_u32" || op == "unique_by_key_u32"
}

// benchConfig is how bench measures: the runs, the options each
// operation's plan takes from the flags, and where its buffers and phase
// times go.
type benchConfig struct {
	reps, warmup int
	warmupFor    time.Duration // least wall time of back-to-back warm-up runs
	copyOpts     transfer.CopyOptions
	selectOpts   compact.Options
	reversed     bool // partition_if writes the rejected elements reversed, as CUB does
	rleLengths   runs.Lengths
	scanOpts     scan.Options
	sortOpts     radix.Options
	phases       io.Writer // where per-phase times go, or nil
	pool         *benchPool
}

// Config is a checked configuration of measurements: the operations,
// the sizes and keep ratios, and how each is run (DefineFlags, Config).
type Config struct {
	logs   []int     // -n: the sizes, as powers of two
	ops    []string  // -ops
	ratios []float64 // -keep
	cfg    benchConfig
	phases bool // -phases: per-phase times to Measure's log
	reuse  bool // -alloc size
}

// Ops returns the operations measured, in the order of -ops.
func (c *Config) Ops() []string { return c.ops }

// Check checks the options of the measurements that depend on the
// device, before any measurement: the copy kernel's (-copy-wg,
// -copy-vecs).
func (c *Config) Check(ctx *vk.Context) error { return transfer.CheckCopyOptions(ctx, c.cfg.copyOpts) }

// Measure times and checks every operation at every size and keep ratio
// on ctx and returns the rows. It writes a line describing the device to
// log, and with -phases each phase's times; each row to csv as it is
// measured, after the CSV header, unless csv is nil; and how many
// measurements of how many are done to progress.
func (c *Config) Measure(ctx *vk.Context, csv, log io.Writer, progress func(done, total int)) ([]Row, error) {
	info := ctx.Info()
	cfg := c.cfg
	if c.phases {
		cfg.phases = log
	}
	cfg.pool = &benchPool{ctx: ctx, reuse: c.reuse}
	defer cfg.pool.drain()
	fmt.Fprintf(log, "# device: %s, driver %s %s, Vulkan %s, subgroup %d\n",
		info.Name, info.DriverName, info.DriverVersion, info.APIVersion, info.SubgroupSize)
	if csv != nil {
		fmt.Fprintln(csv, "impl,op,n,keep_ratio,ms_median,gelem_per_s")
	}
	var rows []Row
	total := 0
	for _, op := range c.ops {
		total += len(c.logs) * len(c.ratiosOf(op))
	}
	for _, lg := range c.logs {
		for _, op := range c.ops {
			for _, keep := range c.ratiosOf(op) {
				progress(len(rows), total)
				row, err := benchOps[op](ctx, 1<<lg, keep, cfg)
				if err != nil {
					return nil, fmt.Errorf("%s at 2^%d: %w", op, lg, err)
				}
				rows = append(rows, row)
				if csv != nil {
					fmt.Fprintf(csv, "%s,%s,%d,%.3f,%.5f,%.2f\n", row.Impl, row.Op, row.N, row.KeepRatio, row.MsMedian, row.GelemPerS)
				}
			}
		}
		cfg.pool.drain()
	}
	return rows, nil
}

// ratiosOf is the keep ratios op is measured at: -keep's, or 1 for an
// operation that keeps everything.
func (c *Config) ratiosOf(op string) []float64 {
	if keeps(op) {
		return c.ratios
	}
	return []float64{1}
}

// benchCopy times the uvec4 copy of n uint32 and checks its output.
func benchCopy(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
	sets := bufferSets{pool: cfg.pool}
	defer sets.release()
	type pair struct{ src, dst vk.Range }
	pairs := make([]pair, setsFor(8*n))
	for i := range pairs {
		if err := sets.allocAll(bufSize{&pairs[i].src, 4 * n}, bufSize{&pairs[i].dst, 4 * n}); err != nil {
			return Row{}, err
		}
	}
	// Host memory only once the device has taken the buffers.
	rng := rand.New(rand.NewPCG(42, n))
	want := make([]uint32, n)
	for i := range want {
		want[i] = rng.Uint32() | 1
	}
	for _, p := range pairs {
		if err := load(ctx, p.src, want, p.dst); err != nil {
			return Row{}, err
		}
	}
	ms, _, err := timeRuns(ctx, cfg, len(pairs), 2, func(r *pipeline.Recorder, set int, t *vk.Timer) {
		t.Stamp(r.CommandBuffer(), 0)
		transfer.RecordCopy(r, pairs[set].dst, pairs[set].src, cfg.copyOpts)
		t.Stamp(r.CommandBuffer(), 1)
	})
	if err != nil {
		return Row{}, err
	}
	// Check every set that ran (with fewer runs than sets, some never did).
	for _, p := range pairs[:cfg.ranSets(len(pairs))] {
		if err := checkWords(p.dst, want, "copy output"); err != nil {
			return Row{}, err
		}
	}
	return measured("copy", n, 1, ms), nil
}

// benchFloor times d dispatches of one workgroup, each filling the same
// 16 bytes, so that a barrier separates consecutive ones: the fixed GPU
// cost of a dispatch, and of a dependent one after it, between two
// timestamps of one command buffer. n is only reported.
func benchFloor(d int) benchOp {
	return func(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
		sets := bufferSets{pool: cfg.pool}
		defer sets.release()
		var dst vk.Range
		if err := sets.allocAll(bufSize{&dst, 16}); err != nil {
			return Row{}, err
		}
		dst = dst.Sub(0, 16)
		ms, _, err := timeRuns(ctx, cfg, 1, 2, func(r *pipeline.Recorder, _ int, t *vk.Timer) {
			t.Stamp(r.CommandBuffer(), 0)
			for i := range d {
				transfer.RecordFill(r, dst, uint32(i+1))
			}
			t.Stamp(r.CommandBuffer(), 1)
		})
		if err != nil {
			return Row{}, err
		}
		if err := checkWords(dst, []uint32{uint32(d), uint32(d), uint32(d), uint32(d)}, "floor output"); err != nil {
			return Row{}, err
		}
		return measured(fmt.Sprintf("floor_dispatch%s", map[bool]string{true: "_barrier_dispatch"}[d == 2]), n, 1, ms), nil
	}
}

// kernelStatsCSV gives each pipeline's driver statistics as CSV rows:
// kernel, its specialization constants (space-separated, the workgroup size
// first), executable, subgroup size, statistic, value.
func KernelStatsCSV(pipes []*pipeline.Pipeline) ([]byte, error) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write([]string{"kernel", "constants", "executable", "subgroup_size", "statistic", "value"})
	for _, p := range pipes {
		stats, err := p.Statistics()
		if err != nil {
			return nil, fmt.Errorf("-kernel-stats: %s: %w", p.Kernel.Name, err)
		}
		consts := make([]string, len(p.Constants))
		for i, c := range p.Constants {
			consts[i] = strconv.FormatUint(uint64(c), 10)
		}
		for _, s := range stats {
			w.Write([]string{p.Kernel.Name, strings.Join(consts, " "), s.Executable, strconv.FormatUint(uint64(s.SubgroupSize), 10),
				s.Name, strconv.FormatFloat(s.Value, 'g', -1, 64)})
		}
	}
	w.Flush()
	return []byte(b.String()), w.Error()
}
