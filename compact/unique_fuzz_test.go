package compact_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// FuzzUnique runs random neighbour selections, (n, seed, repeat, type,
// stride, mode), against the Go reference: repeat/255 is the chance that
// an element repeats the one before it. mode's bits choose: 0-1 the
// equality (keys, key bits, elements); 2 RunEdges rather than FirstOfRun;
// 3-4 the output (elements, indices with or without the elements, a split with the rejected reversed,
// in place); 5 the three phases rather than the single pass; 6 a count
// taken on the GPU (0, half, all or past n). The seeds below run as plain
// tests; `go test -fuzz FuzzUnique ./compact` explores.
func FuzzUnique(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(128), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(250), uint8(2), uint8(0), uint8(0b0000_1000))
	f.Add(uint32(5001), uint64(3), uint8(100), uint8(5), uint8(3), uint8(0b0010_0110))
	f.Add(uint32(777), uint64(5), uint8(200), uint8(1), uint8(5), uint8(0b0101_0101))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, repeat, typ, stride, mode uint8) {
		n %= 1 << 16
		key := allTypes[int(typ)%len(allTypes)]
		size := key.Size() + 4*uint32(stride%8)
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		off := 4 * rng.Uint32N((size-key.Size())/4+1)
		eq := compact.Equality(mode & 3 % 3)
		keep := compact.KeepFirstOfRun(eq)
		if mode&4 != 0 {
			keep = compact.KeepRunEdges(eq)
		}
		sel := compact.Selection{Elem: vkcompact.Struct(size, off, key), Keep: keep, Options: compact.Options{Path: vkcompact.PathSinglePass}}
		switch (mode >> 3) & 3 {
		case 1:
			sel.Output = compact.Output(1 + rng.IntN(2)) // indices, or indices and elements
		case 2:
			sel.Split, sel.ReverseRejected = true, true
		case 3:
			sel.InPlace = true
		}
		if mode&32 != 0 || sel.InPlace {
			sel.Path = vkcompact.PathThreePhase
		}
		c := nbCase{n: int(n), sel: sel, repeat: float64(repeat) / 255}
		if mode&64 != 0 {
			c.gpuCount = true
			c.count = []uint32{0, n / 2, n, n + 5}[rng.IntN(4)]
		}
		if err := tryNeighbours(t, ctx, rng, c); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}
