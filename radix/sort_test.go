package radix_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// mapped is the reference's order-preserving map of a key's bits, written
// independently of the shader: the key's value order, with float32 in
// IEEE totalOrder.
func mapped(t vkcompact.Type, bits uint64) uint64 {
	switch t {
	case vkcompact.Int32:
		return uint64(uint32(int64(int32(bits)) + math.MaxInt32 + 1))
	case vkcompact.Float32:
		if bits&(1<<31) != 0 {
			return uint64(^uint32(bits))
		}
		return bits | 1<<31
	}
	return bits
}

// refSort returns the permutation a stable sort by bits [begin, end) of
// the mapped key gives; an unset key type is Uint32, as in a plan.
func refSort(s radix.Sort, keys []uint64) []int {
	s.Elem.Key = s.Elem.Key.OrUint32()
	width := 8 * s.Elem.Key.Size()
	end := s.EndBit
	if end == 0 {
		end = width
	}
	mask := uint64(0)
	if end > s.BeginBit {
		mask = (math.MaxUint64 >> (64 - (end - s.BeginBit))) << s.BeginBit
	}
	type entry struct {
		key uint64
		i   int
	}
	e := make([]entry, len(keys))
	for i, k := range keys {
		m := mapped(s.Elem.Key, k)
		if s.Descending {
			m = ^m
			if width == 32 {
				m &= math.MaxUint32
			}
		}
		e[i] = entry{m & mask, i}
	}
	// Stable: equal keys in index order (an unstable sort with the index
	// as tie-break, much faster than slices.SortStableFunc on 2^25 keys).
	slices.SortFunc(e, func(a, b entry) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.i, b.i)) })
	perm := make([]int, len(keys))
	for i, x := range e {
		perm[i] = x.i
	}
	return perm
}

type sortCase struct {
	sort radix.Sort
	keys []uint64 // key bits
	off  uint64   // byte offset of every range in its buffer
	// gpuCount passes count through Buffers.Count: the sort then covers
	// min(count, n) keys.
	gpuCount bool
	count    uint32
	// limit, when not 0, lowers the bytes one binding holds
	// (radix.NewPlanWithin), so that small inputs take windows.
	limit uint64
}

