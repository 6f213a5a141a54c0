package raytrace

import (
	"fmt"
	"math"
	"slices"
)

// Identical checks that two renders of the same Params are the same bit
// for bit: pixels, samples (where both were read), and the rays entering
// each bounce, as the result blocks and the counters have them. The
// compacted and uncompacted renders must be, and so must two runs of
// one. It returns nil, or an error that counts the differences and
// describes the first.
func Identical(a, b *Render) error {
	var d diffs
	if a.Params != b.Params {
		return fmt.Errorf("renders of %+v and %+v", a.Params, b.Params)
	}
	d.floats("pixel", a.Pixels, b.Pixels)
	if a.Samples != nil && b.Samples != nil {
		d.floats("sample", a.Samples, b.Samples)
	}
	d.words("rays entering bounce", a.Rays, b.Rays)
	d.words("counted rays entering bounce", a.Counted, b.Counted)
	return d.err("")
}

// CheckCounts checks a GPU render's counts: Rays[0] is every path, no
// bounce gains rays, and the shade's counters agree with Rays (the
// compaction's kept counts, in a compacted render).
func CheckCounts(r *Render) error {
	var d diffs
	if len(r.Rays) != r.Params.Bounces || len(r.Counted) != r.Params.Bounces {
		return fmt.Errorf("%d and %d ray counts for %d bounces", len(r.Rays), len(r.Counted), r.Params.Bounces)
	}
	if uint64(r.Rays[0]) != r.Params.Paths() {
		d.note("%d rays enter bounce 0, want %d", r.Rays[0], r.Params.Paths())
	}
	for b := 1; b < len(r.Rays); b++ {
		if r.Rays[b] > r.Rays[b-1] {
			d.note("%d rays enter bounce %d after %d", r.Rays[b], b, r.Rays[b-1])
		}
	}
	d.words("the shade's count of rays entering bounce", r.Counted, r.Rays)
	return d.err("")
}

// diffs collects differences: their number and the first's description.
type diffs struct {
	n     int
	first string
}

func (d *diffs) note(format string, args ...any) {
	if d.n == 0 {
		d.first = fmt.Sprintf(format, args...)
	}
	d.n++
}

// floats compares RGB triples bit for bit, one difference per triple.
func (d *diffs) floats(what string, a, b []float32) {
	if len(a) != len(b) {
		d.note("%d %s values, want %d", len(a), what, len(b))
		return
	}
	for i := 0; i+2 < len(a); i += 3 {
		for c := range 3 {
			if math.Float32bits(a[i+c]) != math.Float32bits(b[i+c]) {
				d.note("%s %d is %v, want %v", what, i/3, a[i:i+3], b[i:i+3])
				break
			}
		}
	}
}

func (d *diffs) words(what string, a, b []uint32) {
	if !slices.Equal(a, b) {
		d.note("%s: %v, want %v", what, a, b)
	}
}

func (d *diffs) err(prefix string) error {
	if d.n == 0 {
		return nil
	}
	return fmt.Errorf("%s%d difference(s); the first: %s", prefix, d.n, d.first)
}

// The Go reference check, CompareReference.
//
// The two tracers do the same operations in the same order, and every
// operation is exact or correctly rounded in both: additions,
// subtractions and multiplications (Vulkan requires them correctly
// rounded; precise forbids fusing them, and float32(...) does in Go),
// comparisons, selections, floor, bit casts and integer hashes; square
// roots and reciprocals are Newton steps of those (arith.go). So the GPU's
// samples should equal Go's bit for bit, and on lavapipe they do (the
// tests require it; Agreement counts the exact ones). The tolerance covers
// what Vulkan still leaves to a driver: a denormal may be flushed to zero,
// and a driver that ignored NoContraction somewhere would fuse a product
// into a sum (a change of at most an ULP at each such step).
//
// Such a change moves a sample by a relative 10^-6 or so through its
// bounces, far below RelTol (2^-10, 0.1%). It can also flip a decision:
// hit or miss at a silhouette, which side of a checker edge, the
// roulette's u >= q, a disk point's rejection. Then the path takes
// another way and its radiance and the later counts differ outright. The
// chance of a flip is about the perturbation over the distance to the
// edge, some 10^-6 per decision, except along chains of curved mirrors,
// which magnify it about eightfold a reflection; far below 1% of paths
// either way. A real mistake (a wrong material, bounce, random stream,
// lost or duplicated ray) changes many more than 1% of the samples. So:
//
//   - a sample or pixel agrees when each component is within
//     RelTol*|want| + AbsTol of Go's (AbsTol, 2^-20, for values near 0);
//   - at least MinAgreeing (99%) of the samples and of the pixels agree;
//   - each bounce's ray count is within 1% of Go's (at least 1 ray): a
//     count changes only by the paths that took another way.
const (
	RelTol      = 1.0 / 1024
	AbsTol      = 1.0 / (1 << 20)
	MinAgreeing = 0.99
)

