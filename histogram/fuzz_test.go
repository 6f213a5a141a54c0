package histogram_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/histogram"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// FuzzHistogram counts random samples of a fuzzed size, type, bin count,
// range or edges, upper-edge rule and options, with and without a GPU
// count, against the Go reference over poisoned counts.
func FuzzHistogram(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint16(1), uint8(0))
	f.Add(uint32(4099), uint64(2), uint8(2), uint16(4095), uint8(3))
	f.Add(uint32(70001), uint64(3), uint8(1), uint16(256), uint8(12))
	ctx := vktest.Open(f)
	types := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32}
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, typ uint8, bins uint16, mode uint8) {
		n %= 1 << 18
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		ty := types[int(typ)%len(types)]
		h := histogram.Histogram{Elem: vkcompact.Plain(ty), Bins: 1 + uint32(bins)%histogram.MaxBins, IncludeUpper: mode&1 != 0}
		if mode&2 != 0 {
			h.Edges = true
		} else {
			b := evenBounds[ty][rng.IntN(len(evenBounds[ty]))]
			h.Lower, h.Upper = b[0], b[1]
		}
		if mode&4 != 0 {
			h.Options = histogram.Options{Workgroups: 1 + rng.Uint32N(9), LoadsPerLane: 1 + rng.Uint32N(4), Replicas: 1 + rng.Uint32N(2)}
		}
		c := histCase{h: h, n: int(n)}
		if mode&8 != 0 {
			c.gpuCount, c.count = true, rng.Uint32N(n+10)
		}
		// The caller's replicas and one word of shared state must fit the
		// device's shared memory; where they do not, the plan refuses them.
		if words := uint64(ctx.Info().MaxSharedMemory / 4); uint64(h.Replicas)*uint64(h.Bins)+1 > words {
			_, err := histogram.NewPlan(ctx, uint64(n), h)
			if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "shared memory") {
				t.Fatalf("%d replicas of %d bins in %d bytes of shared memory: got %v, want a refusal naming shared memory", h.Replicas, h.Bins, 4*words, err)
			}
			return
		}
		runCase(t, ctx, rng, c)
	})
}