func (c sortCase) String() string {
	s := fmt.Sprintf("n=%d %v values=%v desc=%v bits=[%d,%d) inplace=%v %+v", len(c.keys), c.sort.Elem.Key, c.sort.Values,
		c.sort.Descending, c.sort.BeginBit, c.sort.EndBit, c.sort.InPlace, c.sort.Options)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

func runSort(t *testing.T, ctx *vk.Context, c sortCase) {
	t.Helper()
	if err := tryRunSort(ctx, c, t); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

// tryRunSort sorts c's keys (with their indices as values, so that a
// wrong order among equal keys shows) through Plan.Record, with every
// written buffer poisoned, and checks the outputs and the bytes around
// them.
func tryRunSort(ctx *vk.Context, c sortCase, t testing.TB) error {
	p, err := radix.NewPlanWithin(ctx, uint64(len(c.keys)), c.sort, c.limit)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	b, check, err := prepareSort(ctx, c, t)
	if err != nil {
		return err
	}
	b.Scratch = vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return err
	}
	return check()
}

// prepareSort makes c's buffers but the scratch, poisoned, with its keys
// (and values) uploaded, and returns them with the function that checks
// the outputs once a plan for c has sorted them.
func prepareSort(ctx *vk.Context, c sortCase, t testing.TB) (radix.Buffers, func() error, error) {
	n := uint64(len(c.keys))
	kb := uint64(c.sort.Elem.Key.OrUint32().Size()) // a plan's default
	raw := make([]byte, 0, n*kb)
	vals := make([]uint32, n)
	for i, k := range c.keys {
		if kb == 8 {
			raw = binary.LittleEndian.AppendUint64(raw, k)
		} else {
			raw = binary.LittleEndian.AppendUint32(raw, uint32(k))
		}
		vals[i] = uint32(i)
	}
	const guard = 64
	keysBuf := vktest.NewPoisoned(t, ctx, c.off+n*kb+guard)
	b := radix.Buffers{Keys: keysBuf.Range(c.off, n*kb)}
	if err := vk.Upload(b.Keys, raw); err != nil {
		return radix.Buffers{}, nil, err
	}
	outKeys, outVals := keysBuf, (*vk.Buffer)(nil)
	var valsBuf *vk.Buffer
	if c.sort.Values {
		valsBuf = vktest.NewPoisoned(t, ctx, c.off+4*n+guard)
		b.Values = valsBuf.Range(c.off, 4*n)
		if err := vk.Upload(b.Values, vals); err != nil {
			return radix.Buffers{}, nil, err
		}
		outVals = valsBuf
	}
	if !c.sort.InPlace {
		outKeys = vktest.NewPoisoned(t, ctx, c.off+n*kb+guard)
		b.KeysOut = outKeys.Range(c.off, n*kb)
		if c.sort.Values {
			outVals = vktest.NewPoisoned(t, ctx, c.off+4*n+guard)
			b.ValuesOut = outVals.Range(c.off, 4*n)
		}
	}
	nEff := n // the keys the sort covers
	if c.gpuCount {
		nEff = min(n, uint64(c.count))
		cb := vktest.NewPoisoned(t, ctx, 16)
		if err := vk.Upload(cb.Range(0, 4), []uint32{c.count}); err != nil {
			return radix.Buffers{}, nil, err
		}
		b.Count = cb.Range(0, 4)
	}
	check := func() error {
		perm := refSort(c.sort, c.keys[:nEff])
		wantKeys := make([]byte, 0, n*kb)
		wantVals := make([]byte, 0, 4*n)
		for _, i := range perm {
			wantKeys = append(wantKeys, raw[uint64(i)*kb:uint64(i+1)*kb]...)
			wantVals = binary.LittleEndian.AppendUint32(wantVals, uint32(i))
		}
		// Past the count: the inputs in place, unwritten (poison) otherwise.
		if c.sort.InPlace {
			wantKeys = append(wantKeys, raw[nEff*kb:]...)
			for i := nEff; i < n; i++ {
				wantVals = binary.LittleEndian.AppendUint32(wantVals, uint32(i))
			}
		} else {
			wantKeys = append(wantKeys, vktest.PoisonBytes((n-nEff)*kb)...)
			wantVals = append(wantVals, vktest.PoisonBytes(4*(n-nEff))...)
		}
		compare := func(name string, buf *vk.Buffer, want []byte, size uint64) error {
			got := make([]byte, buf.Size())
			if err := vk.Download(buf.All(), got); err != nil {
				return err
			}
			out := got[c.off : c.off+uint64(len(want))]
			if !bytes.Equal(out, want) {
				for i := uint64(0); i < uint64(len(want)); i += size {
					if !bytes.Equal(out[i:i+size], want[i:i+size]) {
						return fmt.Errorf("%s differ from the reference first at %d of %d: got % x, want % x", name, i/size, n, out[i:i+size], want[i:i+size])
					}
				}
			}
			if !bytes.Equal(got[:c.off], vktest.PoisonBytes(c.off)) || !bytes.Equal(got[c.off+uint64(len(want)):], vktest.PoisonBytes(uint64(len(got))-c.off-uint64(len(want)))) {
				return fmt.Errorf("bytes around the %s were written", name)
			}
			return nil
		}
		if err := compare("keys", outKeys, wantKeys, kb); err != nil {
			return err
		}
		if c.sort.Values {
			if err := compare("values", outVals, wantVals, 4); err != nil {
				return err
			}
		}
		if !c.sort.InPlace {
			// The inputs are unchanged.
			got := make([]byte, n*kb)
			if err := vk.Download(b.Keys, got); err != nil {
				return err
			}
			if !bytes.Equal(got, raw) {
				return fmt.Errorf("the input keys changed")
			}
		}
		return nil
	}
	return b, check, nil
}

var keyTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64}

// special float32 values: ±0, ±Inf, denormals, NaNs of both signs, and
// ordinary values.
var specialF32 = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 1, 0x80000001, 0x007fffff, 0x807fffff,
	0x7fc00000, 0xffc00000, 0x7f800001, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff}

// keyData draws n keys of type t in a pattern.
func keyData(rng *rand.Rand, t vkcompact.Type, n int, pattern string) []uint64 {
	k := make([]uint64, n)
	draw := func() uint64 {
		switch {
		case t == vkcompact.Uint64:
			return rng.Uint64()
		case t == vkcompact.Float32 && rng.IntN(4) == 0:
			return uint64(specialF32[rng.IntN(len(specialF32))])
		}
		return uint64(rng.Uint32())
	}
	few := []uint64{draw(), draw(), draw()}
	for i := range k {
		switch pattern {
		case "equal":
			k[i] = few[0]
		case "few":
			k[i] = few[rng.IntN(len(few))]
		default:
			k[i] = draw()
		}
	}
	if pattern == "sorted" || pattern == "reversed" {
		s := radix.Sort{Elem: vkcompact.Plain(t), Descending: pattern == "reversed"}
		perm := refSort(s, k)
		sorted := make([]uint64, n)
		for i, j := range perm {
			sorted[i] = k[j]
		}
		k = sorted
	}
	return k
}

var patterns = []string{"random", "equal", "few", "sorted", "reversed"}

