package permute_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/permute"
)

// FuzzMove gathers or scatters random elements of a fuzzed size (4 to
// 256 bytes), count, indexed-side length, bad indices, loads per lane
// and GPU count, against the Go reference over a poisoned destination
// and status word.
func FuzzMove(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4099), uint64(2), uint8(1), uint8(5), uint8(3))
	f.Add(uint32(20001), uint64(3), uint8(63), uint8(2), uint8(12))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, words, bad, mode uint8) {
		n %= 1 << 16
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		size := 4 * (1 + uint32(words)%64)
		perm := permute.Permutation{Elem: vkcompact.Struct(size, 0, vkcompact.Uint32), Scatter: mode&1 != 0}
		perm.LoadsPerLane = 1 + uint32(mode>>1)%4
		c := moveCase{perm: perm, n: int(n), other: int(n) + rng.IntN(100), status: true}
		if n > 0 {
			c.bad = int(bad) % 4
		}
		if mode&8 != 0 {
			c.gpuCount, c.count = true, rng.Uint32N(n+10)
		}
		runMove(t, ctx, rng, c)
	})
}
