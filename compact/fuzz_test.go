package compact_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// FuzzSelect runs random selections, (n, seed, ratio, type, stride, mode),
// against the Go reference. mode's bits choose: 0 split, 1 in place, 2 the
// scattered write; 3-4 the predicate (nonzero, a comparison with one of
// the type's special constants, uint8 or uint32 flags, a mask); 5-6 the
// path (auto, the three phases, the single pass, the single pass with
// Spins -1, which takes its fallback at once), where a forced single pass
// runs out of place and splits with ReverseRejected; 7 a count taken on
// the GPU (0, half, all or past n). Seeds are in testdata/fuzz/FuzzSelect;
// CI runs them as plain tests, `go test -fuzz FuzzSelect ./compact`
// explores.
func FuzzSelect(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(128), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(1), uint8(5), uint8(3), uint8(3))
	f.Add(uint32(5001), uint64(3), uint8(100), uint8(1), uint8(0), uint8(0b0100_1000)) // a comparison, the single pass
	f.Add(uint32(3000), uint64(4), uint8(128), uint8(3), uint8(2), uint8(0b1011_0001)) // uint8 or uint32 flags, a split, the three phases, a GPU count
	f.Add(uint32(7777), uint64(5), uint8(200), uint8(4), uint8(1), uint8(0b1111_1001)) // a mask, a split, the single pass's fallback, a GPU count
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, ratio, typ, stride, mode uint8) {
		n %= 1 << 18
		key := allTypes[int(typ)%len(allTypes)]
		// A stride from the key's size to 64 bytes, the key at a random
		// aligned offset inside it.
		size := key.Size() + 4*uint32(stride%16)
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		off := 4 * rng.Uint32N((size-key.Size())/4+1)
		sel := compact.Selection{Elem: vkcompact.Struct(size, off, key), Keep: compact.KeepNonZero(), Split: mode&1 != 0, InPlace: mode&2 != 0}
		if mode&4 != 0 {
			sel.Write = compact.WriteScattered
		}
		c := selCase{n: int(n), sel: sel, keep: keepMask(rng, int(n), patRandom, float64(ratio)/255)}
		switch (mode >> 3) & 3 {
		case 1: // a comparison with one of the type's special constants
			cs := constants(key)
			c.c = cs[rng.IntN(len(cs))]
			c.sel.Keep = compact.KeepIf(compact.Op(1+rng.IntN(6)), c.c.value(key))
			c.keep, c.keys = nil, specialKeys(key, c.c)
		case 2: // flags, one or four bytes each
			c.sel.Keep = compact.KeepFlagged([]uint32{1, 4}[rng.IntN(2)])
		case 3: // a mask (integer keys)
			if key != vkcompact.Float32 && key != vkcompact.Float64 {
				c.c = refConst{u: 0x8000_0101, i: 0x8000_0101}
				if key == vkcompact.Int32 {
					c.c.u = 0xffffffff_80000101 // the mask as int32, sign-extended by the reference
				}
				c.sel.Keep = compact.KeepMask(0x8000_0101)
				c.keep, c.keys = nil, specialKeys(key, c.c)
			}
		}
		switch (mode >> 5) & 3 {
		case 1:
			c.sel.Path = vkcompact.PathThreePhase
		case 2, 3:
			c.sel.Path = vkcompact.PathSinglePass
			c.sel.InPlace = false
			c.sel.ReverseRejected = c.sel.Split
			if (mode>>5)&3 == 3 {
				c.sel.Spins = -1
			}
		}
		if mode&128 != 0 {
			c.gpuCount = true
			c.count = []uint32{0, n / 2, n, n + 5}[rng.IntN(4)]
		}
		if err := tryRunSel(ctx, rng, c, t); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}