// TestSortSizes sorts the sizes for every key type, keys and
// pairs, ascending and descending, in place and out of place: each size
// runs two of the eight modes per type (one at the largest size, and in
// the short form), in turn, so that every size meets several modes and
// every mode several sizes.
func TestSortSizes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	turn := 0
	for _, n := range []int{0, 1, 2, 3, 31, 32, 33, 127, 128, 129, 4095, 4097, 65537, 1<<20 + 12345} {
		for _, typ := range keyTypes {
			turn++
			// Modes 3*turn and 3*turn + 5 (mod 8): in turn every mode,
			// two distinct ones per size and type (one at the largest
			// size, and in the short form).
			modes := []int{3 * turn % 8, (3*turn + 5) % 8}
			if n > 70000 || vktest.Short() {
				modes = modes[:1]
			}
			for _, mode := range modes {
				s := radix.Sort{Elem: vkcompact.Plain(typ), Values: mode&1 != 0, Descending: mode&2 != 0, InPlace: mode&4 != 0}
				runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, typ, n, "random")})
			}
		}
	}
}

// TestSortPatterns sorts random, all-equal, few-distinct, sorted and
// reversed keys as pairs (whose values show stability), both directions.
func TestSortPatterns(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	turn := 0
	for _, pat := range patterns {
		for _, typ := range keyTypes {
			for _, desc := range []bool{false, true} {
				turn++
				if vktest.Short() && turn%2 == 0 {
					continue // the short form: one direction per pattern and type, in turn
				}
				s := radix.Sort{Elem: vkcompact.Plain(typ), Values: true, Descending: desc}
				runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, typ, 50000+rng.IntN(1000), pat)})
			}
		}
	}
}

// TestSortFloatSpecials sorts nothing but special float32 values.
func TestSortFloatSpecials(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	k := make([]uint64, 20000)
	for i := range k {
		k[i] = uint64(specialF32[rng.IntN(len(specialF32))])
	}
	for _, desc := range []bool{false, true} {
		runSort(t, ctx, sortCase{sort: radix.Sort{Elem: vkcompact.Plain(vkcompact.Float32), Values: true, Descending: desc}, keys: k})
	}
}

// TestSortBits sorts by bit ranges, with digit widths that do not divide
// them.
func TestSortBits(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, c := range []struct {
		typ        vkcompact.Type
		begin, end uint32
		digit      uint32
	}{
		{vkcompact.Uint32, 0, 0, 0}, {vkcompact.Uint32, 4, 12, 0}, {vkcompact.Uint32, 0, 7, 3}, {vkcompact.Uint32, 8, 32, 5},
		{vkcompact.Uint32, 5, 5, 0}, {vkcompact.Uint32, 31, 32, 0}, {vkcompact.Int32, 16, 32, 0}, {vkcompact.Float32, 20, 32, 6},
		{vkcompact.Uint64, 16, 48, 0}, {vkcompact.Uint64, 0, 64, 7}, {vkcompact.Uint64, 28, 36, 8}, {vkcompact.Uint64, 40, 64, 0},
	} {
		for _, inPlace := range []bool{false, true} {
			s := radix.Sort{Elem: vkcompact.Plain(c.typ), Values: true, BeginBit: c.begin, EndBit: c.end, InPlace: inPlace, Options: radix.Options{DigitBits: c.digit}}
			runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, c.typ, 30000+rng.IntN(100), "random")})
		}
	}
}

// TestSortTuning runs processors, workgroups, keys per lane and digit
// widths at their edges, with ranges at nonzero offsets.
func TestSortTuning(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	align := info.MinStorageBufferOffsetAlignment
	for oi, o := range []radix.Options{
		{Processors: 1},
		{Processors: 2, KeysPerLane: 1},
		{Processors: 1000},
		{KeysPerLane: 3, DigitBits: 4},
		{KeysPerLane: 8, DigitBits: 1},
		{KeysPerLane: 16, DigitBits: 5},
		{KeysPerLane: 12, DigitBits: 6, Processors: 7},
		{WorkgroupSize: info.MaxSubgroupSize},
		{WorkgroupSize: 2 * info.MaxSubgroupSize, DigitBits: 7},
		{KeysPerLane: radix.MaxKeysPerLane, DigitBits: 7},
		{KeysPerLane: 20, DigitBits: 6, Counts: radix.CountsFused},
		{KeysPerLane: 5, DigitBits: 3, Counts: radix.CountsFused},
	} {
		for ti, typ := range keyTypes {
			if vktest.Short() && (oi+ti)%2 != 0 {
				continue // the short form: two of the four types, in turn
			}
			s := radix.Sort{Elem: vkcompact.Plain(typ), Values: rng.IntN(2) == 0, Descending: rng.IntN(2) == 0, InPlace: rng.IntN(2) == 0, Options: o}
			runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, typ, 100000+rng.IntN(1000), patterns[rng.IntN(len(patterns))]), off: align * uint64(1+rng.IntN(3))})
		}
	}
}

