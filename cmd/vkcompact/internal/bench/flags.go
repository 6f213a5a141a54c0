package bench

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/transfer"
)

// Flags are bench's measurement flags as given (DefineFlags).
type Flags struct {
	ops, sizes, keep                     string
	selProcs, selLoads, selWG            uint
	selWrite, selPath, order, rleLengths string
	spins                                int
	phases                               bool
	scanProcs, scanLoads, scanWG         uint
	scanPath                             string
	sortProcs, sortWG, sortBits, sortKPL uint
	sortPath, sortTails, sortCounts      string
	reps, warmup, warmupMs               int
	alloc                                string
	copyWG, copyVecs                     uint
}

// DefineFlags defines bench's measurement flags in fs (-ops, -n, -keep,
// the operations' options, -reps, -warmup, -warmup-ms, -phases, -alloc)
// and returns where they go.
func DefineFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	f.define(fs)
	return f
}

// Config checks the flags once fs is parsed and returns the measurements
// they ask for. Its errors are usage errors naming the flag.
func (f *Flags) Config() (*Config, error) {
	c := &Config{phases: f.phases, reuse: f.alloc == "size"}
	var err error
	if c.logs, c.ops, c.ratios, err = f.lists(); err != nil {
		return nil, err
	}
	if c.cfg, err = f.config(); err != nil {
		return nil, err
	}
	if err := f.checkRanges(); err != nil {
		return nil, err
	}
	return c, nil
}

// define defines the measurement flags in fs.
func (f *Flags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.ops, "ops", "copy,select_if,partition_if", "comma-separated operations: "+strings.Join(slices.Sorted(maps.Keys(benchOps)), ","))
	fs.StringVar(&f.sizes, "n", "20,24,26,28", "comma-separated sizes as powers of two (uint32 elements)")
	fs.StringVar(&f.keep, "keep", "0.1,0.5,0.9", "comma-separated keep ratios for select_if, partition_if, unique_u32, rle_u32 and the by-key operations (reduce_by_key_u32, scan_by_key_u32, unique_by_key_u32)")
	fs.UintVar(&f.selProcs, "select-procs", 0, "compaction processors (Billeter's P; 0: per device)")
	fs.UintVar(&f.selLoads, "select-loads", 0, "compaction loads per lane per step (0: default)")
	fs.UintVar(&f.selWG, "select-wg", 0, "compaction workgroup size (0: default)")
	fs.StringVar(&f.selWrite, "select-write", "auto", "compaction move writes: auto, scattered or staged")
	fs.StringVar(&f.selPath, "select-path", "auto", "compaction and split algorithm: auto, three-phase or single-pass")
	fs.IntVar(&f.spins, "select-spins", 0, "single pass (compaction, split, prefix sum, scan by key and sort): re-reads of a late predecessor before counting it (0: per device, -1: none)")
	fs.StringVar(&f.rleLengths, "rle-lengths", "auto", "rle_u32's run lengths: auto, selection (found in the selection's own pass) or finish (a second dispatch over the run starts)")
	fs.StringVar(&f.order, "partition-order", "reversed", "partition_if's rejected elements: reversed (CUB's DevicePartition order) or stable")
	fs.BoolVar(&f.phases, "phases", false, "print each compaction and scan phase's median time, and the sort's tuning, to stderr")
	fs.UintVar(&f.scanProcs, "scan-procs", 0, "prefix-sum processors (0: per device)")
	fs.UintVar(&f.scanLoads, "scan-loads", 0, "prefix-sum loads per lane per step (0: default)")
	fs.UintVar(&f.scanWG, "scan-wg", 0, "prefix-sum workgroup size (0: default)")
	fs.StringVar(&f.scanPath, "scan-path", "auto", "prefix-sum algorithm: auto, three-phase or single-pass")
	fs.UintVar(&f.sortProcs, "sort-procs", 0, "radix sort processors (workgroups; 0: per device)")
	fs.UintVar(&f.sortWG, "sort-wg", 0, "radix sort workgroup size (0: default)")
	fs.UintVar(&f.sortBits, "sort-bits", 0, "radix sort digit bits, 1 to 8 (0: per device and key; radix.Options.DigitBits)")
	fs.StringVar(&f.sortPath, "sort-path", "auto", "radix sort algorithm: auto, three-phase (count, scan, scatter per digit) or single-pass (one histogram pass, then one pass per digit)")
	fs.UintVar(&f.sortKPL, "sort-kpl", 0, fmt.Sprintf("radix sort keys per lane per round, up to %d (0: default)", radix.MaxKeysPerLane))
	fs.StringVar(&f.sortTails, "sort-tails", "auto", "radix sort scatter: auto, write (each round's digit runs written whole) or hold (a run's last partial 32-byte block waits for the next round)")
	fs.StringVar(&f.sortCounts, "sort-counts", "auto", "radix sort digit counts: auto, separate (a count phase per pass) or fused (each scatter counts the next pass's digits)")
	fs.IntVar(&f.reps, "reps", 30, "timed runs per measurement (median reported)")
	fs.IntVar(&f.warmup, "warmup", 3, "untimed runs first, at least")
	fs.IntVar(&f.warmupMs, "warmup-ms", 500, "untimed runs back to back first for at least this many milliseconds, so the GPU's clock governor has raised the clocks")
	fs.StringVar(&f.alloc, "alloc", "size", "device buffers: size (allocated once per size and shared by its operations, as the CUB anchor does) or op (each operation allocates and frees its own)")
	fs.UintVar(&f.copyWG, "copy-wg", 0, "copy kernel workgroup size, up to the device's limit (0: default)")
	fs.UintVar(&f.copyVecs, "copy-vecs", 0, fmt.Sprintf("copy kernel uvec4 per invocation, up to %d (0: default)", transfer.MaxCopyLoadsPerLane))
}

