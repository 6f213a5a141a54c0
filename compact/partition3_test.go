package compact_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// p3Case is one three-way partition to run and check.
type p3Case struct {
	n      int
	part   compact.Partition3
	c1, c2 refConst                    // the predicates' constants, for the reference
	keys   func(rng *rand.Rand) uint64 // key bits
	// gpuCount passes count through Partition3Buffers.Count.
	gpuCount bool
	count    uint32
	// windowBytes, when set, plans with NewPartition3PlanWindowLimit.
	windowBytes uint64
	// byIndex plans with NewPartition3PlanByIndex.
	byIndex bool
	offset  uint64 // byte offset of every range in its buffer
}

func (c p3Case) String() string {
	s := fmt.Sprintf("n=%d %v first=%v second=%v %+v", c.n, c.part.Elem, c.part.First, c.part.Second, c.part.Options)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	if c.windowBytes != 0 {
		s += fmt.Sprintf(" windows of %d bytes", c.windowBytes)
	}
	if c.byIndex {
		s += " tiles by index"
	}
	return s
}

// refKeepOf decides one key for k, a key predicate, with Go semantics.
func refKeepOf(t vkcompact.Type, k compact.Keep, bits uint64, c refConst) bool {
	return refKeep(t, k.Op, bits, c)
}

// reference3 returns the expected three groups' bytes.
func reference3(data []byte, e vkcompact.Elem, c p3Case, n int) (groups [3][]byte) {
	size := int(e.Size())
	for i := 0; i < n; i++ {
		bits := keyAt(data, e, i)
		g := 2
		if refKeepOf(e.Key, c.part.First, bits, c.c1) {
			g = 0
		} else if refKeepOf(e.Key, c.part.Second, bits, c.c2) {
			g = 1
		}
		groups[g] = append(groups[g], data[i*size:(i+1)*size]...)
	}
	return groups
}

