package compact_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
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

// FuzzUniqueByKey runs random unique selections by key, (n, seed,
// repeat, key type, stride, value type, mode), against the Go reference:
// repeat/255 is the chance that a key repeats the one before it. mode's
// bits choose: 0-1 the equality; 2 the three phases rather than the
// single pass; 3-4 the loads per lane (0: the default); 5 workgroups of
// four subgroups rather than the default; 6 the scattered write (three
// phases); 7 a count taken on the GPU (0, half, all or past n). A plan
// the device cannot hold (a tile of the chosen loads past its shared
// memory) is a legitimate refusal, which must name it.
func FuzzUniqueByKey(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(128), uint8(0), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(250), uint8(3), uint8(0), uint8(3), uint8(0b0010_1000))
	f.Add(uint32(5001), uint64(3), uint8(100), uint8(5), uint8(3), uint8(1), uint8(0b0101_0110))
	f.Add(uint32(777), uint64(5), uint8(200), uint8(2), uint8(5), uint8(4), uint8(0b1001_1001))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, repeat, typ, stride, vtyp, mode uint8) {
		n %= 1 << 16
		key := allTypes[int(typ)%len(allTypes)]
		size := key.Size() + 4*uint32(stride%8)
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		off := 4 * rng.Uint32N((size-key.Size())/4+1)
		sel := compact.Selection{Elem: vkcompact.Struct(size, off, key), Keep: compact.KeepFirstOfRun(compact.Equality(mode & 3 % 3)),
			Values: allTypes[int(vtyp)%len(allTypes)], Options: compact.Options{Path: vkcompact.PathSinglePass, LoadsPerLane: uint32(mode>>3) & 3}}
		if mode&4 != 0 {
			sel.Path = vkcompact.PathThreePhase
			if mode&64 != 0 {
				sel.Write = compact.WriteScattered
			}
		}
		if mode&32 != 0 {
			sel.WorkgroupSize = 4 * ctx.Info().MaxSubgroupSize
		}
		c := byKeyCase{n: int(n), sel: sel, repeat: float64(repeat) / 255}
		if mode&128 != 0 {
			c.gpuCount = true
			c.count = []uint32{0, n / 2, n, n + 5}[rng.IntN(4)]
		}
		if _, err := compact.NewPlan(ctx, uint64(n), sel); err != nil {
			if errors.Is(err, vk.ErrInvalid) && strings.Contains(err.Error(), "shared memory") {
				return // a tile the device cannot hold: refused, by name
			}
			t.Fatalf("%v: %v", c, err)
		}
		if err := tryByKey(t, ctx, rng, c); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}