// TestSortSlice runs the host-slice helpers.
func TestSortSlice(t *testing.T) {
	ctx := vktest.Shared(t)
	negZero := float32(math.Copysign(0, -1))
	f, err := radix.SortSlice(ctx, []float32{3, float32(math.Inf(-1)), 0, negZero, -2.5, float32(math.Inf(1))}, radix.Sort{})
	if err != nil || fmt.Sprint(f) != "[-Inf -2.5 -0 0 3 +Inf]" {
		t.Errorf("float32: %v %v", f, err)
	}
	if !math.Signbit(float64(f[2])) || math.Signbit(float64(f[3])) {
		t.Errorf("-0.0 must sort before +0.0: %v", f)
	}
	k, v, err := radix.SortPairsSlice(ctx, []int32{5, -1, 5, -7, 0}, []uint32{0, 1, 2, 3, 4}, radix.Sort{Descending: true})
	if err != nil || fmt.Sprint(k, v) != "[5 5 0 -1 -7] [0 2 4 1 3]" {
		t.Errorf("int32 pairs, descending: %v %v %v", k, v, err)
	}
	u, err := radix.SortSlice(ctx, []uint64{1 << 40, 3, 1<<40 + 1, 0}, radix.Sort{InPlace: true})
	if err != nil || !slices.Equal(u, []uint64{0, 3, 1 << 40, 1<<40 + 1}) {
		t.Errorf("uint64 in place: %v %v", u, err)
	}
	e, err := radix.SortSlice(ctx, []uint32{}, radix.Sort{})
	if err != nil || len(e) != 0 {
		t.Errorf("empty: %v %v", e, err)
	}
	if _, _, err := radix.SortPairsSlice(ctx, []uint32{1, 2}, []uint32{1}, radix.Sort{}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("values of another length: %v", err)
	}
	if _, err := radix.SortSlice(ctx, []uint32{1}, radix.Sort{Values: true}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("SortSlice of pairs: %v", err)
	}
}

func TestSortBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	info := ctx.Info()
	for _, c := range []struct {
		name string
		n    uint64
		s    radix.Sort
	}{
		{"i64 keys", 10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Int64)}},
		{"f64 keys", 10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Float64)}},
		{"unknown key type", 10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Type(9))}},
		{"end bit past the key", 10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 33}},
		{"begin after end", 10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), BeginBit: 20, EndBit: 10}},
		{"too many keys", 1 << 32, radix.Sort{}},
		{"keys beyond four bindings", uint64(info.MaxStorageBufferRange)/2 + 1, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64)}},
		{"9-bit digits", 10, radix.Sort{Options: radix.Options{DigitBits: 9}}},
		{"too many keys per lane", 10, radix.Sort{Options: radix.Options{KeysPerLane: radix.MaxKeysPerLane + 1}}},
		{"unknown counts mode", 10, radix.Sort{Options: radix.Options{Counts: 9}}},
		{"fused counts of 8-bit digits", 10, radix.Sort{Options: radix.Options{Counts: radix.CountsFused, DigitBits: 8}}},
		{"workgroup not a subgroup multiple", 10, radix.Sort{Options: radix.Options{WorkgroupSize: info.MaxSubgroupSize + 1}}},
		{"workgroup too large for shared memory", 10, radix.Sort{Options: radix.Options{WorkgroupSize: 64 * info.MaxSubgroupSize}}},
	} {
		_, err := radix.NewPlan(ctx, c.n, c.s)
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: got %v, want an error matching vk.ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if _, err := radix.NewPlan(nil, 10, radix.Sort{}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("nil context: %v", err)
	}

	// The three phases, which take scratch (a CPU device's PathAuto sorts
	// 100 keys in one workgroup, with none).
	p, err := radix.NewPlan(ctx, 100, radix.Sort{Values: true, Options: radix.Options{Path: vkcompact.PathThreePhase}})
	if err != nil {
		t.Fatal(err)
	}
	buf := vktest.NewPoisoned(t, ctx, 4096)
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	good := radix.Buffers{Keys: buf.Range(0, 400), Values: buf.Range(512, 400), KeysOut: buf.Range(1024, 400), ValuesOut: buf.Range(1536, 400),
		Scratch: scratch.Range(0, p.ScratchSize())}
	align := info.MinStorageBufferOffsetAlignment
	for _, c := range []struct {
		name string
		edit func(b *radix.Buffers)
	}{
		{"no keys", func(b *radix.Buffers) { b.Keys = vk.Range{} }},
		{"keys too small", func(b *radix.Buffers) { b.Keys.Size = 396 }},
		{"no values", func(b *radix.Buffers) { b.Values = vk.Range{} }},
		{"no keys output", func(b *radix.Buffers) { b.KeysOut = vk.Range{} }},
		{"values output too small", func(b *radix.Buffers) { b.ValuesOut.Size = 100 }},
		{"scratch too small", func(b *radix.Buffers) { b.Scratch.Size = 16 }},
		{"output over the input", func(b *radix.Buffers) { b.KeysOut = buf.Range(256, 400) }},
		{"outputs overlap", func(b *radix.Buffers) { b.ValuesOut = buf.Range(1280, 400) }},
		{"scratch over the output", func(b *radix.Buffers) { b.Scratch = buf.Range(1024, p.ScratchSize()) }},
		{"range past the end", func(b *radix.Buffers) { b.KeysOut = buf.Range(4000, 400) }},
		{"unaligned offset", func(b *radix.Buffers) { b.KeysOut = buf.Range(1024+align/2, 400) }},
	} {
		if align < 2 && c.name == "unaligned offset" {
			continue
		}
		b := good
		c.edit(&b)
		err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: got %v, want an error matching vk.ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if err := p.Run(good); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}
	keysOnly, err := radix.NewPlan(ctx, 100, radix.Sort{})
	if err != nil {
		t.Fatal(err)
	}
	if err := keysOnly.Run(good); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("values for a keys-only sort: %v", err)
	}
}

