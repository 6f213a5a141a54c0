package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// benchRow is one measurement, in the CUB anchor's columns.
type benchRow struct {
	Impl      string  `json:"impl"`
	Op        string  `json:"op"`
	N         uint64  `json:"n"`
	KeepRatio float64 `json:"keep_ratio"`
	MsMedian  float64 `json:"ms_median"`
	GelemPerS float64 `json:"gelem_per_s"`
}

// benchOps lists the operations bench can time today. keep is the keep
// ratio (ignored by copy).
var benchOps = map[string]func(ctx *vk.Context, n uint64, keep float64, cfg benchConfig) (benchRow, error){
	"copy":               benchCopy,
	"select_if":          benchSelect(false),
	"partition_if":       benchSelect(true),
	"scan_exclusive_u32": benchScan,
	"sort_keys_u32":      benchSort(false),
	"sort_pairs_u32":     benchSort(true),
}

// keeps reports whether an operation runs once per keep ratio.
func keeps(op string) bool { return op == "select_if" || op == "partition_if" }

type benchConfig struct {
	reps, warmup int
	warmupFor    time.Duration // least wall time of back-to-back warm-up runs
	copyOpts     compact.CopyOptions
	selectOpts   compact.Options
	reversed     bool // partition_if writes the rejected elements reversed, as CUB does
	scanOpts     compact.Options
	sortOpts     radix.Options
	phases       io.Writer // where per-phase times go, or nil
	pool         *benchPool
}

// rotateBytes: inputs smaller than this are rotated over several buffer
// sets so that repeated runs do not measure the GPU's cache (the H100's L2
// holds 50 MB).
const rotateBytes = 128 << 20

