package compact_test

import (
	"errors"
	"math"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// TestUniqueSliceHelper checks UniqueSlice on fresh random runs of float32
// keys (NaNs and both zeros among them) under each equality against the
// Go reference, and that it refuses a Keep asking for another test.
func TestUniqueSliceHelper(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	e := vkcompact.Plain(vkcompact.Float32)
	n := 3000 + rng.IntN(2000)
	raw := runData(rng, e, n, 0.6)
	data := unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), n)
	for _, eq := range []compact.Equality{compact.EqualKeys, compact.EqualKeyBits, compact.EqualElements} {
		keep := refNeighbours(raw, e, compact.KeepFirstOfRun(eq), n)
		var want []uint32
		for i, k := range keep {
			if k {
				want = append(want, math.Float32bits(data[i]))
			}
		}
		for _, k := range []compact.Keep{{Equal: eq}, compact.KeepFirstOfRun(eq)} {
			got, res, err := compact.UniqueSlice(ctx, data, compact.Selection{Keep: k})
			if err != nil {
				t.Fatalf("%v: %v", eq, err)
			}
			if int(res.Kept) != len(want) || int(res.Total) != n || len(got) != len(want) {
				t.Fatalf("%v (Keep %v): %d kept of %d, %d returned; want %d of %d", eq, k, res.Kept, res.Total, len(got), len(want), n)
			}
			for i, w := range want {
				if math.Float32bits(got[i]) != w {
					t.Fatalf("%v (Keep %v): element %d is %08x, want %08x", eq, k, i, math.Float32bits(got[i]), w)
				}
			}
		}
	}
	for _, k := range []compact.Keep{compact.KeepIf(compact.Greater, compact.Float(0)), compact.KeepFlagged(4), compact.KeepMask(1)} {
		if _, _, err := compact.UniqueSlice(ctx, data, compact.Selection{Keep: k}); !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("UniqueSlice with Keep %v: %v, want an error matching vk.ErrInvalid", k, err)
		}
	}
}
