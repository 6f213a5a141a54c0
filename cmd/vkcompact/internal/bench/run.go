package bench

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/vkcompact/vkcompact/pipeline"
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

// take returns a buffer of at least size bytes (and at least 16): the
// smallest free one of its size class, or a new one.
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

// give takes back a buffer: kept for the next request with reuse, freed
// without.
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

// alloc takes a buffer of at least size bytes from the pool and returns
// its first size bytes.
func (s *bufferSets) alloc(size uint64) (vk.Range, error) {
	b, err := s.pool.take(size)
	if err != nil {
		return vk.Range{}, err
	}
	s.bufs = append(s.bufs, b)
	return b.Range(0, size), nil
}

// release gives every buffer back to the pool.
func (s *bufferSets) release() {
	for _, b := range s.bufs {
		s.pool.give(b)
	}
	s.bufs = nil
}

// setsFor is how many buffer sets rotate for an operation touching bytes
// per run: enough to exceed the GPU's cache, at most 16.
func setsFor(bytes uint64) int { return int(min(max(rotateBytes/bytes, 1), 16)) }

// rotateBytes: inputs smaller than this are rotated over several buffer
// sets so that repeated runs do not measure the GPU's cache (the H100's L2
// holds 50 MB).
const rotateBytes = 128 << 20

// poison fills b with 0xDEADBEEF so that an unwritten element shows.
func poison(ctx *vk.Context, b vk.Range) error {
	return ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageTransfer, vk.AccessMemoryWrite, vk.AccessTransferWrite)
		cb.FillBuffer(b, 0xDEADBEEF)
		cb.MemoryBarrier(vk.StageTransfer, vk.StageAllCommands, vk.AccessTransferWrite, vk.AccessMemoryRead|vk.AccessMemoryWrite)
		return nil
	})
}

// firstDiff returns the first index where a and b differ, or -1; b is at
// least as long as a.
func firstDiff(a, b []uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// median returns the middle value of v (the upper one of an even count),
// leaving v as it is.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// bufSize is a range for bufferSets.allocAll to fill and its size.
type bufSize struct {
	r    *vk.Range
	size uint64
}

// allocAll allocates the ranges of one buffer set.
func (s *bufferSets) allocAll(list ...bufSize) error {
	for _, x := range list {
		var err error
		if *x.r, err = s.alloc(x.size); err != nil {
			return err
		}
	}
	return nil
}

// load uploads data to src and poisons dst: the input and the output of
// one buffer set, before it runs.
func load(ctx *vk.Context, src vk.Range, data []uint32, dst vk.Range) error {
	if err := vk.Upload(src, data); err != nil {
		return err
	}
	return poison(ctx, dst)
}

// ranSets is how many of sets buffer sets a measurement ran on: all of
// them, unless it ran fewer times than there are sets.
func (cfg benchConfig) ranSets(sets int) int { return min(sets, cfg.warmup+cfg.reps) }

// checkWords downloads len(want) words from the start of r and compares
// them with want; what names them in the error.
func checkWords(r vk.Range, want []uint32, what string) error {
	got := make([]uint32, len(want))
	if err := vk.Download(r.Sub(0, 4*uint64(len(want))), got); err != nil {
		return err
	}
	if i := firstDiff(got, want); i >= 0 {
		return fmt.Errorf("%s wrong at element %d: got %#x, want %#x", what, i, got[i], want[i])
	}
	return nil
}

// measured is the row of a measurement of op on n elements at keep ratio
// keep, from its runs' times in milliseconds: their median, and the
// throughput at the median.
func measured(op string, n uint64, keep float64, ms []float64) Row {
	med := median(ms)
	return Row{Impl: "vkcompact", Op: op, N: n, KeepRatio: keep, MsMedian: med, GelemPerS: float64(n) / med / 1e6}
}

// setBench is the measurement of one operation on buffer sets of type B
// that rotate from run to run (so that small inputs do not run from the
// GPU's cache).
type setBench[B any] struct {
	op     string  // the row's operation
	n      uint64  // elements
	keep   float64 // the row's keep ratio
	sets   int     // buffer sets (setsFor)
	stamps uint32  // timestamps a run writes
	// prepare allocates a set from s and loads its input.
	prepare func(s *bufferSets, b *B) error
	// record records a run on a set, with stamps between its phases: a
	// plan's RecordTimed.
	record func(r *pipeline.Recorder, b B, t *vk.Timer)
	// check checks the output of a set that ran.
	check func(b *B) error
	// printPhases prints the phases' times and the tuning (-phases).
	printPhases func(w io.Writer, phases [][]float64)
}

// run prepares the sets, times the runs (timeRuns), checks every set that
// ran (with fewer runs than sets, some never did) and returns the row.
func (m setBench[B]) run(ctx *vk.Context, cfg benchConfig) (Row, error) {
	sets := bufferSets{pool: cfg.pool}
	defer sets.release()
	bs := make([]B, m.sets)
	for i := range bs {
		if err := m.prepare(&sets, &bs[i]); err != nil {
			return Row{}, err
		}
	}
	ms, phases, err := timeRuns(ctx, cfg, len(bs), m.stamps, func(r *pipeline.Recorder, set int, t *vk.Timer) { m.record(r, bs[set], t) })
	if err != nil {
		return Row{}, err
	}
	if cfg.phases != nil {
		m.printPhases(cfg.phases, phases)
	}
	for i := range cfg.ranSets(len(bs)) {
		if err := m.check(&bs[i]); err != nil {
			return Row{}, err
		}
	}
	return measured(m.op, m.n, m.keep, ms), nil
}

// inOut allocates an input and an output range of the size of in, and
// the extra ranges, and loads in (load).
func (s *bufferSets) inOut(ctx *vk.Context, in []uint32, src, dst *vk.Range, extra ...bufSize) error {
	size := 4 * uint64(len(in))
	if err := s.allocAll(append([]bufSize{{src, size}, {dst, size}}, extra...)...); err != nil {
		return err
	}
	return load(ctx, *src, in, *dst)
}