// FuzzSort runs random sorts, (n, seed, type, pattern, mode, bits),
// against the Go reference. Seeds are in testdata/fuzz/FuzzSort.
func FuzzSort(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(3), uint8(2), uint8(7), uint8(9))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, typ, pattern, mode, bits uint8) {
		n %= 1 << 17
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		ty := keyTypes[int(typ)%len(keyTypes)]
		s := radix.Sort{Elem: vkcompact.Plain(ty), Values: mode&1 != 0, Descending: mode&2 != 0, InPlace: mode&4 != 0}
		if mode&8 != 0 {
			s.DigitBits = 1 + rng.Uint32N(8)
			s.Processors = 1 + rng.Uint32N(300)
		}
		if bits != 0 {
			w := ty.Size() * 8
			s.BeginBit = rng.Uint32N(w)
			s.EndBit = s.BeginBit + 1 + rng.Uint32N(w-s.BeginBit)
		}
		c := sortCase{sort: s, keys: keyData(rng, ty, int(n), patterns[int(pattern)%len(patterns)])}
		if err := tryRunSort(ctx, c, t); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}

// TestSortGPUCount takes the key count from a GPU buffer: below, at and
// above the plan's n, keys and pairs, in place and not, with an even and
// an odd number of passes and with none (a plain, counted copy).
func TestSortGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	i := 0
	for _, n := range []int{0, 1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(max(n-1, 0)), uint32(n), uint32(n + 5), 0xffffffff} {
			typ := keyTypes[(i/3)%len(keyTypes)] // not in step with the cases below
			s := radix.Sort{Elem: vkcompact.Plain(typ), Values: i%2 == 0, InPlace: i%3 != 0, Descending: i%5 == 0}
			switch i % 4 {
			case 1:
				s.BeginBit, s.EndBit, s.DigitBits = 4, 16, 4 // 3 passes: in place, a copy back
			case 2:
				s.BeginBit, s.EndBit = 8, 8 // no pass: out of place, a copy
			case 3:
				s.BeginBit, s.EndBit, s.DigitBits = 0, 8, 8 // 1 pass
			}
			runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, typ, n, "random"), gpuCount: true, count: count})
			i++
		}
	}
}