func runBench(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("bench", stderr)
	ops := fs.String("ops", "copy,select_if,partition_if", "comma-separated operations: "+strings.Join(slices.Sorted(maps.Keys(benchOps)), ","))
	sizes := fs.String("n", "20,24,26,28", "comma-separated sizes as powers of two (uint32 elements)")
	keepList := fs.String("keep", "0.1,0.5,0.9", "comma-separated keep ratios for select_if and partition_if")
	procs := fs.Uint("select-procs", 0, "compaction processors (Billeter's P; 0: per device)")
	loads := fs.Uint("select-loads", 0, "compaction loads per lane per step (0: default)")
	selWG := fs.Uint("select-wg", 0, "compaction workgroup size (0: default)")
	write := fs.String("select-write", "auto", "compaction move writes: auto, scattered or staged")
	path := fs.String("select-path", "auto", "compaction and split algorithm: auto, three-phase or single-pass")
	spins := fs.Int("select-spins", 0, "single pass (compaction, split, prefix sum and sort): re-reads of a late predecessor before counting it (0: per device, -1: none)")
	order := fs.String("partition-order", "reversed", "partition_if's rejected elements: reversed (CUB's DevicePartition order) or stable")
	phases := fs.Bool("phases", false, "print each compaction and scan phase's median time, and the sort's tuning, to stderr")
	scanProcs := fs.Uint("scan-procs", 0, "prefix-sum processors (0: per device)")
	scanLoads := fs.Uint("scan-loads", 0, "prefix-sum loads per lane per step (0: default)")
	scanWG := fs.Uint("scan-wg", 0, "prefix-sum workgroup size (0: default)")
	scanPathName := fs.String("scan-path", "auto", "prefix-sum algorithm: auto, three-phase or single-pass")
	sortProcs := fs.Uint("sort-procs", 0, "radix sort processors (workgroups; 0: per device)")
	sortWG := fs.Uint("sort-wg", 0, "radix sort workgroup size (0: default)")
	sortBits := fs.Uint("sort-bits", 0, "radix sort digit bits, 1 to 8 (0: per device and key; radix.Options.DigitBits)")
	sortPathName := fs.String("sort-path", "auto", "radix sort algorithm: auto, three-phase (count, scan, scatter per digit) or single-pass (one histogram pass, then one pass per digit)")
	sortKPL := fs.Uint("sort-kpl", 0, fmt.Sprintf("radix sort keys per lane per round, up to %d (0: default)", radix.MaxKeysPerLane))
	sortTailsName := fs.String("sort-tails", "auto", "radix sort scatter: auto, write (each round's digit runs written whole) or hold (a run's last partial 32-byte block waits for the next round)")
	sortCountsName := fs.String("sort-counts", "auto", "radix sort digit counts: auto, separate (a count phase per pass) or fused (each scatter counts the next pass's digits)")
	reps := fs.Int("reps", 30, "timed runs per measurement (median reported)")
	warmup := fs.Int("warmup", 3, "untimed runs first, at least")
	warmupMs := fs.Int("warmup-ms", 500, "untimed runs back to back first for at least this many milliseconds, so the GPU's clock governor has raised the clocks")
	device := fs.String("device", "", deviceHelp)
	asJSON := fs.Bool("json", false, "print JSON instead of CSV")
	plotPath := fs.String("plot", "", "also draw the rows as a plot, throughput against n, to `FILE` (.svg or .png)")
	plotWith := fs.String("plot-with", "", "draw the rows of this CSV (the CUB anchor's columns) beside the measured ones")
	plotOnly := fs.Bool("plot-only", false, "measure nothing: draw the -plot-with rows of the -ops operations")
	kernelStats := fs.String("kernel-stats", "", "after measuring, write the driver's statistics of every kernel the run compiled (registers, shared memory, ...; VK_KHR_pipeline_executable_properties) to `FILE` as CSV")
	alloc := fs.String("alloc", "size", "device buffers: size (allocated once per size and shared by its operations, as the CUB anchor does) or op (each operation allocates and frees its own)")
	wg := fs.Uint("copy-wg", 0, "copy kernel workgroup size, up to the device's limit (0: default)")
	vecs := fs.Uint("copy-vecs", 0, fmt.Sprintf("copy kernel uvec4 per invocation, up to %d (0: default)", compact.MaxVecsPerThread))
	if err := parse(fs, args); err != nil {
		return err
	}
	var logs []int
	for _, s := range strings.Split(*sizes, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 0 || v > 31 {
			return usagef("-n: %q is not an exponent from 0 to 31 (sizes are powers of two)", s)
		}
		logs = append(logs, v)
	}
	var opList []string
	for _, o := range strings.Split(*ops, ",") {
		o = strings.TrimSpace(o)
		if _, ok := benchOps[o]; !ok {
			return usagef("-ops: unknown operation %q (available: %s)", o, strings.Join(slices.Sorted(maps.Keys(benchOps)), ", "))
		}
		opList = append(opList, o)
	}
	var ratios []float64
	for _, s := range strings.Split(*keepList, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v >= 0 && v <= 1) { // NaN too
			return usagef("-keep: %q is not a ratio between 0 and 1", s)
		}
		ratios = append(ratios, v)
	}
	var selWrite compact.Write
	switch *write {
	case "auto":
	case "scattered":
		selWrite = compact.WriteScattered
	case "staged":
		selWrite = compact.WriteStaged
	default:
		return usagef("-select-write: %q is not auto, scattered or staged", *write)
	}
	var selPath, scanPath, sortPath compact.Path
	for _, f := range []struct {
		flag, name string
		path       *compact.Path
	}{{"-select-path", *path, &selPath}, {"-scan-path", *scanPathName, &scanPath}, {"-sort-path", *sortPathName, &sortPath}} {
		switch f.name {
		case "auto":
		case "three-phase":
			*f.path = compact.PathThreePhase
		case "single-pass":
			*f.path = compact.PathSinglePass
		default:
			return usagef("%s: %q is not auto, three-phase or single-pass", f.flag, f.name)
		}
	}
	sortCounts, ok := map[string]radix.Counts{"auto": radix.CountsAuto, "separate": radix.CountsSeparate, "fused": radix.CountsFused}[*sortCountsName]
	if !ok {
		return usagef("-sort-counts: %q is not auto, separate or fused", *sortCountsName)
	}
	sortTails, ok := map[string]radix.Tails{"auto": radix.TailsAuto, "write": radix.TailsWrite, "hold": radix.TailsHold}[*sortTailsName]
	if !ok {
		return usagef("-sort-tails: %q is not auto, write or hold", *sortTailsName)
	}
	if *alloc != "size" && *alloc != "op" {
		return usagef("-alloc: %q is not size or op", *alloc)
	}
	if *order != "reversed" && *order != "stable" {
		return usagef("-partition-order: %q is not reversed or stable", *order)
	}
	if *spins < -1 || *spins > 1<<20 {
		return usagef("-select-spins %d: -1 to %d", *spins, 1<<20)
	}
	if *procs > 1<<24 || *loads > 16 || *selWG > 1<<16 {
		return usagef("-select-procs, -select-loads or -select-wg out of range")
	}
	if *scanProcs > 1<<24 || *scanLoads > 16 || *scanWG > 1<<16 || *sortProcs > 1<<24 || *sortWG > 1<<16 || *sortBits > 8 || *sortKPL > radix.MaxKeysPerLane {
		return usagef("-scan-procs, -scan-loads, -scan-wg, -sort-procs, -sort-wg, -sort-bits or -sort-kpl out of range")
	}
	if *reps < 1 || *warmup < 0 {
		return usagef("-reps must be at least 1 and -warmup at least 0")
	}
	if *warmupMs < 0 || *warmupMs > 600000 {
		return usagef("-warmup-ms %d: 0 to 600000", *warmupMs)
	}
	if *wg > 1<<16 {
		return usagef("-copy-wg %d: beyond any device's workgroup size", *wg)
	}
	if *vecs > compact.MaxVecsPerThread {
		return usagef("-copy-vecs %d: at most %d", *vecs, compact.MaxVecsPerThread)
	}
	var extra []benchRow
	if *plotPath != "" {
		if _, err := plotFormat(*plotPath); err != nil {
			return usageError{err}
		}
	}
	if *plotWith != "" {
		if extra, err = readBenchCSV(*plotWith); err != nil {
			return usagef("-plot-with: %v", err)
		}
	}
	if *plotOnly {
		if *plotPath == "" || *plotWith == "" {
			return usagef("-plot-only needs -plot FILE and -plot-with CSV")
		}
		if err := writePlot(*plotPath, extra, opList); err != nil {
			return usageError{err}
		}
		return nil
	}
	var statsOut *outputFile
	if *kernelStats != "" {
		// Created first, so that a path that cannot be written fails before the run.
		if statsOut, err = createOutputFor("-kernel-stats", *kernelStats); err != nil {
			return err
		}
		defer func() {
			if statsOut != nil {
				statsOut.abort()
			}
		}()
	}
	ctx, err := vk.Open(vk.Options{Device: *device, Statistics: *kernelStats != ""})
	if err != nil {
		return err
	}
	defer func() { err = releaseChecked(ctx, err, stderr) }()
	if *kernelStats != "" && !ctx.Info().PipelineStatistics {
		return usagef("-kernel-stats: %s lacks VK_KHR_pipeline_executable_properties", ctx.Info().Name)
	}
	cfg := benchConfig{reps: *reps, warmup: *warmup, warmupFor: time.Duration(*warmupMs) * time.Millisecond,
		copyOpts: compact.CopyOptions{WorkgroupSize: uint32(*wg), VecsPerThread: uint32(*vecs)},
		selectOpts: compact.Options{Processors: uint32(*procs), LoadsPerLane: uint32(*loads), WorkgroupSize: uint32(*selWG), Write: selWrite,
			Path: selPath, Spins: int32(*spins)},
		reversed: *order == "reversed",
		scanOpts: compact.Options{Processors: uint32(*scanProcs), LoadsPerLane: uint32(*scanLoads), WorkgroupSize: uint32(*scanWG),
			Path: scanPath, Spins: int32(*spins)},
		sortOpts: radix.Options{Path: sortPath, Spins: int32(*spins), Processors: uint32(*sortProcs), WorkgroupSize: uint32(*sortWG), DigitBits: uint32(*sortBits), KeysPerLane: uint32(*sortKPL), Counts: sortCounts, Tails: sortTails}}
	if *phases {
		cfg.phases = stderr
	}
	cfg.pool = &benchPool{ctx: ctx, reuse: *alloc == "size"}
	defer cfg.pool.drain()
	if err := compact.CheckCopyOptions(ctx, cfg.copyOpts); err != nil {
		return usageError{err}
	}
	info := ctx.Info()
	fmt.Fprintf(stderr, "# device: %s, driver %s %s, Vulkan %s, subgroup %d\n",
		info.Name, info.DriverName, info.DriverVersion, info.APIVersion, info.SubgroupSize)
	var rows []benchRow
	if !*asJSON {
		fmt.Fprintln(stdout, "impl,op,n,keep_ratio,ms_median,gelem_per_s")
	}
	for _, lg := range logs {
		for _, op := range opList {
			rs := []float64{1}
			if keeps(op) {
				rs = ratios
			}
			for _, keep := range rs {
				row, err := benchOps[op](ctx, 1<<lg, keep, cfg)
				if err != nil {
					return fmt.Errorf("%s at 2^%d: %w", op, lg, err)
				}
				rows = append(rows, row)
				if !*asJSON {
					fmt.Fprintf(stdout, "%s,%s,%d,%.3f,%.5f,%.2f\n", row.Impl, row.Op, row.N, row.KeepRatio, row.MsMedian, row.GelemPerS)
				}
			}
		}
		cfg.pool.drain()
	}
	if *plotPath != "" {
		if err := writePlot(*plotPath, append(rows, extra...), opList); err != nil {
			return err
		}
	}
	if *kernelStats != "" {
		data, err := kernelStatsCSV(pipeline.For(ctx).Pipelines())
		if err != nil {
			return err
		}
		if err := statsOut.commit(nil, data); err != nil {
			return err
		}
		statsOut = nil
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rows)
	}
	return nil
}

