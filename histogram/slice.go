package histogram

import (
	"fmt"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"math"
	"reflect"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/vk"
)

// Sample is the Go types of samples.
type Sample interface{ uint32 | int32 | float32 }

// HistogramSlice counts samples into h's even bins on the GPU and returns
// the counts. T decides the sample type: h.Elem must be the zero Elem or
// T's own plain type, and any other is refused (vk.ErrInvalid, naming
// both) before any GPU work, as is h.Edges (HistogramEdgesSlice takes
// the edges).
func HistogramSlice[T Sample](ctx *vk.Context, samples []T, h Histogram) ([]uint32, error) {
	if h.Edges {
		return nil, invalid("histogram: bins by edges take their edges: use HistogramEdgesSlice")
	}
	return histogramSlice(ctx, samples, nil, h)
}

// HistogramEdgesSlice counts samples into the len(edges)-1 bins between
// edges on the GPU and returns the counts: sample x counts in bin i where
// edges[i] <= x < edges[i+1] (and, with h.IncludeUpper, x ==
// edges[len(edges)-1] in the last bin). edges must be ascending (equal
// neighbours make empty bins) and, for float32, not NaN; h.Edges and
// h.Bins are set from them (a nonzero h.Bins must agree). With
// NumPyEdges and IncludeUpper the counts are np.histogram's.
func HistogramEdgesSlice[T Sample](ctx *vk.Context, samples, edges []T, h Histogram) ([]uint32, error) {
	if len(edges) < 2 || len(edges) > MaxBins+1 {
		return nil, invalid("histogram: %d edges: want 2 to %d (1 to %d bins)", len(edges), MaxBins+1, MaxBins)
	}
	if h.Bins != 0 && uint64(h.Bins) != uint64(len(edges)-1) {
		return nil, invalid("histogram: Bins %d with %d edges: the edges make %d bins", h.Bins, len(edges), len(edges)-1)
	}
	for i, e := range edges {
		if e != e {
			return nil, invalid("histogram: edge %d is NaN", i)
		}
		if i > 0 && e < edges[i-1] {
			return nil, invalid("histogram: edge %d (%v) is below edge %d (%v): the edges must ascend", i, e, i-1, edges[i-1])
		}
	}
	h.Edges, h.Bins = true, uint32(len(edges)-1)
	return histogramSlice(ctx, samples, edges, h)
}

func histogramSlice[T Sample](ctx *vk.Context, samples, edges []T, h Histogram) ([]uint32, error) {
	if h.Elem.Stride != 0 || h.Elem.KeyOffset != 0 {
		return nil, invalid("histogram: Elem %v: the samples must be plain uint32, int32 or float32", h.Elem)
	}
	key, err := gotype.Key(reflect.TypeFor[T](), h.Elem.Key, "Histogram.Elem")
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	h.Elem = vkcompact.Plain(key)
	h.Accumulate = false
	n := uint64(len(samples))
	p, err := NewPlan(ctx, n, h)
	if err != nil {
		return nil, err
	}
	var bufs planrun.Buffers
	defer bufs.Release()
	var b Buffers
	if n > 0 {
		if b.Src, err = planrun.Upload(ctx, &bufs, samples, 4*n); err != nil {
			return nil, err
		}
	}
	if edges != nil {
		if b.Edges, err = planrun.Upload(ctx, &bufs, edges, 4*uint64(len(edges))); err != nil {
			return nil, err
		}
	}
	return p.Run(b)
}

// NumPyEdges returns the edges np.histogram(a, bins, range=(lower,
// upper)) bins samples of a's type T by, as values of T, so that
// HistogramEdgesSlice with them and IncludeUpper counts exactly what
// np.histogram counts. NumPy's edges are np.linspace(lower, upper,
// bins+1) in float64 (edge i = i*step + lower, step = (upper-lower)/bins,
// each operation rounded, the last edge upper itself); for float32
// samples it rounds them to float32 (the comparisons are float32's), and
// integer samples are compared with the float64 edges, which is
// comparing them with each edge rounded up to a whole number. For integer
// T, lower and upper must be whole numbers in T's range; for float32,
// finite, with the float32 edges ascending. lower must be below upper.
func NumPyEdges[T Sample](lower, upper float64, bins uint32) ([]T, error) {
	if bins == 0 || bins > MaxBins {
		return nil, invalid("histogram: NumPyEdges: %d bins: want 1 to %d", bins, MaxBins)
	}
	if math.IsNaN(lower) || math.IsNaN(upper) || math.IsInf(lower, 0) || math.IsInf(upper, 0) || !(lower < upper) {
		return nil, invalid("histogram: NumPyEdges: the range [%v, %v]: want finite bounds, lower below upper", lower, upper)
	}
	var zero T
	t, _ := vkcompact.TypeOf(reflect.TypeOf(zero))
	if t != vkcompact.Float32 {
		h := Histogram{Elem: vkcompact.Plain(t), Bins: bins, Lower: lower, Upper: upper}
		if err := checkBounds(h); err != nil {
			return nil, fmt.Errorf("histogram: NumPyEdges: %w", err)
		}
	}
	step := (upper - lower) / float64(bins)
	edges := make([]T, bins+1)
	for i := range edges {
		e := float64(float64(i)*step) + lower // each operation rounded, as NumPy's
		if i == int(bins) {
			e = upper
		}
		if t == vkcompact.Float32 {
			edges[i] = T(float32(e))
			if i > 0 && edges[i] < edges[i-1] {
				return nil, invalid("histogram: NumPyEdges: float32 edges of [%v, %v] in %d bins do not ascend", lower, upper, bins)
			}
			continue
		}
		edges[i] = T(math.Ceil(e))
	}
	return edges, nil
}