func runP3(t *testing.T, ctx *vk.Context, rng *rand.Rand, c p3Case) {
	t.Helper()
	if err := tryRunP3(ctx, rng, c, t); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

// tryRunP3 runs c through Partition3Plan.Record with every written buffer
// poisoned first, and checks the three outputs, the bytes around them and
// the result block against the Go reference.
func tryRunP3(ctx *vk.Context, rng *rand.Rand, c p3Case, t testing.TB) error {
	e := c.part.Elem
	e.Key = e.Key.OrUint32()
	size := int(e.Size())
	n := c.n
	data := make([]byte, n*size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for i := 0; i < n; i++ {
		setKey(data, e, i, c.keys(rng))
	}
	nEff := n
	if c.gpuCount {
		nEff = min(n, int(c.count))
	}
	want := reference3(data, e, c, nEff)

	var p *compact.Partition3Plan
	var err error
	switch {
	case c.windowBytes != 0:
		p, err = compact.NewPartition3PlanWindowLimit(ctx, uint64(n), c.part, c.windowBytes)
	case c.byIndex:
		p, err = compact.NewPartition3PlanByIndex(ctx, uint64(n), c.part)
		if err == nil && !p.Tuning().TilesByIndex {
			return fmt.Errorf("the plan takes its tiles from the counter")
		}
	default:
		p, err = compact.NewPartition3Plan(ctx, uint64(n), c.part)
	}
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if c.windowBytes != 0 && uint64(n*size) > c.windowBytes && p.Tuning().WindowTiles == 0 {
		return fmt.Errorf("%d bytes in windows of %d: the plan took no windows", n*size, c.windowBytes)
	}
	const guard = 64
	nb := uint64(n * size)
	src := vktest.NewPoisoned(t, ctx, c.offset+nb+guard)
	if err := vk.Upload(src.Range(c.offset, nb), data); err != nil {
		return err
	}
	var outs [3]*vk.Buffer
	for i := range outs {
		outs[i] = vktest.NewPoisoned(t, ctx, c.offset+nb+guard)
	}
	res := vktest.NewPoisoned(t, ctx, c.offset+compact.Partition3ResultSize)
	scratch := vktest.NewPoisoned(t, ctx, c.offset+p.ScratchSize())
	b := compact.Partition3Buffers{Src: src.Range(c.offset, nb), First: outs[0].Range(c.offset, nb), Second: outs[1].Range(c.offset, nb),
		Rest: outs[2].Range(c.offset, nb), Result: res.Range(c.offset, compact.Partition3ResultSize), Scratch: scratch.Range(c.offset, p.ScratchSize())}
	if c.gpuCount {
		cb := vktest.NewPoisoned(t, ctx, 16)
		if err := vk.Upload(cb.Range(0, 4), []uint32{c.count}); err != nil {
			return err
		}
		b.Count = cb.Range(0, 4)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return err
	}

	var block [compact.Partition3ResultSize / 4]uint32
	if err := vk.Download(b.Result, block[:]); err != nil {
		return err
	}
	for g := range 3 {
		k := len(want[g]) / size
		if int(block[g]) != k {
			return fmt.Errorf("result block counts %v, want %d, %d, %d", block[:4], len(want[0])/size, len(want[1])/size, len(want[2])/size)
		}
		if err := checkDispatch(block[4+4*g:7+4*g], k, c.part.GroupSize, ctx.Info().MaxWorkgroupCount[0]); err != nil {
			return fmt.Errorf("group %d: %w", g, err)
		}
		if draw := block[16+4*g : 20+4*g]; int(draw[0]) != k || draw[1] != 1 || draw[2] != 0 || draw[3] != 0 || block[7+4*g] != 0 {
			return fmt.Errorf("group %d: draw arguments %v, want [%d 1 0 0]", g, draw, k)
		}
	}
	if int(block[3]) != nEff {
		return fmt.Errorf("result block total %d, want %d", block[3], nEff)
	}
	r, err := compact.ReadPartition3Result(b.Result)
	if err != nil || r != (compact.Partition3Result{First: block[0], Second: block[1], Rest: block[2], Total: block[3]}) {
		return fmt.Errorf("ReadPartition3Result: %+v, %v; the block says %v", r, err, block[:4])
	}

	poison := vktest.PoisonBytes(outs[0].Size())
	for g, out := range outs {
		got := make([]byte, out.Size())
		if err := vk.Download(out.All(), got); err != nil {
			return err
		}
		w := want[g]
		o := got[c.offset : c.offset+uint64(len(w))]
		if !bytes.Equal(o, w) {
			for i := 0; i < len(w); i += size {
				if !bytes.Equal(o[i:i+size], w[i:i+size]) {
					return fmt.Errorf("group %d (%d elements) differs from the reference first at element %d: got % x, want % x",
						g, len(w)/size, i/size, o[i:i+size], w[i:i+size])
				}
			}
		}
		if !bytes.Equal(got[:c.offset], poison[:c.offset]) || !bytes.Equal(got[c.offset+uint64(len(w)):], poison[c.offset+uint64(len(w)):]) {
			return fmt.Errorf("group %d: bytes outside its %d elements were written", g, len(w)/size)
		}
	}
	return nil
}

// p3Random returns a partition of type t by two random comparisons with
// two of the type's constants, over keys that hit both.
func p3Random(rng *rand.Rand, t vkcompact.Type) (compact.Partition3, refConst, refConst, func(*rand.Rand) uint64) {
	cs := constants(t)
	c1, c2 := cs[rng.IntN(len(cs))], cs[rng.IntN(len(cs))]
	part := compact.Partition3{Elem: vkcompact.Plain(t),
		First: compact.KeepIf(compact.Op(1+rng.IntN(6)), c1.value(t)), Second: compact.KeepIf(compact.Op(1+rng.IntN(6)), c2.value(t))}
	k1, k2 := specialKeys(t, c1), specialKeys(t, c2)
	keys := func(rng *rand.Rand) uint64 {
		if rng.IntN(2) == 0 {
			return k1(rng)
		}
		return k2(rng)
	}
	return part, c1, c2, keys
}

// anchor returns the partition of uint32 keys that the CUB anchor and
// bench's partition3_u32 run: x < 0x55555555, then x < 0xaaaaaaaa, over
// random keys.
func anchor() (compact.Partition3, refConst, refConst, func(*rand.Rand) uint64) {
	part := compact.Partition3{First: compact.KeepIf(compact.Less, compact.Uint(0x55555555)), Second: compact.KeepIf(compact.Less, compact.Uint(0xaaaaaaaa))}
	return part, refConst{u: 0x55555555}, refConst{u: 0xaaaaaaaa}, func(rng *rand.Rand) uint64 { return uint64(rng.Uint32()) }
}

// TestPartition3 runs every key type and layout on sizes around the
// tiles, with the default spins and the fallback at once, small tiles
// (many of them, a long look-back), against the Go reference.
func TestPartition3(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sgw, sgl := ctx.Info().MaxSubgroupSize, uint32(1)
	// The short form: sizes around one tile of each kind (small tiles of
	// 4 to 32 elements on the lavapipe and SwiftShader's subgroup sizes,
	// default tiles of 4096 uint32 on CPU devices), each a new pipeline.
	sizes := []int{1, 3, 255, 256, 4097, 65537}
	if !vktest.Short() {
		sizes = []int{1, 2, 3, 255, 256, 257, 4095, 4096, 4097, 12289, 65537, 1<<20 + 7}
	}
	layouts := []func(vkcompact.Type) vkcompact.Elem{
		vkcompact.Plain,
		func(t vkcompact.Type) vkcompact.Elem { return vkcompact.Struct(12, 0, vkcompact.Uint32) }, // the element path
		func(t vkcompact.Type) vkcompact.Elem { return vkcompact.Struct(16, 8, t) },                // one uvec4 per element
		func(t vkcompact.Type) vkcompact.Elem { return vkcompact.Struct(24, 16, t) },               // the element path, 8-byte keys too
		func(t vkcompact.Type) vkcompact.Elem { return vkcompact.Struct(8, 4, vkcompact.Uint32) },  // two per uvec4
	}
	for i, n := range sizes {
		typ := allTypes[i%len(allTypes)]
		part, c1, c2, keys := p3Random(rng, typ)
		part.Elem = layouts[i%len(layouts)](typ)
		if part.Elem.Key != typ { // a layout of uint32 keys
			part, c1, c2, keys = anchor()
			part.Elem = layouts[i%len(layouts)](typ)
		}
		for _, mode := range []string{"default", "fallback", "small-tiles", "by-index"} {
			c := p3Case{n: n, part: part, c1: c1, c2: c2, keys: keys}
			switch mode {
			case "fallback":
				c.part.Spins = -1
			case "small-tiles":
				c.part.Spins = -1
				c.part.WorkgroupSize, c.part.LoadsPerLane = sgw, sgl
			case "by-index": // the GPUs' tiles up to 1024 of them, here on any device
				c.byIndex = true
				c.part.WorkgroupSize, c.part.LoadsPerLane = sgw, sgl
				if n > 1024*int(sgw) || n < 200 { // at most 1024 tiles of one element per lane, more than one
					continue
				}
			}
			if mode == "small-tiles" && (n > 100000 || vktest.Short() && n < 200) {
				continue // too many tiles for the fallback's cost on a CPU device, or (short) one tile
			}
			if vktest.Short() && (mode == "small-tiles" && i%2 == 0 || mode == "by-index" && i%2 == 1) {
				continue // the short form: each a new pipeline, so the two modes take turns
			}
			t.Run(fmt.Sprintf("%s/n=%d", mode, n), func(t *testing.T) { runP3(t, ctx, rng, c) })
		}
	}
	// The anchor at 2 and 3 loads per lane, and with a GroupSize.
	for _, loads := range []uint32{2, 3} {
		part, c1, c2, keys := anchor()
		part.LoadsPerLane, part.GroupSize = loads, 32
		t.Run(fmt.Sprintf("loads-%d", loads), func(t *testing.T) {
			runP3(t, ctx, rng, p3Case{n: 50001, part: part, c1: c1, c2: c2, keys: keys, offset: 256})
		})
	}
}

// TestPartition3Groups runs the predicates' combinations that leave
// groups empty or put every element in one group, and the key
// predicates other than comparisons.
func TestPartition3Groups(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	lt := func(v uint64) compact.Keep { return compact.KeepIf(compact.Less, compact.Uint(v)) }
	ge := func(v uint64) compact.Keep { return compact.KeepIf(compact.GreaterEqual, compact.Uint(v)) }
	small := func(rng *rand.Rand) uint64 { return uint64(rng.IntN(1000)) }
	for _, c := range []struct {
		name          string
		first, second compact.Keep
		c1, c2        refConst
	}{
		{"all-first", lt(1000), lt(500), refConst{u: 1000}, refConst{u: 500}},
		{"all-second", ge(1000), lt(1000), refConst{u: 1000}, refConst{u: 1000}},
		{"all-rest", ge(1000), ge(1000), refConst{u: 1000}, refConst{u: 1000}},
		{"no-second", lt(500), ge(1000), refConst{u: 500}, refConst{u: 1000}},
		{"no-first", ge(1000), lt(500), refConst{u: 1000}, refConst{u: 500}},
		{"no-rest", lt(500), ge(500), refConst{u: 500}, refConst{u: 500}},
		{"second-overlaps-first", lt(600), lt(800), refConst{u: 600}, refConst{u: 800}},
		{"nonzero-mask", compact.KeepNonZero(), compact.KeepMask(3), refConst{}, refConst{u: 3}},
		{"mask-equal", compact.KeepMask(0x100), compact.KeepIf(compact.Equal, compact.Uint(7)), refConst{u: 0x100}, refConst{u: 7}},
	} {
		sizes := []int{1, 4097, 30011}
		if vktest.Short() {
			sizes = []int{4097}
		}
		for _, n := range sizes {
			t.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(t *testing.T) {
				runP3(t, ctx, rng, p3Case{n: n, part: compact.Partition3{First: c.first, Second: c.second}, c1: c.c1, c2: c.c2, keys: small})
			})
		}
	}
	// Float keys with a NaN constant (no key compares true but !=) and
	// signed zeros; int64 keys by a mask.
	nan := compact.Partition3{Elem: vkcompact.Plain(vkcompact.Float32), First: compact.KeepIf(compact.Less, compact.Float(math.NaN())),
		Second: compact.KeepIf(compact.NotEqual, compact.Float(math.NaN()))}
	runP3(t, ctx, rng, p3Case{n: 5000, part: nan, c1: refConst{f: math.NaN()}, c2: refConst{f: math.NaN()}, keys: specialKeys(vkcompact.Float32, refConst{f: 0})})
	mask := compact.Partition3{Elem: vkcompact.Plain(vkcompact.Int64), First: compact.KeepMask(1 << 40), Second: compact.KeepNonZero()}
	runP3(t, ctx, rng, p3Case{n: 5000, part: mask, c1: refConst{u: 1 << 40}, keys: specialKeys(vkcompact.Int64, refConst{i: 1 << 40})})
}

// TestPartition3GPUCount takes the element count from the GPU: the
// partition covers the first min(count, n) elements.
func TestPartition3GPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, n := range []int{1, 4097, 40000} {
		for _, count := range []uint32{0, uint32(n / 2), uint32(n), uint32(n + 5), math.MaxUint32} {
			part, c1, c2, keys := anchor()
			part.Spins = -1
			t.Run(fmt.Sprintf("n=%d/count=%d", n, count), func(t *testing.T) {
				runP3(t, ctx, rng, p3Case{n: n, part: part, c1: c1, c2: c2, keys: keys, gpuCount: true, count: count})
			})
		}
	}
}

