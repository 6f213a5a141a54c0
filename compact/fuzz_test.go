package compact_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/vk/vktest"
)

// FuzzSelect runs random selections, (n, seed, ratio, type, stride, mode),
// against the Go reference. Seeds are in testdata/fuzz/FuzzSelect; CI runs
// them as plain tests, `go test -fuzz FuzzSelect ./compact` explores.
func FuzzSelect(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(128), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(1), uint8(5), uint8(3), uint8(3))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, ratio, typ, stride, mode uint8) {
		n %= 1 << 18
		key := allTypes[int(typ)%len(allTypes)]
		// A stride from the key's size to 64 bytes, the key at a random
		// aligned offset inside it.
		size := key.Size() + 4*uint32(stride%16)
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		off := 4 * rng.Uint32N((size-key.Size())/4+1)
		sel := compact.Selection{Elem: compact.Struct(size, off, key), Keep: compact.KeepNonZero(), Split: mode&1 != 0, InPlace: mode&2 != 0}
		if mode&4 != 0 {
			sel.Write = compact.WriteScattered
		}
		c := selCase{n: int(n), sel: sel, keep: keepMask(rng, int(n), patRandom, float64(ratio)/255)}
		if err := tryRunSel(ctx, rng, c, t); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}