// benchCopy times the uvec4 copy of n uint32 and checks its output.
func benchCopy(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (benchRow, error) {
	bytes := 4 * n
	sets := bufferSets{pool: cfg.pool}
	defer sets.release()
	type pair struct{ src, dst vk.Range }
	var pairs []pair
	for range setsFor(2 * bytes) {
		src, err := sets.alloc(bytes)
		if err != nil {
			return benchRow{}, err
		}
		dst, err := sets.alloc(bytes)
		if err != nil {
			return benchRow{}, err
		}
		pairs = append(pairs, pair{src, dst})
	}
	// Host memory only once the device has taken the buffers.
	rng := rand.New(rand.NewPCG(42, n))
	want := make([]uint32, n)
	for i := range want {
		want[i] = rng.Uint32() | 1
	}
	for _, p := range pairs {
		src, dst := p.src, p.dst
		if err := vk.Upload(src, want); err != nil {
			return benchRow{}, err
		}
		if err := poison(ctx, dst); err != nil {
			return benchRow{}, err
		}
	}
	ms, _, err := timeRuns(ctx, cfg, len(pairs), 2, func(r *pipeline.Recorder, set int, t *vk.Timer) {
		t.Stamp(r.CommandBuffer(), 0)
		compact.RecordCopy(r, pairs[set].dst, pairs[set].src, cfg.copyOpts)
		t.Stamp(r.CommandBuffer(), 1)
	})
	if err != nil {
		return benchRow{}, err
	}
	// Check every set that ran (with fewer runs than sets, some never did).
	for _, p := range pairs[:min(len(pairs), cfg.warmup+cfg.reps)] {
		got := make([]uint32, n)
		if err := vk.Download(p.dst, got); err != nil {
			return benchRow{}, err
		}
		if i := firstDiff(got, want); i >= 0 {
			return benchRow{}, fmt.Errorf("copy output wrong at element %d: got %#x, want %#x", i, got[i], want[i])
		}
	}
	med := median(ms)
	return benchRow{Impl: "vkcompact", Op: "copy", N: n, KeepRatio: 1, MsMedian: med, GelemPerS: float64(n) / med / 1e6}, nil
}

// poison fills b with 0xDEADBEEF so that an unwritten element shows.
func poison(ctx *vk.Context, b vk.Range) error {
	return ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageTransfer, vk.AccessMemoryWrite, vk.AccessTransferWrite)
		cb.FillBuffer(b, 0xDEADBEEF)
		cb.MemoryBarrier(vk.StageTransfer, vk.StageAllCommands, vk.AccessTransferWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
		return nil
	})
}

func firstDiff(a, b []uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// kernelStatsCSV gives each pipeline's driver statistics as CSV rows:
// kernel, its specialization constants (space-separated, the workgroup size
// first), executable, subgroup size, statistic, value.
func kernelStatsCSV(pipes []*pipeline.Pipeline) ([]byte, error) {
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