// TestPartition3Windows cuts small inputs into windows (as inputs past
// one binding are): one dispatch per input window, each output bound as
// up to four windows.
func TestPartition3Windows(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	win := max(uint64(4096), 4*info.MinStorageBufferOffsetAlignment)
	for i, c := range []struct {
		elem vkcompact.Elem
		n    int
	}{
		{vkcompact.Plain(vkcompact.Uint32), int(3 * win / 4)},
		{vkcompact.Plain(vkcompact.Uint32), int(4*win/4) - 3},
		{vkcompact.Plain(vkcompact.Float64), int(2*win/8) + 1},
		{vkcompact.Struct(12, 4, vkcompact.Int32), int(3*win/12) - 1},
	} {
		var part compact.Partition3
		var c1, c2 refConst
		var keys func(*rand.Rand) uint64
		if c.elem.Key == vkcompact.Uint32 {
			part, c1, c2, keys = anchor()
		} else {
			part, c1, c2, keys = p3Random(rng, c.elem.Key)
		}
		part.Elem = c.elem
		part.WorkgroupSize, part.LoadsPerLane = info.MaxSubgroupSize, 1
		part.Spins = int32(i%2) - 1 // the fallback at once, or the default
		pc := p3Case{n: c.n, part: part, c1: c1, c2: c2, keys: keys, windowBytes: win}
		if i == 1 {
			pc.gpuCount, pc.count = true, uint32(c.n-100)
		}
		t.Run(fmt.Sprint(c.elem, c.n), func(t *testing.T) { runP3(t, ctx, rng, pc) })
	}
	// Outputs past four windows are refused.
	part, _, _, _ := anchor()
	part.WorkgroupSize, part.LoadsPerLane = info.MaxSubgroupSize, 1
	if _, err := compact.NewPartition3PlanWindowLimit(ctx, 5*win/4, part, win); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("outputs of five windows: %v, want ErrInvalid", err)
	}
}

