package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// timeRuns times record on buffer set i % sets for run i and returns the
// GPU time of each timed run between stamps 0 and stamps-1 and of each
// phase between consecutive stamps, in ms. record writes the stamps.
//
// It first warms up: at least cfg.warmup runs and, for at least
// cfg.warmupFor of wall time, runs back to back. NVIDIA's Vulkan driver clocks the GPU by its recent load
// (a CUDA context holds the top performance state instead): after the
// seconds of idling in which the host makes a large input, the first
// tens of milliseconds of work run at a fraction of the clock, and
// timing them would measure the clock governor, not the kernels. Then
// each timed run is its own submission between full memory barriers,
// as the CUB anchor times each call between events.
func timeRuns(ctx *vk.Context, cfg benchConfig, sets int, stamps uint32, record func(r *pipeline.Recorder, set int, t *vk.Timer)) (ms []float64, phases [][]float64, err error) {
	timer, err := ctx.NewTimer(stamps)
	if err != nil {
		return nil, nil, err
	}
	defer timer.Release()
	run := func(cb vk.CommandBuffer, r *pipeline.Recorder, set int) {
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageComputeShader, vk.AccessMemoryWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
		timer.Reset(cb)
		record(r, set, timer)
		cb.MemoryBarrier(vk.StageComputeShader, vk.StageAllCommands, vk.AccessShaderWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
	}
	// Each warm-up submission holds batch runs, doubled while a
	// submission takes under 4 ms, so that short runs too keep the GPU
	// busy rather than waiting on the host between submissions.
	start := time.Now()
	batch := sets
	for done := 0; done < cfg.warmup || time.Since(start) < cfg.warmupFor; {
		t0 := time.Now()
		err := ctx.Submit(func(cb vk.CommandBuffer) error {
			r := pipeline.Record(cb)
			for i := range batch {
				run(cb, r, i%sets)
			}
			return r.Err()
		})
		if err != nil {
			return nil, nil, err
		}
		done += batch
		if time.Since(t0) < 4*time.Millisecond && batch < 4096 {
			batch *= 2
		}
	}
	phases = make([][]float64, stamps-1)
	for i := range cfg.reps {
		err := ctx.Submit(func(cb vk.CommandBuffer) error {
			r := pipeline.Record(cb)
			run(cb, r, i%sets)
			return r.Err()
		})
		if err != nil {
			return nil, nil, err
		}
		ns, err := timer.Nanoseconds(0, stamps-1)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, ns/1e6)
		for k := range phases {
			ns, err := timer.Nanoseconds(uint32(k), uint32(k+1))
			if err != nil {
				return nil, nil, err
			}
			phases[k] = append(phases[k], ns/1e6)
		}
	}
	return ms, phases, nil
}

// benchPool holds the device-local buffers of the measurements at one
// size. With reuse (bench -alloc size, the default: the CUB anchor too
// allocates its buffers once per size), a buffer an operation gives back
// serves the next request of its size class (at least the size asked
// for, at most twice it), so every operation at a size runs on the same
// memory; the pool frees them when the size is done. Without reuse
// (-alloc op) each operation allocates its own buffers and frees them
// when it ends.
type benchPool struct {
	ctx   *vk.Context
	reuse bool
	free  []*vk.Buffer
}

func (p *benchPool) take(size uint64) (*vk.Buffer, error) {
	size = max(size, 16)
	best := -1
	for i, b := range p.free {
		if b.Size() >= size && b.Size() <= 2*size && (best < 0 || b.Size() < p.free[best].Size()) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		p.free = slices.Delete(p.free, best, best+1)
		return b, nil
	}
	return p.ctx.NewBuffer(size, vk.DeviceLocal)
}

func (p *benchPool) give(b *vk.Buffer) {
	if p.reuse {
		p.free = append(p.free, b)
	} else {
		b.Release()
	}
}

// drain frees every buffer the pool holds.
func (p *benchPool) drain() {
	for _, b := range p.free {
		b.Release()
	}
	p.free = nil
}

// bufferSets takes the buffers of one measurement from the pool and gives
// them all back at once.
type bufferSets struct {
	pool *benchPool
	bufs []*vk.Buffer
}