// Agreement is how closely a GPU render matched the Go reference.
type Agreement struct {
	Samples         int `json:"samples"`
	ExactSamples    int `json:"exact_samples"`    // bit for bit
	AgreeingSamples int `json:"agreeing_samples"` // within the tolerance
	Pixels          int `json:"pixels"`
	ExactPixels     int `json:"exact_pixels"`
	AgreeingPixels  int `json:"agreeing_pixels"`
	// MaxCountDiff is the largest difference of a bounce's ray count.
	MaxCountDiff uint32 `json:"max_count_diff"`
}

// tally counts the exact and agreeing RGB triples of got against want.
func tally(got, want []float32) (total, exact, agreeing int) {
	for i := 0; i+2 < len(want) && i+2 < len(got); i += 3 {
		same, near := true, true
		for c := range 3 {
			g, w := got[i+c], want[i+c]
			same = same && math.Float32bits(g) == math.Float32bits(w)
			near = near && math.Abs(float64(g)-float64(w)) <= RelTol*math.Abs(float64(w))+AbsTol
		}
		total++
		if same {
			exact++
		}
		if near {
			agreeing++
		}
	}
	return total, exact, agreeing
}

// CompareReference checks a GPU render (with its samples read) against
// Trace's render of the same Params, by the rule above. It returns the
// agreement, and an error when the render falls short of the rule.
func CompareReference(gpu, ref *Render) (Agreement, error) {
	var a Agreement
	if gpu.Params != ref.Params {
		return a, fmt.Errorf("a render of %+v against a reference of %+v", gpu.Params, ref.Params)
	}
	if len(gpu.Samples) != len(ref.Samples) || len(gpu.Pixels) != len(ref.Pixels) || len(gpu.Rays) != len(ref.Rays) {
		return a, fmt.Errorf("%d samples, %d pixels and %d ray counts against the reference's %d, %d and %d",
			len(gpu.Samples)/3, len(gpu.Pixels)/3, len(gpu.Rays), len(ref.Samples)/3, len(ref.Pixels)/3, len(ref.Rays))
	}
	a.Samples, a.ExactSamples, a.AgreeingSamples = tally(gpu.Samples, ref.Samples)
	a.Pixels, a.ExactPixels, a.AgreeingPixels = tally(gpu.Pixels, ref.Pixels)
	var d diffs
	for b := range ref.Rays {
		g, w := gpu.Rays[b], ref.Rays[b]
		diff := max(g, w) - min(g, w)
		a.MaxCountDiff = max(a.MaxCountDiff, diff)
		if diff > max(1, w/100) {
			d.note("%d rays enter bounce %d, the Go tracer has %d", g, b, w)
		}
	}
	if float64(a.AgreeingSamples) < MinAgreeing*float64(a.Samples) {
		d.note("%d of %d samples agree with the Go tracer", a.AgreeingSamples, a.Samples)
	}
	if float64(a.AgreeingPixels) < MinAgreeing*float64(a.Pixels) {
		d.note("%d of %d pixels agree with the Go tracer", a.AgreeingPixels, a.Pixels)
	}
	return a, d.err("the GPU differs from the Go tracer beyond the tolerance: ")
}
