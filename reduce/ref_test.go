package reduce_test

import (
	"math"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/reduce"
)

// The Go references. Elements are held as their bits in a uint64 (a
// 32-bit element in the low half), so one reference serves every type.

var types = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}

var ops = []reduce.Op{reduce.Sum, reduce.Min, reduce.Max, reduce.ArgMin, reduce.ArgMax}

func isNaN32(b uint64) bool { return uint32(b)&0x7fffffff > 0x7f800000 }

func f32(b uint64) float64 { return float64(math.Float32frombits(uint32(b))) }

// less says whether a is below b in typ's order (float zeros equal; NaN
// handled by the callers).
func less(typ vkcompact.Type, a, b uint64) bool {
	switch typ {
	case vkcompact.Int32:
		return int32(uint32(a)) < int32(uint32(b))
	case vkcompact.Float32:
		return f32(a) < f32(b)
	case vkcompact.Uint64:
		return a < b
	}
	return uint32(a) < uint32(b)
}

// identity is the value an empty input gives (reduce.ResultValueOffset).
func identity(typ vkcompact.Type, op reduce.Op) uint64 {
	least := op == reduce.Min || op == reduce.ArgMin
	if op == reduce.Sum {
		return 0
	}
	switch typ {
	case vkcompact.Int32:
		return map[bool]uint64{true: 0x7fffffff, false: 0x80000000}[least]
	case vkcompact.Float32:
		return map[bool]uint64{true: 0x7f800000, false: 0xff800000}[least]
	case vkcompact.Uint64:
		return map[bool]uint64{true: math.MaxUint64, false: 0}[least]
	}
	return map[bool]uint64{true: math.MaxUint32, false: 0}[least]
}

// pick is the index of the element min or max (argmin, argmax) picks:
// NumPy's choice, the first NaN where there is one, else the first of
// the least (greatest) elements, float zeros equal. -1 for none.
func pick(typ vkcompact.Type, least bool, bits []uint64) int {
	best := -1
	for i, b := range bits {
		if typ == vkcompact.Float32 && isNaN32(b) {
			return i
		}
		if best < 0 || least && less(typ, b, bits[best]) || !least && less(typ, bits[best], b) {
			best = i
		}
	}
	return best
}

// refReduce is the reference value and index of op over bits: integer
// sums wrap; a float32 sum is the serial float32 sum (exact where every
// partial sum is: exactSums), with -0.0 kept as IEEE 754 gives it.
func refReduce(typ vkcompact.Type, op reduce.Op, bits []uint64) (uint64, uint32) {
	if op == reduce.Sum {
		var s uint64
		switch typ {
		case vkcompact.Float32:
			if len(bits) == 0 {
				return 0, reduce.NoIndex
			}
			f := float32(math.Copysign(0, -1))
			for _, b := range bits {
				f += math.Float32frombits(uint32(b))
			}
			return uint64(math.Float32bits(f)), reduce.NoIndex
		case vkcompact.Uint64:
			for _, b := range bits {
				s += b
			}
		default:
			for _, b := range bits {
				s = uint64(uint32(s) + uint32(b))
			}
		}
		return s, reduce.NoIndex
	}
	i := pick(typ, op == reduce.Min || op == reduce.ArgMin, bits)
	if i < 0 {
		return identity(typ, op), reduce.NoIndex
	}
	if op == reduce.Min || op == reduce.Max {
		return bits[i], reduce.NoIndex
	}
	return bits[i], uint32(i)
}

// floatSum is the float64 sum of float32 bits and the sum of their
// magnitudes (for the bound), and whether every float32 partial sum of
// them, in any order, is exact (integers whose magnitudes sum to at most
// 2^24).
func floatSum(bits []uint64) (sum, abs float64, exact bool) {
	exact = true
	for _, b := range bits {
		v := f32(b)
		sum += v
		abs += math.Abs(v)
		if math.IsInf(v, 0) || math.IsNaN(v) || v != math.Trunc(v) {
			exact = false
		}
	}
	return sum, abs, exact && abs <= 1<<24
}

// gamma is the relative error bound of a sum computed with depth float32
// additions along any element's way into it (Higham, Accuracy and
// Stability of Numerical Algorithms, 4.2: a pairwise tree of depth d
// errs by at most gamma(d) times the sum of the magnitudes), with 2^-126
// per addition for a denormal flushed to zero.
func gamma(depth float64) (rel, denormal float64) {
	u := 0x1p-24
	return depth * u / (1 - depth*u), depth * 0x1p-126
}

// floatOK says whether the float32 bits got are the sum want (float64) of
// summands whose magnitudes sum to abs, within the bound of depth, or
// bit for bit (wantBits) where the data make every sum exact.
func floatOK(got uint64, want, abs float64, exact bool, wantBits uint64, depth float64) bool {
	g := f32(got)
	switch {
	case exact:
		return got == wantBits
	case math.IsNaN(want):
		return math.IsNaN(g)
	case math.IsInf(want, 0):
		return g == want
	}
	rel, den := gamma(depth)
	return math.Abs(g-want) <= rel*abs+den
}

// randBits returns n elements of typ: integers over their whole range
// (or in [0, 8) with small), float32 mixed magnitudes with the special
// values (NaN, infinities, signed zeros, denormals, ±1e30: large, but no
// sum of them overflows) where special is set,
// else small integers (exact sums) or values in [-1e3, 1e3).
func randBits(rng *rand.Rand, typ vkcompact.Type, n int, small, special bool) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		switch typ {
		case vkcompact.Uint64:
			out[i] = rng.Uint64()
			if small {
				out[i] = rng.Uint64N(8) << 61 >> uint(rng.IntN(62))
			}
		case vkcompact.Float32:
			var f float32
			switch {
			case special && rng.IntN(64) == 0:
				sp := []uint32{0x7fc00000, 0xffc00001, 0x7f800000, 0xff800000, 0, 0x80000000, 1, 0x80000003, 0x7149f2ca, 0xf149f2ca}
				out[i] = uint64(sp[rng.IntN(len(sp))])
				continue
			case small:
				f = float32(rng.IntN(17) - 8)
			default:
				f = float32((rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(7)-3)))
			}
			out[i] = uint64(math.Float32bits(f))
		default:
			out[i] = uint64(rng.Uint32())
			if small {
				out[i] = uint64(uint32(rng.IntN(8)))
			}
		}
	}
	return out
}

// words is bits as the buffer's uint32 words (two per uint64 element,
// low first).
func words(typ vkcompact.Type, bits []uint64) []uint32 {
	if typ == vkcompact.Uint64 {
		w := make([]uint32, 2*len(bits))
		for i, b := range bits {
			w[2*i], w[2*i+1] = uint32(b), uint32(b>>32)
		}
		return w
	}
	w := make([]uint32, len(bits))
	for i, b := range bits {
		w[i] = uint32(b)
	}
	return w
}
