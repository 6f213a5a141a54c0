package compact_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
)

// A plain Go reference for selections, written from the predicate's
// definition with Go's own comparisons (IEEE for floats), independently of
// the bit mapping the shaders use.

// keyAt reads element i's key bits.
func keyAt(data []byte, e vkcompact.Elem, i int) uint64 {
	off := i*int(e.Size()) + int(e.KeyOffset)
	if e.Key.Size() == 4 {
		return uint64(binary.LittleEndian.Uint32(data[off:]))
	}
	return binary.LittleEndian.Uint64(data[off:])
}

func setKey(data []byte, e vkcompact.Elem, i int, bits uint64) {
	off := i*int(e.Size()) + int(e.KeyOffset)
	if e.Key.Size() == 4 {
		binary.LittleEndian.PutUint32(data[off:], uint32(bits))
	} else {
		binary.LittleEndian.PutUint64(data[off:], bits)
	}
}

// cmp applies op to a and b, ordered values of one Go type.
func cmp[T int64 | uint64 | float64](op compact.Op, a, b T) bool {
	switch op {
	case compact.Equal:
		return a == b
	case compact.NotEqual:
		return a != b
	case compact.Less:
		return a < b
	case compact.LessEqual:
		return a <= b
	case compact.Greater:
		return a > b
	case compact.GreaterEqual:
		return a >= b
	}
	panic("not a comparison")
}

// refKeep decides one key with Go semantics; c is the constant as the key
// type's Go value (uint64, int64 or float64 holding a float32 for f32).
func refKeep(t vkcompact.Type, op compact.Op, bits uint64, c refConst) bool {
	switch t {
	case vkcompact.Uint32, vkcompact.Uint64:
		switch op {
		case compact.NonZero:
			return bits != 0
		case compact.MaskAny:
			return bits&c.u != 0
		}
		return cmp(op, bits, c.u)
	case vkcompact.Int32, vkcompact.Int64:
		v := int64(bits)
		if t == vkcompact.Int32 {
			v = int64(int32(uint32(bits)))
		}
		switch op {
		case compact.NonZero:
			return v != 0
		case compact.MaskAny:
			return uint64(v)&c.u != 0
		}
		return cmp(op, v, c.i)
	case vkcompact.Float32:
		v := math.Float32frombits(uint32(bits))
		if op == compact.NonZero {
			return v != 0
		}
		return cmp(op, float64(v), float64(float32(c.f)))
	default:
		v := math.Float64frombits(bits)
		if op == compact.NonZero {
			return v != 0
		}
		return cmp(op, v, c.f)
	}
}

// refConst is a test's constant in every form.
type refConst struct {
	u uint64
	i int64
	f float64
}

// reference returns the expected output bytes and kept count.
func reference(data []byte, flags []uint32, e vkcompact.Elem, op compact.Op, c refConst, n int, split bool) ([]byte, int) {
	size := int(e.Size())
	var kept, rejected []byte
	for i := 0; i < n; i++ {
		var keep bool
		if op == compact.Flagged {
			keep = flags[i] != 0
		} else {
			keep = refKeep(e.Key, op, keyAt(data, e, i), c)
		}
		el := data[i*size : (i+1)*size]
		if keep {
			kept = append(kept, el...)
		} else {
			rejected = append(rejected, el...)
		}
	}
	k := len(kept) / size
	if split {
		kept = append(kept, rejected...)
	}
	return kept, k
}

// Patterns of kept (nonzero) and dropped (zero) keys.
const (
	patRandom      = "random"
	patRuns        = "runs"
	patAlternating = "alternating"
	patAll         = "all"
	patNone        = "none"
)

// keepMask returns which of n elements to keep under pattern at ratio.
func keepMask(rng *rand.Rand, n int, pattern string, ratio float64) []bool {
	m := make([]bool, n)
	switch pattern {
	case patAll:
		for i := range m {
			m[i] = true
		}
	case patNone:
	case patAlternating:
		for i := range m {
			m[i] = i%2 == 0
		}
	case patRuns:
		on := rng.Float64() < ratio
		for i := 0; i < n; {
			run := 1 + rng.IntN(300)
			for j := i; j < min(i+run, n); j++ {
				m[j] = on
			}
			i += run
			on = rng.Float64() < ratio
		}
	default:
		for i := range m {
			m[i] = rng.Float64() < ratio
		}
	}
	return m
}

// randomNonZero returns random nonzero key bits of type t (not a float
// zero, any other bits allowed: NaNs and denormals included).
func randomNonZero(rng *rand.Rand, t vkcompact.Type) uint64 {
	for {
		b := rng.Uint64()
		if t.Size() == 4 {
			b &= 0xffffffff
		}
		switch t {
		case vkcompact.Float32:
			if b&0x7fffffff != 0 {
				return b
			}
		case vkcompact.Float64:
			if b&^(1<<63) != 0 {
				return b
			}
		default:
			if b != 0 {
				return b
			}
		}
	}
}