func (s *bufferSets) alloc(size uint64) (vk.Range, error) {
	b, err := s.pool.take(size)
	if err != nil {
		return vk.Range{}, err
	}
	s.bufs = append(s.bufs, b)
	return b.Range(0, size), nil
}

func (s *bufferSets) release() {
	for _, b := range s.bufs {
		s.pool.give(b)
	}
	s.bufs = nil
}

// setsFor is how many buffer sets rotate for an operation touching bytes
// per run: enough to exceed the GPU's cache, at most 16.
func setsFor(bytes uint64) int { return int(min(max(rotateBytes/bytes, 1), 16)) }

// benchScan times the exclusive prefix sum of n random uint32 and checks
// every set's output and total.
func benchScan(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (benchRow, error) {
	plan, err := scan.NewPlan(ctx, n, scan.Sum{Type: vkcompact.Uint32, Options: cfg.scanOpts})
	if err != nil {
		return benchRow{}, err
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
	sets := bufferSets{pool: cfg.pool}
	defer sets.release()
	var bs []scan.Buffers
	for range setsFor(8 * n) {
		var b scan.Buffers
		for _, x := range []struct {
			r    *vk.Range
			size uint64
		}{{&b.Src, 4 * n}, {&b.Dst, 4 * n}, {&b.Total, scan.TotalSize}, {&b.Scratch, plan.ScratchSize()}} {
			if *x.r, err = sets.alloc(x.size); err != nil {
				return benchRow{}, err
			}
		}
		if err := vk.Upload(b.Src, in); err != nil {
			return benchRow{}, err
		}
		if err := poison(ctx, b.Dst); err != nil {
			return benchRow{}, err
		}
		bs = append(bs, b)
	}
	ms, phases, err := timeRuns(ctx, cfg, len(bs), 4, func(r *pipeline.Recorder, set int, t *vk.Timer) { plan.RecordTimed(r, bs[set], t) })
	if err != nil {
		return benchRow{}, err
	}
	if cfg.phases != nil {
		t := plan.Tuning()
		if t.Path == vkcompact.PathSinglePass {
			fmt.Fprintf(cfg.phases, "# scan_exclusive_u32 n=%d single pass: clear %.5f, pass %.5f ms (medians); %d tiles of %d (workgroup %d, %d loads per lane), spins %d\n",
				n, median(phases[0]), median(phases[1]), t.Tiles, t.Tile, t.WorkgroupSize, t.LoadsPerLane, t.Spins)
		} else {
			fmt.Fprintf(cfg.phases, "# scan_exclusive_u32 n=%d: reduce %.5f, scan %.5f, apply %.5f ms (medians); %d chunks of %d, %d loads per lane\n",
				n, median(phases[0]), median(phases[1]), median(phases[2]), t.Chunks, t.Chunk, t.LoadsPerLane)
		}
	}
	for _, b := range bs[:min(len(bs), cfg.warmup+cfg.reps)] {
		got := make([]uint32, n)
		if err := vk.Download(b.Dst, got); err != nil {
			return benchRow{}, err
		}
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			return benchRow{}, fmt.Errorf("scan output wrong at element %d: got %#x, want %#x", i, got[i], want[i])
		}
		var tot [1]uint32
		if err := vk.Download(b.Total, tot[:]); err != nil {
			return benchRow{}, err
		}
		if tot[0] != total {
			return benchRow{}, fmt.Errorf("scan total %#x, want %#x", tot[0], total)
		}
	}
	med := median(ms)
	return benchRow{Impl: "vkcompact", Op: "scan_exclusive_u32", N: n, KeepRatio: 1, MsMedian: med, GelemPerS: float64(n) / med / 1e6}, nil
}

// benchSort times the ascending sort of n random uint32 keys, with their
// indices as values for pairs, and checks every set's output against a Go
// stable sort.
func benchSort(pairs bool) func(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (benchRow, error) {
	return func(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (benchRow, error) {
		op := "sort_keys_u32"
		if pairs {
			op = "sort_pairs_u32"
		}
		plan, err := radix.NewPlan(ctx, n, radix.Sort{Key: vkcompact.Uint32, Values: pairs, Options: cfg.sortOpts})
		if err != nil {
			return benchRow{}, err
		}
		rng := rand.New(rand.NewPCG(44, n))
		keys := make([]uint32, n)
		vals := make([]uint32, n)
		for i := range keys {
			keys[i] = rng.Uint32()
			vals[i] = uint32(i)
		}
		wantKeys, wantVals := stableSortRef(keys, vals)
		sets := bufferSets{pool: cfg.pool}
		defer sets.release()
		perSet := 8 * n
		if pairs {
			perSet *= 2
		}
		var bs []radix.Buffers
		for range setsFor(perSet) {
			var b radix.Buffers
			list := []struct {
				r    *vk.Range
				size uint64
			}{{&b.Keys, 4 * n}, {&b.KeysOut, 4 * n}, {&b.Scratch, plan.ScratchSize()}}
			if pairs {
				list = append(list, struct {
					r    *vk.Range
					size uint64
				}{&b.Values, 4 * n}, struct {
					r    *vk.Range
					size uint64
				}{&b.ValuesOut, 4 * n})
			}
			for _, x := range list {
				if *x.r, err = sets.alloc(x.size); err != nil {
					return benchRow{}, err
				}
			}
			if err := vk.Upload(b.Keys, keys); err != nil {
				return benchRow{}, err
			}
			if err := poison(ctx, b.KeysOut); err != nil {
				return benchRow{}, err
			}
			if pairs {
				if err := vk.Upload(b.Values, vals); err != nil {
					return benchRow{}, err
				}
				if err := poison(ctx, b.ValuesOut); err != nil {
					return benchRow{}, err
				}
			}
			bs = append(bs, b)
		}
		names := plan.Phases()
		ms, phases, err := timeRuns(ctx, cfg, len(bs), uint32(len(names)+1), func(r *pipeline.Recorder, set int, t *vk.Timer) {
			plan.RecordTimed(r, bs[set], t)
		})
		if err != nil {
			return benchRow{}, err
		}
		if cfg.phases != nil {
			t := plan.Tuning()
			if t.Path == vkcompact.PathSinglePass {
				fmt.Fprintf(cfg.phases, "# %s n=%d: single pass: %d passes of %d bits, %d tiles of %d keys, workgroup %d, %d keys per lane, %d spins; histogram by %d processors of %d keys\n",
					op, n, t.Passes, t.DigitBits, t.Tiles, t.Tile, t.WorkgroupSize, t.KeysPerLane, t.Spins, t.Processors, t.Chunk)
			} else {
				counts := "a count phase per pass"
				if t.FusedCounts {
					counts = "later passes counted by the scatter before"
				}
				if t.HeldTails {
					counts += ", run tails held for the next round"
				}
				fmt.Fprintf(cfg.phases, "# %s n=%d: three phases: %d passes of at most %d bits (shared out evenly), %d processors of %d keys, workgroup %d, %d keys per lane, %s\n",
					op, n, t.Passes, t.DigitBits, t.Processors, t.Chunk, t.WorkgroupSize, t.KeysPerLane, counts)
			}
			fmt.Fprintf(cfg.phases, "# %s n=%d: %s\n", op, n, sortPhaseSummary(names, phases))
		}
		for _, b := range bs[:min(len(bs), cfg.warmup+cfg.reps)] {
			got := make([]uint32, n)
			if err := vk.Download(b.KeysOut, got); err != nil {
				return benchRow{}, err
			}
			if !slices.Equal(got, wantKeys) {
				i := firstDiff(got, wantKeys)
				return benchRow{}, fmt.Errorf("%s keys wrong at %d: got %#x, want %#x", op, i, got[i], wantKeys[i])
			}
			if pairs {
				if err := vk.Download(b.ValuesOut, got); err != nil {
					return benchRow{}, err
				}
				if !slices.Equal(got, wantVals) {
					i := firstDiff(got, wantVals)
					return benchRow{}, fmt.Errorf("%s values wrong at %d: got %d, want %d", op, i, got[i], wantVals[i])
				}
			}
		}
		med := median(ms)
		return benchRow{Impl: "vkcompact", Op: op, N: n, KeepRatio: 1, MsMedian: med, GelemPerS: float64(n) / med / 1e6}, nil
	}
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
