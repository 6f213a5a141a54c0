package reduce_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/reduce"
)

// FuzzReduce runs a reduction of a fuzzed size, type and op on fresh
// data with the special float values, on the path, workgroups, GPU count
// and windows the mode's bits pick, against the Go reference.
func FuzzReduce(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(2), uint8(4), uint8(0b0011))
	f.Add(uint32(30001), uint64(3), uint8(3), uint8(1), uint8(0b1101))
	f.Add(uint32(777), uint64(4), uint8(1), uint8(3), uint8(0b1110))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, typ, op, mode uint8) {
		n %= 1 << 17
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		ty := types[int(typ)%len(types)]
		o := reduce.Options{Path: []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase}[mode&1]}
		if mode&2 != 0 {
			o = smallGroups(ctx.Info(), o)
		}
		c := reduceCase{r: reduce.Reduce{Elem: vkcompact.Plain(ty), Op: ops[int(op)%len(ops)], Options: o}, bits: randBits(rng, ty, int(n), rng.IntN(3) == 0, true)}
		if mode&4 != 0 {
			c.gpuCount, c.count = true, uint32(rng.IntN(int(n)+2))
		}
		if mode&8 != 0 && n > 0 {
			// Windows of whole chunks at aligned offsets: at least 16
			// of the smallest steps (64 elements of 4 bytes at
			// subgroup size 16) to a window.
			c.r.Options = smallGroups(ctx.Info(), c.r.Options)
			c.windowLimit = 4096 + uint64(ty.Size())*uint64(rng.IntN(int(n)))
		}
		if _, err := tryReduce(t, ctx, c); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}

// FuzzSegmented runs a segmented reduction of a fuzzed size, type, op
// and segment shape, default or smallest tiles, against the Go reference.
func FuzzSegmented(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0), uint8(0), false)
	f.Add(uint32(4097), uint64(2), uint8(3), uint8(1), uint8(segEmpties), true)
	f.Add(uint32(20000), uint64(3), uint8(2), uint8(2), uint8(segOne), true)
	f.Add(uint32(9999), uint64(4), uint8(1), uint8(0), uint8(segFixed), false)
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, typ, op, shape uint8, small bool) {
		n %= 1 << 17
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		ty := types[int(typ)%len(types)]
		s := reduce.Segmented{Elem: vkcompact.Plain(ty), Op: reduce.Op(op % 3)}
		if small {
			s.WorkgroupSize, s.LoadsPerLane = ctx.Info().MaxSubgroupSize, 1
		}
		p, err := reduce.NewSegmentedPlan(ctx, uint64(n), 1, s)
		if err != nil {
			t.Fatal(err)
		}
		c := segCase{s: s, bits: randBits(rng, ty, int(n), rng.IntN(3) == 0, true), offsets: segOffsets(rng, int(n), int(shape)%segShapes, int(p.Tuning().Tile))}
		if _, err := trySegmented(t, ctx, c); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}

// FuzzByKey runs a reduction by key of a fuzzed size, key and value
// types, op and run length, default or smallest tiles, the look-back's
// fallback at once or not, with a GPU count or not, against the Go
// reference.
func FuzzByKey(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0), uint8(0), uint8(128), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(3), uint8(2), uint8(1), uint8(1), uint8(0b011))
	f.Add(uint32(30000), uint64(3), uint8(2), uint8(1), uint8(2), uint8(255), uint8(0b110))
	f.Add(uint32(12345), uint64(4), uint8(1), uint8(0), uint8(0), uint8(0), uint8(0b101))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, ktyp, vtyp, op, keep, mode uint8) {
		n %= 1 << 17
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		kt, vt := types[int(ktyp)%len(types)], valueTypes[int(vtyp)%len(valueTypes)]
		b := reduce.ByKey{Elem: vkcompact.Plain(kt), Value: vt, Op: reduce.Op(op % 3)}
		if mode&1 != 0 {
			b.WorkgroupSize, b.LoadsPerLane = ctx.Info().MaxSubgroupSize, 1
		}
		if mode&2 != 0 {
			b.Spins = -1
		}
		c := byKeyCase{b: b, keys: runKeys(rng, kt, int(n), float64(keep)/255, true), values: randBits(rng, vt, int(n), rng.IntN(3) == 0, true)}
		if mode&4 != 0 {
			c.gpuCount, c.count, c.zeroScratch = true, uint32(rng.IntN(int(n)+2)), rng.IntN(2) == 0
		}
		if _, err := tryByKey(t, ctx, c); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}