// TestSortFusedCounts sorts with each scatter counting the next pass's
// digits (radix.CountsFused), with a count phase per pass and with the
// automatic choice, over digit widths, processor counts (so that digit
// runs cross the next pass's chunk boundaries, or meet them exactly, as
// all-equal keys do) and key patterns. Forced fused counts must be taken
// wherever they apply, and refused by name where they do not.
func TestSortFusedCounts(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	fused := map[uint32]int{}
	i := 0
	for _, bits := range []uint32{1, 2, 4, 5, 6, 7} {
		for _, procs := range []uint32{0, 3, 17, 200} {
			for _, counts := range []radix.Counts{radix.CountsFused, radix.CountsSeparate, radix.CountsAuto} {
				i++
				typ := []vkcompact.Type{vkcompact.Uint32, vkcompact.Uint64, vkcompact.Float32}[(i/3+int(procs))%3] // not in step with counts
				s := radix.Sort{Elem: vkcompact.Plain(typ), Values: i%2 == 0, InPlace: i%5 == 0, Descending: i%7 == 0,
					Options: radix.Options{DigitBits: bits, Processors: procs, Counts: counts}}
				if bits <= 2 {
					s.EndBit = 12 // 6 or 12 passes, not 64
				}
				n := 20000 + rng.IntN(40000)
				if vktest.Short() {
					n /= 4 // still several chunks for 3, 17 and 200 processors
				}
				plan, err := radix.NewPlan(ctx, uint64(n), s)
				switch {
				case err != nil && counts == radix.CountsFused && bits > radix.MaxFusedBits:
					if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "fused counts do not apply") {
						t.Fatalf("%+v: %v, want ErrInvalid naming the fused counts", s, err)
					}
					continue
				case err != nil:
					t.Fatalf("%+v: %v", s, err)
				case counts == radix.CountsFused && bits > radix.MaxFusedBits:
					t.Fatalf("%+v: fused counts accepted for %d-bit digits", s, bits)
				}
				tu := plan.Tuning()
				switch {
				case tu.FusedCounts && counts == radix.CountsSeparate:
					t.Fatalf("%+v: fused counts with CountsSeparate", s)
				case !tu.FusedCounts && counts == radix.CountsFused:
					t.Fatalf("%+v: no fused counts with CountsFused (%d passes)", s, tu.Passes)
				case tu.FusedCounts:
					fused[bits]++
				}
				c := sortCase{sort: s, keys: keyData(rng, typ, n, patterns[i%len(patterns)])}
				if i%4 == 1 {
					c.gpuCount, c.count = true, uint32(n-rng.IntN(n/2))
				}
				runSort(t, ctx, c)
			}
		}
	}
	for _, bits := range []uint32{1, 2, 4, 5, 6} {
		if fused[bits] == 0 {
			t.Errorf("no plan with %d-bit digits took the fused counts", bits)
		}
	}
	t.Logf("plans with fused counts, by digit bits: %v", fused)
}

// TestSortRecordTimed checks the timed recording: the phase names of a
// fused and of a separate plan, a refused short timer, a timed sort whose
// output is right, and for every shape of recording (no keys, no bits, in
// place with a copy back, fused and separate, the single pass) that it
// writes exactly the stamps Phases names: one too few leaves a query
// unavailable, one too many is past the pool (a validation error).
func TestSortRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	const n = 5000
	s := radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 12, Options: radix.Options{DigitBits: 4, Counts: radix.CountsFused}}
	plan, err := radix.NewPlan(ctx, n, s)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"count", "scan", "clear", "scatter", "scan", "clear", "scatter", "scan", "scatter"}
	if got := plan.Phases(); !slices.Equal(got, want) {
		t.Fatalf("fused phases %v, want %v", got, want)
	}
	s.Counts = radix.CountsSeparate
	sep, err := radix.NewPlan(ctx, n, s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sep.Phases(), []string{"count", "scan", "scatter", "count", "scan", "scatter", "count", "scan", "scatter"}; !slices.Equal(got, want) {
		t.Fatalf("separate phases %v, want %v", got, want)
	}
	keys := make([]uint32, n)
	rng := vktest.Rand(t)
	for i := range keys {
		keys[i] = rng.Uint32() & 0xfff
	}
	in, out := vktest.NewPoisoned(t, ctx, 4*n), vktest.NewPoisoned(t, ctx, 4*n)
	scratch := vktest.NewPoisoned(t, ctx, 1<<20)
	if err := vk.Upload(in.Range(0, 4*n), keys); err != nil {
		t.Fatal(err)
	}
	b := radix.Buffers{Keys: in.Range(0, 4*n), KeysOut: out.Range(0, 4*n), Scratch: scratch.Range(0, plan.ScratchSize())}
	short, err := ctx.NewTimer(uint32(len(want)))
	if err != nil {
		t.Skip(err) // no timestamps on this queue
	}
	defer short.Release()
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) { plan.RecordTimed(r, b, short) })
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "needs a timer of 10 queries") {
		t.Fatalf("short timer: %v", err)
	}
	timed := func(plan *radix.Plan, b radix.Buffers) *vk.Timer {
		t.Helper()
		timer, err := ctx.NewTimer(uint32(len(plan.Phases()) + 1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(timer.Release)
		err = ctx.Submit(func(cb vk.CommandBuffer) error {
			timer.Reset(cb)
			r := pipeline.Record(cb)
			plan.RecordTimed(r, b, timer)
			return r.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := timer.Ticks(); err != nil {
			t.Fatalf("phases %v: %v", plan.Phases(), err)
		}
		return timer
	}
	timer := timed(plan, b)
	if ns, err := timer.Nanoseconds(0, uint32(len(want))); err != nil || ns <= 0 {
		t.Fatalf("timed sort: %v ns, %v", ns, err)
	}
	got := make([]uint32, n)
	if err := vk.Download(out.Range(0, 4*n), got); err != nil {
		t.Fatal(err)
	}
	ref := slices.Clone(keys)
	slices.Sort(ref)
	if !slices.Equal(got, ref) {
		t.Fatalf("timed sort: wrong output")
	}

	for _, c := range []struct {
		name  string
		n     uint64
		sort  radix.Sort
		first string // Phases()[0]
		last  string
	}{
		{"no keys", 0, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}, "copy", "copy"},
		{"no bits", n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), BeginBit: 4, EndBit: 4}, "copy", "copy"},
		{"no bits in place", n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), BeginBit: 4, EndBit: 4, InPlace: true}, "copy", "copy"},
		{"in place, fused, copy back", n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 12, InPlace: true, Options: radix.Options{DigitBits: 4, Counts: radix.CountsFused}}, "count", "copy"},
		{"in place, separate, copy back", n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 12, InPlace: true, Options: radix.Options{DigitBits: 4, Counts: radix.CountsSeparate}}, "count", "copy"},
		{"in place, fused, even", n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 8, InPlace: true, Options: radix.Options{DigitBits: 4, Counts: radix.CountsFused}}, "count", "scatter"},
		{"single pass", n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 16, Options: radix.Options{Path: vkcompact.PathSinglePass, DigitBits: 4}}, "histogram", "pass"},
		{"single pass in place, copy back", n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), EndBit: 12, InPlace: true, Options: radix.Options{Path: vkcompact.PathSinglePass, DigitBits: 4}}, "histogram", "copy"},
	} {
		p, err := radix.NewPlan(ctx, c.n, c.sort)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		names := p.Phases()
		if names[0] != c.first || names[len(names)-1] != c.last {
			t.Fatalf("%s: phases %v, want %s first and %s last", c.name, names, c.first, c.last)
		}
		cb := radix.Buffers{Keys: in.Range(0, 4*n), Scratch: scratch.Range(0, p.ScratchSize())}
		if !c.sort.InPlace {
			cb.KeysOut = out.Range(0, 4*n)
		}
		timed(p, cb)
	}
}

