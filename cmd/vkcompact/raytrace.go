package main

import (
	"fmt"
	"image"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/demo/raytrace"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/vk"
)

// Defaults of `vkcompact raytrace`: 480 x 270 pixels, 4 samples and 8
// bounces (518,400 paths), a size that runs in seconds on a CPU driver
// such as lavapipe, the Go reference check, warm-up and three renders of
// each mode included (BENCHMARKS-history.md has the path tracer's GPU times).
const (
	rtDefaultWidth    = 480
	rtDefaultHeight   = 270
	rtDefaultSPP      = 4
	rtDefaultBounces  = 8
	rtDefaultReps     = 3
	rtDefaultWarmupMs = 300
	rtMaxReps         = 1000
	rtExposure        = 1.0
)

// The Go reference check renders this size on the GPU and in Go, with the
// run's bounces: 9,216 paths, a few milliseconds of Go.
const (
	rtRefWidth  = 64
	rtRefHeight = 36
	rtRefSPP    = 4
)

// raytraceOutput is the JSON of `vkcompact raytrace -json`. The times are
// medians over the timed renders; null where the device has no
// timestamps.
type raytraceOutput struct {
	Op       string `json:"op"` // "raytrace"
	Verified bool   `json:"verified"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	SPP      int    `json:"spp"`
	Bounces  int    `json:"bounces"`
	// RaysPerBounce[b] counts the rays entering bounce b: element 0 is
	// every path (W x H x S), then the live rays after each compaction.
	RaysPerBounce []uint32 `json:"rays_per_bounce"`
	Rays          uint64   `json:"rays"` // their sum: the rays traced
	// GPUms is the compacted frame (generate, bounces, compactions,
	// resolve); GPUmsUncompacted the same frame without compaction.
	GPUms            *float64    `json:"gpu_ms"`
	GPUmsUncompacted *float64    `json:"gpu_ms_uncompacted"`
	Speedup          *float64    `json:"speedup"`                  // GPUmsUncompacted / GPUms
	MraysPerS        *float64    `json:"mrays_per_s"`              // Rays / GPUms
	MraysPerSUncomp  *float64    `json:"mrays_per_s_uncompacted"`  // Rays / GPUmsUncompacted
	CompactionMs     *float64    `json:"compaction_ms"`            // the compactions of a compacted frame
	CompactionShare  *float64    `json:"compaction_share"`         // CompactionMs / GPUms
	ShadeMs          []float64   `json:"shade_ms"`                 // each bounce's shade dispatch, compacted
	ShadeMsUncomp    []float64   `json:"shade_ms_uncompacted"`     // the same, uncompacted
	CompactMs        []float64   `json:"compaction_ms_per_bounce"` // each compaction, after bounces 0 to B-2
	Reps             int         `json:"reps"`
	Warmup           int         `json:"warmup_frames"`
	CompactionPath   string      `json:"compaction_path"` // the compaction's algorithm: three-phase or single-pass
	Reference        rtReference `json:"reference"`
	Device           string      `json:"device"`
	// Mismatch says what failed the check when Verified is false.
	Mismatch string `json:"mismatch,omitempty"`
	PNG      string `json:"png,omitempty"`
}

// rtReference is the Go reference check: its size and how closely the GPU
// agreed (raytrace.CompareReference has the rule).
type rtReference struct {
	Width   int `json:"width"`
	Height  int `json:"height"`
	SPP     int `json:"spp"`
	Bounces int `json:"bounces"`
	raytrace.Agreement
}

// raytraceJob is a checked invocation of raytrace.
type raytraceJob struct {
	drawingJob
	params   raytrace.Params
	reps     int
	warmupMs int
}

// raytraceTamper, when set (by tests), changes a render after it is read
// back (rep -1 is the reference check's) and before it is checked: the
// check must catch it.
var raytraceTamper func(m raytrace.Mode, rep int, r *raytrace.Render)

// run runs `vkcompact raytrace` (runDrawing): the Go reference check at
// a small size, then the renders with and without compaction, their
// checks and the report.
func (j *raytraceJob) run(stderr io.Writer) (checkedRun, error) {
	o, img, err := j.runGPU(stderr)
	if err != nil {
		return checkedRun{}, err
	}
	o.PNG = j.png
	r := checkedRun{report: o, picture: func() image.Image { return raytrace.Image(img, rtExposure) }}
	if !o.Verified {
		r.failed = fmt.Errorf("raytrace: the check failed: %s", o.Mismatch)
	}
	return r, nil
}

// parseRaytrace parses and checks the flags.
func parseRaytrace(args []string, stderr io.Writer) (*raytraceJob, error) {
	fs := newFlags("raytrace", stderr)
	width := fs.Int64("width", rtDefaultWidth, "image width `W` in pixels")
	height := fs.Int64("height", rtDefaultHeight, "image height `H` in pixels")
	spp := fs.Int64("spp", rtDefaultSPP, "`S` samples (paths) per pixel")
	bounces := fs.Int64("bounces", rtDefaultBounces, "at most `B` bounces per path")
	reps := fs.Int64("reps", rtDefaultReps, "time `R` renders of each mode and report the medians")
	warmup := fs.Int64("warmup-ms", rtDefaultWarmupMs, "before timing, render for at least `MS` milliseconds (0: none)")
	drawing := drawingFlags(fs, "write the compacted render to `FILE` (PNG, tone-mapped, sRGB)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name   string
		v, max int64
	}{
		{"width", *width, raytrace.MaxSide},
		{"height", *height, raytrace.MaxSide},
		{"spp", *spp, raytrace.MaxSPP},
		{"bounces", *bounces, raytrace.MaxBounces},
		{"reps", *reps, rtMaxReps},
	} {
		if f.v < 1 || f.v > f.max {
			return nil, usage.Errorf("-%s %d: want 1 to %d", f.name, f.v, f.max)
		}
	}
	if *warmup < 0 || *warmup > 600000 {
		return nil, usage.Errorf("-warmup-ms %d: want 0 to 600000", *warmup)
	}
	p := raytrace.Params{Width: int(*width), Height: int(*height), SPP: int(*spp), Bounces: int(*bounces)}
	if err := p.Check(); err != nil {
		return nil, usage.Error{Err: err}
	}
	return &raytraceJob{drawingJob: drawing(), params: p, reps: int(*reps), warmupMs: int(*warmup)}, nil
}

// runGPU opens the device, runs the reference check and the timed
// renders, and returns the report and the compacted render.
func (j *raytraceJob) runGPU(stderr io.Writer) (o *raytraceOutput, img *raytrace.Render, err error) {
	prog := startProgress(stderr, j.asJSON, "raytrace")
	defer prog.end()
	_, err = onDevice(vk.Options{Device: j.device, Timeout: j.timeout}, prog.Writer(stderr), func(ctx *vk.Context, _ *allocator) error {
		o, img, err = j.render(ctx, prog)
		return err
	})
	return o, img, err
}

// render runs the reference check and the timed renders on ctx, counting
// the renders done on prog.
func (j *raytraceJob) render(ctx *vk.Context, prog *progress) (*raytraceOutput, *raytrace.Render, error) {
	// The size is checked against the device first: a queue too large
	// for one binding is refused before anything runs.
	r, err := raytrace.NewRenderer(ctx, j.params)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	p := j.params
	o := &raytraceOutput{
		Op: "raytrace", Width: p.Width, Height: p.Height, SPP: p.SPP, Bounces: p.Bounces, Reps: j.reps,
		CompactionPath: r.Tuning().Path.String(), Device: ctx.Info().Name,
	}
	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	if o.Reference, err = referenceCheck(ctx, p.Bounces, fail); err != nil {
		return nil, nil, err
	}
	if o.Warmup, err = warmUp(r, j.warmupMs); err != nil {
		return nil, nil, err
	}
	img, err := j.timedRenders(r, o, fail, prog)
	if err != nil {
		return nil, nil, err
	}
	o.Verified = len(failures) == 0
	o.Mismatch = strings.Join(failures, "; ")
	return o, img, nil
}

// referenceCheck renders the reference size on the GPU, compacted, and
// compares it with the Go tracer's render.
func referenceCheck(ctx *vk.Context, bounces int, fail func(string, ...any)) (rtReference, error) {
	p := raytrace.Params{Width: rtRefWidth, Height: rtRefHeight, SPP: rtRefSPP, Bounces: bounces}
	ref := rtReference{Width: p.Width, Height: p.Height, SPP: p.SPP, Bounces: p.Bounces}
	r, err := raytrace.NewRenderer(ctx, p)
	if err != nil {
		return ref, err
	}
	defer r.Release()
	if _, err := r.Run(raytrace.Compacted); err != nil {
		return ref, err
	}
	got, err := r.Read(raytrace.Compacted, true)
	if err != nil {
		return ref, err
	}
	if raytraceTamper != nil {
		raytraceTamper(raytrace.Compacted, -1, got)
	}
	if err := raytrace.CheckCounts(got); err != nil {
		fail("reference size: %v", err)
	}
	ref.Agreement, err = raytrace.CompareReference(got, raytrace.Trace(p))
	if err != nil {
		fail("%v", err)
	}
	return ref, nil
}

// warmUp renders compacted frames back to back for at least ms
// milliseconds (none for 0), so that the timed renders find the device
// busy (a GPU's clocks follow its recent load) and every kernel compiled.
func warmUp(r *raytrace.Renderer, ms int) (frames int, err error) {
	start := time.Now()
	for ms > 0 && (frames == 0 || time.Since(start) < time.Duration(ms)*time.Millisecond) {
		if _, err := r.Run(raytrace.Compacted); err != nil {
			return frames, err
		}
		frames++
	}
	return frames, nil
}

// timedRenders renders each mode reps times, alternating, and checks
// every render: its counts; the first uncompacted render against the
// first compacted one bit for bit, samples included; every later render
// against the first of its mode. It fills o's counts and median times,
// and returns the first compacted render.
func (j *raytraceJob) timedRenders(r *raytrace.Renderer, o *raytraceOutput, fail func(string, ...any), prog *progress) (*raytrace.Render, error) {
	modes := []raytrace.Mode{raytrace.Compacted, raytrace.Uncompacted}
	first := make([]*raytrace.Render, len(modes))
	timings := make([][]*raytrace.Timing, len(modes))
	for rep := range j.reps {
		for k, m := range modes {
			prog.set(rep*len(modes)+k, j.reps*len(modes), "timed renders")
			t, err := r.Run(m)
			if err != nil {
				return nil, err
			}
			got, err := r.Read(m, rep == 0)
			if err != nil {
				return nil, err
			}
			if raytraceTamper != nil {
				raytraceTamper(m, rep, got)
			}
			if err := raytrace.CheckCounts(got); err != nil {
				fail("%s render %d: %v", m, rep+1, err)
			}
			if rep == 0 {
				first[k] = got
			}
			if want := first[min(k, rep)]; want != got {
				if err := raytrace.Identical(got, want); err != nil {
					fail("%s render %d against the first compacted: %v", m, rep+1, err)
				}
			}
			if t != nil {
				timings[k] = append(timings[k], t)
			}
		}
	}
	o.RaysPerBounce = first[0].Rays
	for _, n := range o.RaysPerBounce {
		o.Rays += uint64(n)
	}
	if len(timings[0]) == j.reps && len(timings[1]) == j.reps {
		o.setTimes(timings[0], timings[1])
	}
	return first[0], nil
}

// setTimes sets o's times from the compacted and uncompacted timings:
// the median of each figure.
func (o *raytraceOutput) setTimes(comp, uncomp []*raytrace.Timing) {
	pick := func(ts []*raytrace.Timing, f func(*raytrace.Timing) float64) *float64 {
		v := make([]float64, len(ts))
		for i, t := range ts {
			v[i] = f(t)
		}
		m := median(v)
		return &m
	}
	perBounce := func(ts []*raytrace.Timing, f func(*raytrace.Timing) []float64) []float64 {
		var out []float64
		for b := range f(ts[0]) {
			out = append(out, *pick(ts, func(t *raytrace.Timing) float64 { return f(t)[b] }))
		}
		return out
	}
	o.GPUms = pick(comp, func(t *raytrace.Timing) float64 { return t.Ms })
	o.GPUmsUncompacted = pick(uncomp, func(t *raytrace.Timing) float64 { return t.Ms })
	o.CompactionMs = pick(comp, (*raytrace.Timing).CompactionMs)
	o.ShadeMs = perBounce(comp, func(t *raytrace.Timing) []float64 { return t.ShadeMs })
	o.ShadeMsUncomp = perBounce(uncomp, func(t *raytrace.Timing) []float64 { return t.ShadeMs })
	o.CompactMs = perBounce(comp, func(t *raytrace.Timing) []float64 { return t.CompactMs })
	ratio := func(a, b float64) *float64 { v := a / b; return &v }
	o.Speedup = ratio(*o.GPUmsUncompacted, *o.GPUms)
	o.MraysPerS = ratio(float64(o.Rays)/1e3, *o.GPUms)
	o.MraysPerSUncomp = ratio(float64(o.Rays)/1e3, *o.GPUmsUncompacted)
	o.CompactionShare = ratio(*o.CompactionMs, *o.GPUms)
}

// printText writes the one-line report.
func (o *raytraceOutput) printText(w io.Writer) error {
	times := "GPU time n/a (no timestamps)"
	if o.GPUms != nil {
		times = fmt.Sprintf("%.3f ms GPU time compacted (%.1f%% of it compacting), %.3f ms uncompacted: %.2fx, %.1f Mrays/s",
			*o.GPUms, 100**o.CompactionShare, *o.GPUmsUncompacted, *o.Speedup, *o.MraysPerS)
	}
	check := fmt.Sprintf("verified: compaction changes no bit, and %d of %d samples match the Go tracer bit for bit (%d within tolerance)",
		o.Reference.ExactSamples, o.Reference.Samples, o.Reference.AgreeingSamples)
	if !o.Verified {
		check = "NOT verified: " + o.Mismatch
	}
	drew := ""
	if o.PNG != "" {
		drew = "; wrote " + o.PNG
	}
	_, err := fmt.Fprintf(w, "raytrace: %dx%d, %d spp, %d bounces, %d rays %v: %s; %s; on %s%s\n",
		o.Width, o.Height, o.SPP, o.Bounces, o.Rays, o.RaysPerBounce, times, check, o.Device, drew)
	return err
}

// median returns the middle value of v (the upper one of an even count),
// leaving v as it is.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
