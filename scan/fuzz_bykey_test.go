package scan_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// FuzzScanByKey runs a scan by key of a fuzzed size, key and value
// types, op and run length against the Go reference, with the mode's
// bits choosing: inclusive (bit 0), the smallest tiles (1), the
// look-back's fallback at once (2), a GPU count (3), windows of a fuzzed
// binding limit (4), a fuzzed workgroup size (5) and loads per lane (6),
// float32 sums of mixed magnitudes rather than exact ones (7). A fuzzed
// workgroup size or binding limit the plan cannot take must be refused,
// naming it; anything else must run.
func FuzzScanByKey(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0), uint8(0), uint8(128), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(3), uint8(2), uint8(1), uint8(1), uint8(0b0000_0011))
	f.Add(uint32(30000), uint64(3), uint8(2), uint8(1), uint8(2), uint8(255), uint8(0b1000_1110))
	f.Add(uint32(12345), uint64(4), uint8(1), uint8(0), uint8(0), uint8(0), uint8(0b0001_0101))
	f.Add(uint32(70001), uint64(5), uint8(0), uint8(2), uint8(0), uint8(3), uint8(0b0111_0000))
	ctx := vktest.Open(f)
	info := ctx.Info()
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, ktyp, vtyp, op, keep, mode uint8) {
		n %= 1 << 17
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		kt, vt := keyTypes[int(ktyp)%len(keyTypes)], valueTypes[int(vtyp)%len(valueTypes)]
		b := scan.ByKey{Elem: vkcompact.Plain(kt), Value: vt, Op: allOps[int(op)%len(allOps)], Inclusive: mode&1 != 0}
		if mode&2 != 0 {
			b.WorkgroupSize, b.LoadsPerLane = info.MaxSubgroupSize, 1
		}
		if mode&4 != 0 {
			b.Spins = -1
		}
		if mode&32 != 0 {
			b.WorkgroupSize = info.MaxSubgroupSize * (1 + rng.Uint32N(16))
		}
		if mode&64 != 0 {
			b.LoadsPerLane = 1 + rng.Uint32N(4)
		}
		// A new run's probability is (keep/255)^2, so that the fuzzer's
		// bytes reach long runs as well as short ones.
		k := float64(keep) / 255
		c := byKeyCase{b: b, keys: runKeys(rng, kt, int(n), k*k, rng.IntN(2) == 0), values: byKeyValues(rng, vt, b.Op, int(n), mode&128 == 0, rng.IntN(4))}
		if mode&8 != 0 {
			c.gpuCount, c.count = true, uint32(rng.IntN(int(n)+2))
		}
		if mode&16 != 0 {
			c.windowLimit = 1024 + uint64(rng.IntN(int(n)*int(kt.Size())+1))
		}
		if _, err := scan.NewByKeyPlanWindowLimit(ctx, uint64(n), b, c.windowLimit); err != nil {
			// The fuzzed workgroup may exceed what the device or the pass
			// takes, and a window may hold no whole tile.
			if errors.Is(err, vk.ErrInvalid) && (mode&32 != 0 && strings.Contains(err.Error(), "workgroup size") ||
				c.windowLimit != 0 && strings.Contains(err.Error(), "one binding holds none of tiles")) {
				return
			}
			t.Fatalf("%v: %v", c, err)
		}
		if _, err := tryByKey(t, ctx, c); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}