// lists parses the comma-separated flags: -n, -ops and -keep.
func (f *Flags) lists() (logs []int, ops []string, ratios []float64, err error) {
	for _, s := range strings.Split(f.sizes, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 0 || v > 31 {
			return nil, nil, nil, usage.Errorf("-n: %q is not an exponent from 0 to 31 (sizes are powers of two)", s)
		}
		logs = append(logs, v)
	}
	for _, o := range strings.Split(f.ops, ",") {
		o = strings.TrimSpace(o)
		if _, ok := benchOps[o]; !ok {
			return nil, nil, nil, usage.Errorf("-ops: unknown operation %q (available: %s)", o, strings.Join(slices.Sorted(maps.Keys(benchOps)), ", "))
		}
		ops = append(ops, o)
	}
	for _, s := range strings.Split(f.keep, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v >= 0 && v <= 1) { // NaN too
			return nil, nil, nil, usage.Errorf("-keep: %q is not a ratio between 0 and 1", s)
		}
		ratios = append(ratios, v)
	}
	return logs, ops, ratios, nil
}

// pathFlag parses an algorithm flag: auto, three-phase or single-pass.
func pathFlag(flagName, s string) (vkcompact.Path, error) {
	p, ok := map[string]vkcompact.Path{"auto": vkcompact.PathAuto, "three-phase": vkcompact.PathThreePhase, "single-pass": vkcompact.PathSinglePass}[s]
	if !ok {
		return 0, usage.Errorf("%s: %q is not auto, three-phase or single-pass", flagName, s)
	}
	return p, nil
}