// TestSortFusedManyCrossings gives the first processor of a 6-bit pass
// runs of k keys of every digit, with digit totals skewed so that most
// of its runs cross the next pass's chunk boundaries, in a workgroup of
// one subgroup, one key per lane: many crossing rounds, each with its
// flush and recount loops. On lavapipe those loops count against its
// limit of loop iterations per invocation, which silently ends a shader
// that passes it; the plan's chunks must stay under it.
func TestSortFusedManyCrossings(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	const digits, k = 64, 40
	chunk := digits * k
	for _, m := range []int{30, 58} { // runs 1..m cross
		total := make([]int, digits)
		for d := range total {
			total[d] = chunk
		}
		total[0] -= k / 2
		total[m] += k / 2
		key := func(d int) uint64 { return uint64(rng.Uint32()&^(digits-1) | uint32(d)) }
		var keys, rest []uint64
		for d := range digits {
			for range k {
				keys = append(keys, key(d))
			}
			for range total[d] - k {
				rest = append(rest, key(d))
			}
		}
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		keys = append(keys, rest...)
		for _, tails := range []radix.Tails{radix.TailsWrite, radix.TailsHold} {
			s := radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, EndBit: 12, Options: radix.Options{DigitBits: 6, WorkgroupSize: ctx.Info().MaxSubgroupSize,
				KeysPerLane: 1, Processors: digits, Counts: radix.CountsFused, Tails: tails}}
			runSort(t, ctx, sortCase{sort: s, keys: keys})
		}
	}
}

