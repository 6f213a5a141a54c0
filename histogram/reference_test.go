package histogram_test

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/histogram"
)

// value is a sample's bits read as its type, for comparisons: ok is
// false for a float32 NaN, which compares with nothing.
func value(t vkcompact.Type, bits uint32) (v float64, ok bool) {
	switch t {
	case vkcompact.Int32:
		return float64(int32(bits)), true
	case vkcompact.Float32:
		f := math.Float32frombits(bits)
		return float64(f), f == f
	}
	return float64(bits), true
}

// refBin is the Go reference's bin of a sample (bits) under h's rules:
// CUB's exact integer rule or its float32 arithmetic for even bins, the
// upper bound over edges (bits) otherwise; false where it counts nowhere.
func refBin(h histogram.Histogram, edges []uint32, bits uint32) (uint32, bool) {
	t := h.Elem.Key.OrUint32()
	x, ok := value(t, bits)
	if !ok {
		return 0, false
	}
	if h.Edges {
		i := sort.Search(len(edges), func(i int) bool { e, _ := value(t, edges[i]); return e > x })
		switch last, _ := value(t, edges[len(edges)-1]); {
		case i == 0:
			return 0, false
		case i == len(edges):
			return h.Bins - 1, h.IncludeUpper && x == last
		}
		return uint32(i - 1), true
	}
	switch {
	case x < h.Lower || x > h.Upper:
		return 0, false
	case x == h.Upper:
		return h.Bins - 1, h.IncludeUpper
	}
	if t == vkcompact.Float32 {
		lo, hi := float32(h.Lower), float32(h.Upper)
		scale := float32(float32(h.Bins) / float32(hi-lo))
		d := float32(float32(x) - lo)
		return min(uint32(float32(d*scale)), h.Bins-1), true
	}
	d := uint64(int64(x) - int64(h.Lower))
	return uint32(d * uint64(h.Bins) / uint64(int64(h.Upper)-int64(h.Lower))), true
}

// refHistogram counts samples (bits) as h says, in Go.
func refHistogram(h histogram.Histogram, edges, samples []uint32) []uint32 {
	counts := make([]uint32, h.Bins)
	for _, s := range samples {
		if b, ok := refBin(h, edges, s); ok {
			counts[b]++
		}
	}
	return counts
}

// bitsOf returns the bits of v as a sample of type t.
func bitsOf(t vkcompact.Type, v float64) uint32 {
	switch t {
	case vkcompact.Int32:
		return uint32(int32(v))
	case vkcompact.Float32:
		return math.Float32bits(float32(v))
	}
	return uint32(v)
}

// samples draws n samples (bits) for h: most inside the range (or the
// edges' span), some below and above it, some exactly on edges (lower,
// upper, inner edges), and for float32 NaN, -0.0 and infinities.
func samples(rng *rand.Rand, h histogram.Histogram, edges []uint32, n int) []uint32 {
	t := h.Elem.Key.OrUint32()
	lo, hi := h.Lower, h.Upper
	if h.Edges {
		lo, _ = value(t, edges[0])
		hi, _ = value(t, edges[len(edges)-1])
	}
	width := hi - lo
	out := make([]uint32, n)
	for i := range out {
		var v float64
		switch k := rng.IntN(20); {
		case k == 0:
			v = lo - rng.Float64()*width/4
		case k == 1:
			v = hi + rng.Float64()*width/4
		case k == 2:
			v = lo
		case k == 3:
			v = hi
		case k == 4 && h.Edges:
			out[i] = edges[rng.IntN(len(edges))]
			continue
		case k == 4:
			// An inner even edge, and its neighbours.
			v = lo + math.Floor(rng.Float64()*float64(h.Bins))*width/float64(h.Bins)
			if t == vkcompact.Float32 {
				out[i] = math.Float32bits(float32(v)) + uint32(rng.IntN(3)) - 1
				continue
			}
			v = math.Floor(v) + float64(rng.IntN(3)) - 1
		case k == 5 && t == vkcompact.Float32:
			out[i] = []uint32{0x7fc00000, 0xffc00001, 0x80000000, 0x7f800000, 0xff800000, 0}[rng.IntN(6)]
			continue
		default:
			v = lo + rng.Float64()*width
		}
		out[i] = clampBits(t, v)
	}
	return out
}

// clampBits is bitsOf with v clamped to t's range (integers rounded down).
func clampBits(t vkcompact.Type, v float64) uint32 {
	switch t {
	case vkcompact.Int32:
		return bitsOf(t, math.Max(math.MinInt32, math.Min(math.MaxInt32, math.Floor(v))))
	case vkcompact.Uint32:
		return bitsOf(t, math.Max(0, math.Min(math.MaxUint32, math.Floor(v))))
	}
	return bitsOf(t, v)
}

// randomEdges draws bins+1 ascending edges (bits) of type t in about
// [lo, hi], some of them equal (empty bins).
func randomEdges(rng *rand.Rand, t vkcompact.Type, bins uint32, lo, hi float64) []uint32 {
	vals := make([]float64, bins+1)
	for i := range vals {
		vals[i] = lo + rng.Float64()*(hi-lo)
		if t != vkcompact.Float32 {
			vals[i] = math.Floor(vals[i])
		}
		if i > 0 && rng.IntN(8) == 0 {
			vals[i] = vals[i-1]
		}
	}
	sort.Float64s(vals)
	out := make([]uint32, len(vals))
	for i, v := range vals {
		out[i] = bitsOf(t, v)
	}
	return out
}