// config parses the flags that choose among names (-select-write, the
// paths, -sort-counts, -sort-tails, -alloc, -partition-order) and returns
// the measurements' configuration.
func (f *Flags) config() (benchConfig, error) {
	var cfg benchConfig
	write, ok := map[string]compact.Write{"auto": compact.WriteAuto, "scattered": compact.WriteScattered, "staged": compact.WriteStaged}[f.selWrite]
	if !ok {
		return cfg, usage.Errorf("-select-write: %q is not auto, scattered or staged", f.selWrite)
	}
	selPath, err := pathFlag("-select-path", f.selPath)
	if err != nil {
		return cfg, err
	}
	scanPath, err := pathFlag("-scan-path", f.scanPath)
	if err != nil {
		return cfg, err
	}
	sortPath, err := pathFlag("-sort-path", f.sortPath)
	if err != nil {
		return cfg, err
	}
	counts, ok := map[string]radix.Counts{"auto": radix.CountsAuto, "separate": radix.CountsSeparate, "fused": radix.CountsFused}[f.sortCounts]
	if !ok {
		return cfg, usage.Errorf("-sort-counts: %q is not auto, separate or fused", f.sortCounts)
	}
	tails, ok := map[string]radix.Tails{"auto": radix.TailsAuto, "write": radix.TailsWrite, "hold": radix.TailsHold}[f.sortTails]
	if !ok {
		return cfg, usage.Errorf("-sort-tails: %q is not auto, write or hold", f.sortTails)
	}
	lengths, ok := map[string]runs.Lengths{"auto": runs.LengthsAuto, "selection": runs.LengthsInSelection, "finish": runs.LengthsFinish}[f.rleLengths]
	if !ok {
		return cfg, usage.Errorf("-rle-lengths: %q is not auto, selection or finish", f.rleLengths)
	}
	if f.alloc != "size" && f.alloc != "op" {
		return cfg, usage.Errorf("-alloc: %q is not size or op", f.alloc)
	}
	if f.order != "reversed" && f.order != "stable" {
		return cfg, usage.Errorf("-partition-order: %q is not reversed or stable", f.order)
	}
	spins := int32(f.spins) // checked by checkRanges
	return benchConfig{reps: f.reps, warmup: f.warmup, warmupFor: time.Duration(f.warmupMs) * time.Millisecond,
		copyOpts: transfer.CopyOptions{WorkgroupSize: uint32(f.copyWG), LoadsPerLane: uint32(f.copyVecs)},
		selectOpts: compact.Options{Processors: uint32(f.selProcs), LoadsPerLane: uint32(f.selLoads), WorkgroupSize: uint32(f.selWG),
			Write: write, Path: selPath, Spins: spins},
		reversed: f.order == "reversed", rleLengths: lengths,
		scanOpts: scan.Options{Processors: uint32(f.scanProcs), LoadsPerLane: uint32(f.scanLoads), WorkgroupSize: uint32(f.scanWG),
			Path: scanPath, Spins: spins},
		sortOpts: radix.Options{Path: sortPath, Spins: spins, Processors: uint32(f.sortProcs), WorkgroupSize: uint32(f.sortWG),
			DigitBits: uint32(f.sortBits), KeysPerLane: uint32(f.sortKPL), Counts: counts, Tails: tails},
	}, nil
}

// checkRanges checks the numeric flags' ranges.
func (f *Flags) checkRanges() error {
	switch {
	case f.spins < -1 || f.spins > 1<<20:
		return usage.Errorf("-select-spins %d: -1 to %d", f.spins, 1<<20)
	case f.selProcs > 1<<24 || f.selLoads > 16 || f.selWG > 1<<16:
		return usage.Errorf("-select-procs, -select-loads or -select-wg out of range")
	case f.scanProcs > 1<<24 || f.scanLoads > 16 || f.scanWG > 1<<16 || f.sortProcs > 1<<24 || f.sortWG > 1<<16 || f.sortBits > 8 || f.sortKPL > radix.MaxKeysPerLane:
		return usage.Errorf("-scan-procs, -scan-loads, -scan-wg, -sort-procs, -sort-wg, -sort-bits or -sort-kpl out of range")
	case f.reps < 1 || f.warmup < 0:
		return usage.Errorf("-reps must be at least 1 and -warmup at least 0")
	case f.warmupMs < 0 || f.warmupMs > 600000:
		return usage.Errorf("-warmup-ms %d: 0 to 600000", f.warmupMs)
	case f.copyWG > 1<<16:
		return usage.Errorf("-copy-wg %d: beyond any device's workgroup size", f.copyWG)
	case f.copyVecs > transfer.MaxCopyLoadsPerLane:
		return usage.Errorf("-copy-vecs %d: at most %d", f.copyVecs, transfer.MaxCopyLoadsPerLane)
	}
	return nil
}