// TestSortFusedWherePassesFit checks automatic counts where only the
// narrower passes' counters fit shared memory: 6-bit digits (passes of 6,
// 6, 5, 5, 5, 5 bits) with rounds too large for 64^2 counters beside them
// but not for 32^2. The two 6-bit passes and the first 5-bit pass have
// count phases, the later 5-bit passes are counted by the scatter before;
// the output is checked.
func TestSortFusedWherePassesFit(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	wg := 8 * info.MaxSubgroupSize
	const n = 3 * 16 * 1024 * 2
	ran := map[radix.Tails]bool{}
	for _, tails := range []radix.Tails{radix.TailsWrite, radix.TailsHold} {
		for kpl := uint32(1); kpl <= radix.MaxKeysPerLane && !ran[tails]; kpl++ {
			o := radix.Options{DigitBits: 6, KeysPerLane: kpl, WorkgroupSize: wg, Processors: 3, Tails: tails}
			forced := o
			forced.Counts = radix.CountsFused
			if _, err := radix.NewPlan(ctx, n, radix.Sort{Values: true, Options: forced}); err == nil || !strings.Contains(err.Error(), "fused counts do not apply") {
				continue // 6-bit counters fit: not the case looked for
			}
			s := radix.Sort{Values: true, Options: o}
			five := o
			five.DigitBits, five.Counts = 5, radix.CountsFused
			if _, err := radix.NewPlan(ctx, n, radix.Sort{Values: true, Options: five}); err != nil {
				continue // nor do 5-bit ones: not the case either
			}
			plan, err := radix.NewPlan(ctx, n, s)
			if err != nil {
				t.Fatalf("%+v: %v", o, err)
			}
			want := "count scan scatter count scan scatter count scan clear scatter scan clear scatter scan clear scatter scan scatter"
			if got := strings.Join(plan.Phases(), " "); got != want || !plan.Tuning().FusedCounts || plan.Tuning().HeldTails != (tails == radix.TailsHold) {
				t.Fatalf("%+v: phases %q (tuning %+v), want %q", o, got, plan.Tuning(), want)
			}
			runSort(t, ctx, sortCase{sort: s, keys: keyData(rng, vkcompact.Uint32, n+rng.IntN(1000), "random")})
			ran[tails] = true
		}
	}
	if len(ran) == 0 {
		t.Skipf("no keys per lane with 5-bit but not 6-bit counters fitting %d bytes of shared memory at workgroup %d", info.MaxSharedMemory, wg)
	}
	t.Logf("ran with tails %v", ran)
}

// TestSortHeldTails sorts with the scatter holding each round's last
// partial block of a digit run back for the next round (radix.TailsHold)
// over digit widths, keys per lane (so rounds of a few keys to thousands,
// runs shorter and longer than a block), processor counts, fused and
// separate counts, key types, GPU-side counts and sizes from 0 up; and
// checks that the plans take the held tails where asked, never where told
// to write, and by default only for pairs on a GPU.
func TestSortHeldTails(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	i, ran := 0, 0
	for _, bits := range []uint32{1, 3, 4, 5, 6} {
		for _, kpl := range []uint32{1, 3, 8, 16} {
			i++
			typ := keyTypes[(i/4+int(bits))%len(keyTypes)] // not in step with the processors
			s := radix.Sort{Elem: vkcompact.Plain(typ), Values: i%2 == 0, InPlace: i%3 == 0, Descending: i%5 == 0,
				Options: radix.Options{DigitBits: bits, KeysPerLane: kpl, Processors: []uint32{0, 3, 17, 200}[i%4],
					Counts: []radix.Counts{radix.CountsFused, radix.CountsSeparate}[(i/2)%2], Tails: radix.TailsHold}}
			if bits <= 3 {
				s.EndBit = 9 // 3 to 9 passes, not 64
			}
			if i%3 != 1 {
				s.WorkgroupSize = 4 * info.MaxSubgroupSize // rounds of a few keys: chunks of many rounds
			}
			n := []int{0, 1, 7, 9, 100, 4097}[i%6] + (5000+rng.IntN(30000))*min(i%5, 1)
			plan, err := radix.NewPlan(ctx, uint64(n), s)
			if err != nil {
				if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "shared memory") {
					t.Fatalf("%+v: %v", s, err)
				}
				t.Logf("%d-bit digits, %d keys per lane: %v", bits, kpl, err)
				continue
			}
			ran++
			if !plan.Tuning().HeldTails {
				t.Fatalf("%+v: TailsHold not taken", s)
			}
			c := sortCase{sort: s, keys: keyData(rng, typ, n, patterns[i%len(patterns)]), off: info.MinStorageBufferOffsetAlignment * uint64(i%3)}
			if i%4 == 1 {
				c.gpuCount, c.count = true, uint32(n-rng.IntN(n/2+1))
			}
			runSort(t, ctx, c)
		}
	}
	if ran < 10 {
		t.Fatalf("only %d of 20 held-tails plans fit shared memory", ran)
	}
	for _, c := range []struct {
		s    radix.Sort
		want bool
	}{
		{radix.Sort{Values: true, Options: radix.Options{Tails: radix.TailsWrite}}, false},
		{radix.Sort{Values: true, Options: radix.Options{DigitBits: 5, KeysPerLane: 4}}, info.Type != "cpu"},
		{radix.Sort{Options: radix.Options{DigitBits: 5, KeysPerLane: 4}}, false},
		{radix.Sort{Options: radix.Options{DigitBits: 5, KeysPerLane: 4, Tails: radix.TailsHold}}, true},
	} {
		plan, err := radix.NewPlan(ctx, 100000, c.s)
		if err != nil {
			t.Fatalf("%+v: %v", c.s, err)
		}
		if got := plan.Tuning().HeldTails; got != c.want {
			t.Errorf("%+v on %s: held tails %v, want %v", c.s, info.Type, got, c.want)
		}
	}
}