// TestPartition3Slice runs Partition3Slice on keys and structs.
func TestPartition3Slice(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	keys := make([]float32, 10001)
	for i := range keys {
		keys[i] = float32(rng.NormFloat64())
	}
	part := compact.Partition3{First: compact.KeepIf(compact.Less, compact.Float(-0.5)), Second: compact.KeepIf(compact.LessEqual, compact.Float(0.5))}
	f, s, r, res, err := compact.Partition3Slice(ctx, keys, part)
	if err != nil {
		t.Fatal(err)
	}
	var wf, ws, wr []float32
	for _, k := range keys {
		switch {
		case k < -0.5:
			wf = append(wf, k)
		case k <= 0.5:
			ws = append(ws, k)
		default:
			wr = append(wr, k)
		}
	}
	if fmt.Sprint(f) != fmt.Sprint(wf) || fmt.Sprint(s) != fmt.Sprint(ws) || fmt.Sprint(r) != fmt.Sprint(wr) || res.Total != uint32(len(keys)) {
		t.Errorf("Partition3Slice: %d, %d, %d elements (%+v), want %d, %d, %d", len(f), len(s), len(r), res, len(wf), len(ws), len(wr))
	}
	type particle struct {
		Pos  [3]float32
		Life int32
	}
	ps := make([]particle, 777)
	for i := range ps {
		ps[i] = particle{Pos: [3]float32{float32(i)}, Life: int32(rng.IntN(200)) - 100}
	}
	elem, err := vkcompact.StructOf[particle]("Life")
	if err != nil {
		t.Fatal(err)
	}
	part = compact.Partition3{Elem: elem, First: compact.KeepIf(compact.Less, compact.Int(0)), Second: compact.KeepIf(compact.Equal, compact.Int(0))}
	pf, pz, pr, _, err := compact.Partition3Slice(ctx, ps, part)
	if err != nil {
		t.Fatal(err)
	}
	var wantF, wantZ, wantR []particle
	for _, p := range ps {
		switch {
		case p.Life < 0:
			wantF = append(wantF, p)
		case p.Life == 0:
			wantZ = append(wantZ, p)
		default:
			wantR = append(wantR, p)
		}
	}
	if fmt.Sprint(pf) != fmt.Sprint(wantF) || fmt.Sprint(pz) != fmt.Sprint(wantZ) || fmt.Sprint(pr) != fmt.Sprint(wantR) {
		t.Errorf("Partition3Slice of structs: %d, %d, %d, want %d, %d, %d", len(pf), len(pz), len(pr), len(wantF), len(wantZ), len(wantR))
	}
	// No elements: three empty groups.
	if f, s, r, res, err := compact.Partition3Slice(ctx, []uint32{}, part3Anchor()); err != nil || len(f)+len(s)+len(r) != 0 || res != (compact.Partition3Result{}) {
		t.Errorf("no elements: %v %v %v %+v %v", f, s, r, res, err)
	}
}

func part3Anchor() compact.Partition3 { p, _, _, _ := anchor(); return p }
