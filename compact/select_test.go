package compact_test

import (
	"bytes"
	"encoding/binary"
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

// selCase is one selection to run and check.
type selCase struct {
	n       int
	sel     compact.Selection
	c       refConst                    // the constant, for comparisons
	keep    []bool                      // nonzero and flagged: which to keep (nil: keys decide)
	keys    func(rng *rand.Rand) uint64 // key bits when keep is nil
	srcOff  uint64                      // byte offsets of the ranges in their buffers
	dstOff  uint64
	flagOff uint64
	// gpuCount passes count through Buffers.Count: the selection then
	// covers min(count, n) elements.
	gpuCount bool
	count    uint32
	// segBytes, when set, plans with compact.NewPlanSegmentLimit: the
	// three phases then bind segments of at most segBytes bytes.
	segBytes uint64
	// windowBytes, when set, plans with compact.NewPlanWindowLimit: the
	// single pass then binds at most windowBytes bytes at once.
	windowBytes uint64
}

func (c selCase) String() string {
	s := fmt.Sprintf("n=%d %v stride=%d key@%d keep=%v split=%v reversed=%v inplace=%v %+v",
		c.n, c.sel.Elem.Key, c.sel.Elem.Size(), c.sel.Elem.KeyOffset, c.sel.Keep, c.sel.Split, c.sel.ReverseRejected, c.sel.InPlace, c.sel.Options)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	if c.segBytes != 0 {
		s += fmt.Sprintf(" segments of %d bytes", c.segBytes)
	}
	if c.windowBytes != 0 {
		s += fmt.Sprintf(" windows of %d bytes", c.windowBytes)
	}
	return s
}

// runSel runs c on the GPU, through Plan.Record into a command buffer of
// the context's own, with every written buffer poisoned first, and checks
// the output, the result block and the bytes around the output.
func runSel(t *testing.T, ctx *vk.Context, rng *rand.Rand, c selCase) {
	t.Helper()
	if err := tryRunSel(ctx, rng, c, t); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

func tryRunSel(ctx *vk.Context, rng *rand.Rand, c selCase, t testing.TB) error {
	e := c.sel.Elem
	e.Key = e.Key.OrUint32() // a plan's default
	size := int(e.Size())
	n := c.n
	data := make([]byte, n*size)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var flags []uint32
	flagBytes := int(c.sel.Keep.FlagBytes)
	switch {
	case c.sel.Keep.Op == compact.Flagged:
		flags = make([]uint32, n)
		for i := range flags {
			if c.keep[i] {
				flags[i] = 1 + rng.Uint32N(0xffffffff)
				if flagBytes == 1 {
					flags[i] = 1 + rng.Uint32N(255)
				}
			}
		}
	case c.keep != nil:
		for i := 0; i < n; i++ {
			bits := uint64(0)
			if c.keep[i] {
				bits = randomNonZero(rng, e.Key)
			} else if rng.IntN(2) == 0 && (e.Key == vkcompact.Float32 || e.Key == vkcompact.Float64) {
				bits = 1 << (8*e.Key.Size() - 1) // -0.0: zero too
			}
			setKey(data, e, i, bits)
		}
	default:
		for i := 0; i < n; i++ {
			setKey(data, e, i, c.keys(rng))
		}
	}
	nEff := n // the elements the selection covers
	if c.gpuCount {
		nEff = min(n, int(c.count))
	}
	want, kept := reference(data, flags, e, c.sel.Keep.Op, c.c, nEff, c.sel.Split)
	if c.sel.Split && c.sel.ReverseRejected {
		rej := want[kept*size:]
		for i, j := 0, len(rej)-size; i < j; i, j = i+size, j-size {
			for b := 0; b < size; b++ {
				rej[i+b], rej[j+b] = rej[j+b], rej[i+b]
			}
		}
	}

	var p *compact.Plan
	var err error
	switch {
	case c.segBytes != 0:
		p, err = compact.NewPlanSegmentLimit(ctx, uint64(n), c.sel, c.segBytes)
	case c.windowBytes != 0:
		p, err = compact.NewPlanWindowLimit(ctx, uint64(n), c.sel, c.windowBytes)
	default:
		p, err = compact.NewPlan(ctx, uint64(n), c.sel)
	}
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	const guard = 64
	nb := uint64(n * size)
	src := vktest.NewPoisoned(t, ctx, c.srcOff+nb+guard)
	if err := vk.Upload(src.Range(c.srcOff, nb), data); err != nil {
		return err
	}
	b := compact.Buffers{Src: src.Range(c.srcOff, nb)}
	var dst *vk.Buffer
	if c.sel.InPlace {
		dst = src
	} else {
		dst = vktest.NewPoisoned(t, ctx, c.dstOff+nb+guard)
		b.Dst = dst.Range(c.dstOff, nb)
	}
	if flags != nil {
		raw := make([]byte, 0, n*flagBytes)
		for _, f := range flags {
			if flagBytes == 1 {
				raw = append(raw, byte(f))
			} else {
				raw = binary.LittleEndian.AppendUint32(raw, f)
			}
		}
		fb := vktest.NewPoisoned(t, ctx, c.flagOff+uint64(len(raw))+4)
		if err := vk.Upload(fb.Range(c.flagOff, uint64(len(raw))), raw); err != nil {
			return err
		}
		b.Flags = fb.Range(c.flagOff, uint64(len(raw)))
	}
	res := vktest.NewPoisoned(t, ctx, compact.ResultSize)
	b.Result = res.Range(0, compact.ResultSize)
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	b.Scratch = scratch.Range(0, p.ScratchSize())
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

	// The result block.
	var block [12]uint32
	if err := vk.Download(b.Result, block[:]); err != nil {
		return err
	}
	if int(block[0]) != kept || int(block[1]) != nEff-kept || int(block[2]) != nEff {
		return fmt.Errorf("result block kept/rejected/total %d/%d/%d, want %d/%d/%d", block[0], block[1], block[2], kept, nEff-kept, nEff)
	}
	if err := checkDispatch(block[4:7], kept, c.sel.GroupSize, ctx.Info().MaxWorkgroupCount[0]); err != nil {
		return err
	}
	if draw := block[8:12]; int(draw[0]) != kept || draw[1] != 1 || draw[2] != 0 || draw[3] != 0 {
		return fmt.Errorf("draw arguments %v, want [%d 1 0 0]", draw, kept)
	}

	// The output, and the bytes around it.
	got := make([]byte, dst.Size())
	if err := vk.Download(dst.All(), got); err != nil {
		return err
	}
	off := c.dstOff
	if c.sel.InPlace {
		off = c.srcOff
	}
	out := got[off : off+uint64(len(want))]
	if !bytes.Equal(out, want) {
		first, bad := -1, 0
		for i := 0; i < len(want); i += size {
			if !bytes.Equal(out[i:i+size], want[i:i+size]) {
				if first < 0 {
					first = i
				}
				bad++
			}
		}
		return fmt.Errorf("output differs from the reference at %d of %d elements (%d kept), first at element %d: got % x, want % x",
			bad, len(want)/size, kept, first/size, out[first:first+size], want[first:first+size])
	}
	pre, post := got[:off], got[off+uint64(len(want)):]
	if c.sel.InPlace {
		// Before the range: poison; after the output: the input's old bytes.
		if !bytes.Equal(pre, vktest.PoisonBytes(off)) {
			return fmt.Errorf("bytes before the in-place range were written")
		}
		tail := data[len(want):]
		if !bytes.Equal(post[:len(tail)], tail) {
			return fmt.Errorf("the in-place buffer changed after the %d kept elements", kept)
		}
		return nil
	}
	if !bytes.Equal(pre, vktest.PoisonBytes(uint64(len(pre)))) {
		return fmt.Errorf("bytes before the destination were written")
	}
	poisoned := vktest.PoisonBytes(uint64(len(got)))
	if !bytes.Equal(post, poisoned[off+uint64(len(want)):]) {
		for i := range post {
			if post[i] != poisoned[int(off)+len(want)+i] {
				return fmt.Errorf("byte %d after the %d output elements was written", i, len(want)/size)
			}
		}
	}
	return nil
}

// checkDispatch checks a VkDispatchIndirectCommand for kept elements in
// workgroups of group (64 when 0).
func checkDispatch(d []uint32, kept int, group, maxX uint32) error {
	if group == 0 {
		group = 64
	}
	groups := (uint64(kept) + uint64(group) - 1) / uint64(group)
	x, y, z := uint64(d[0]), uint64(d[1]), uint64(d[2])
	if groups == 0 {
		if x != 0 {
			return fmt.Errorf("dispatch arguments %v for no elements", d)
		}
		return nil
	}
	if z != 1 || x > uint64(maxX) || x*y < groups || x*(y-1) >= groups {
		return fmt.Errorf("dispatch arguments %v for %d workgroups (x at most %d)", d, groups, maxX)
	}
	return nil
}

var allTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}

func nonzero(t vkcompact.Type) compact.Selection {
	return compact.Selection{Elem: vkcompact.Plain(t), Keep: compact.KeepNonZero()}
}

// TestSelectSizes runs the sizes, compaction and split, out of
// place and in place.
func TestSelectSizes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, n := range []int{0, 1, 2, 3, 31, 32, 33, 127, 128, 129, 4095, 4097, 65537, 1<<20 + 12345} {
		for _, split := range []bool{false, true} {
			for _, inPlace := range []bool{false, true} {
				sel := nonzero(vkcompact.Uint32)
				sel.Split, sel.InPlace = split, inPlace
				runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.5)})
			}
		}
	}
}

// TestSelectRatios runs every keep ratio and pattern.
func TestSelectRatios(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, pattern := range []string{patRandom, patRuns, patAlternating, patAll, patNone} {
		for _, ratio := range []float64{0, 0.001, 0.1, 0.5, 0.9, 1} {
			if (pattern == patAll || pattern == patNone || pattern == patAlternating) && ratio != 0.5 {
				continue // the ratio does not change these
			}
			for _, split := range []bool{false, true} {
				sel := nonzero(vkcompact.Uint32)
				sel.Split = split
				n := 65537 + rng.IntN(1000)
				runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, pattern, ratio)})
			}
		}
	}
}

// specialKeys returns key bits drawn from values that stress comparisons:
// for floats, signed zeros, infinities, NaNs, denormals and values near
// the constant; for integers, the type's extremes and values near it.
func specialKeys(t vkcompact.Type, c refConst) func(*rand.Rand) uint64 {
	return func(rng *rand.Rand) uint64 {
		switch t {
		case vkcompact.Float32:
			vals := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
				math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
				float32(c.f), math.Nextafter32(float32(c.f), 0), math.Nextafter32(float32(c.f), math.MaxFloat32), -float32(c.f)}
			if rng.IntN(3) == 0 {
				return uint64(rng.Uint32())
			}
			if rng.IntN(20) == 0 {
				return uint64(0x7fc00000 | rng.Uint32N(0x3fffff) | rng.Uint32N(2)<<31) // NaNs of any sign and payload
			}
			return uint64(math.Float32bits(vals[rng.IntN(len(vals))]))
		case vkcompact.Float64:
			vals := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -5e-324,
				math.MaxFloat64, -math.MaxFloat64, c.f, math.Nextafter(c.f, 0), math.Nextafter(c.f, math.Inf(1)), -c.f}
			if rng.IntN(3) == 0 {
				return rng.Uint64()
			}
			return math.Float64bits(vals[rng.IntN(len(vals))])
		}
		bits := uint(8 * t.Size())
		mask := uint64(math.MaxUint64) >> (64 - bits)
		vals := []uint64{0, 1, mask, mask >> 1, (mask >> 1) + 1, c.u, c.u + 1, c.u - 1, uint64(c.i), uint64(c.i) + 1, uint64(c.i) - 1}
		if rng.IntN(3) == 0 {
			return rng.Uint64() & mask
		}
		return vals[rng.IntN(len(vals))] & mask
	}
}

// constants returns test constants for t.
func constants(t vkcompact.Type) []refConst {
	switch t {
	case vkcompact.Uint32:
		return []refConst{{u: 0}, {u: 1000}, {u: math.MaxUint32}}
	case vkcompact.Uint64:
		return []refConst{{u: 1 << 40}, {u: math.MaxUint64}}
	case vkcompact.Int32:
		return []refConst{{i: -5}, {i: 0}, {i: math.MinInt32}}
	case vkcompact.Int64:
		return []refConst{{i: -1 << 40}, {i: math.MaxInt64}}
	case vkcompact.Float32:
		return []refConst{{f: 0}, {f: -1.5}, {f: math.Inf(1)}, {f: 0.1}}
	}
	return []refConst{{f: math.Copysign(0, -1)}, {f: 1e300}, {f: math.Inf(-1)}}
}

func (c refConst) value(t vkcompact.Type) compact.Value {
	switch t {
	case vkcompact.Uint32, vkcompact.Uint64:
		return compact.Uint(c.u)
	case vkcompact.Int32, vkcompact.Int64:
		return compact.Int(c.i)
	}
	return compact.Float(c.f)
}

// TestSelectTypes runs every type with every operator against constants
// near its edges, on keys that hit them.
func TestSelectTypes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	ops := []compact.Op{compact.NonZero, compact.Equal, compact.NotEqual, compact.Less, compact.LessEqual, compact.Greater, compact.GreaterEqual, compact.MaskAny}
	for ti, typ := range allTypes {
		for oi, op := range ops {
			float := typ == vkcompact.Float32 || typ == vkcompact.Float64
			if op == compact.MaskAny && float {
				continue
			}
			if vktest.Short() && !float && (ti+oi)%2 != 0 {
				continue // the short form: every op on both float types (NaN, -0) and on two of the integer ones
			}
			for ci, c := range constants(typ) {
				if op == compact.NonZero && ci > 0 {
					continue
				}
				keep := compact.KeepIf(op, c.value(typ))
				if op == compact.MaskAny {
					c = refConst{u: 0x8000_0101, i: 0x8000_0101}
					if typ == vkcompact.Int32 {
						c.u = 0xffffffff_80000101 // the mask as int32 -0x7ffffeff, sign-extended by the reference
					}
					keep = compact.KeepMask(0x8000_0101)
				}
				sel := compact.Selection{Elem: vkcompact.Plain(typ), Keep: keep, Split: rng.IntN(2) == 0, InPlace: rng.IntN(3) == 0}
				runSel(t, ctx, rng, selCase{n: 4097 + rng.IntN(3000), sel: sel, c: c, keys: specialKeys(typ, c)})
			}
		}
	}
	// Every type once at a large size, ratio 0.5.
	for _, typ := range allTypes {
		n := 1<<20 + 12345
		runSel(t, ctx, rng, selCase{n: n, sel: nonzero(typ), keep: keepMask(rng, n, patRandom, 0.5)})
	}
}

// TestSelectStructs runs structs of several strides, the key at several
// offsets, both write strategies.
func TestSelectStructs(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	cases := []vkcompact.Elem{
		vkcompact.Struct(12, 4, vkcompact.Float32),
		vkcompact.Struct(12, 4, vkcompact.Uint64),
		vkcompact.Struct(32, 28, vkcompact.Float32), // a particle: age at the end
		vkcompact.Struct(32, 0, vkcompact.Int64),
		vkcompact.Struct(48, 40, vkcompact.Float64), // a ray: tmax
		vkcompact.Struct(48, 12, vkcompact.Uint32),
		vkcompact.Struct(8, 4, vkcompact.Uint32),
		vkcompact.Struct(16, 8, vkcompact.Int32),
		vkcompact.Struct(20, 16, vkcompact.Uint32),
		vkcompact.Struct(256, 252, vkcompact.Uint32),
		vkcompact.Struct(4, 0, vkcompact.Float32),
	}
	for ei, e := range cases {
		for wi, w := range []compact.Write{compact.WriteScattered, compact.WriteStaged} {
			for mi, mode := range []struct{ split, inPlace bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				if vktest.Short() && (ei+wi+mi)%2 != 0 {
					continue // the short form: two of the four modes per element and write, in turn
				}
				n := 1 + rng.IntN(20000)
				sel := compact.Selection{Elem: e, Keep: compact.KeepNonZero(), Split: mode.split, InPlace: mode.inPlace}
				sel.Write = w
				if w == compact.WriteStaged && e.Size() > 16 {
					// The stage must fit shared memory.
					sel.WorkgroupSize = max(64, ctx.Info().MaxSubgroupSize)
					sel.LoadsPerLane = 1
				}
				runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, rng.Float64())})
			}
		}
	}
}

// TestSelectFlagged keeps by uint8 and uint32 flags.
func TestSelectFlagged(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, fb := range []uint32{1, 4} {
		for _, n := range []int{1, 3, 5, 4097, 65539} {
			for _, e := range []vkcompact.Elem{vkcompact.Plain(vkcompact.Float32), vkcompact.Struct(32, 0, vkcompact.Uint32), vkcompact.Plain(vkcompact.Float64)} {
				sel := compact.Selection{Elem: e, Keep: compact.KeepFlagged(fb), Split: rng.IntN(2) == 0}
				runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.3)})
			}
		}
	}
}

// TestSelectTuning varies the tuning: processors from 1 to more than one
// scan workgroup holds, loads per lane, workgroup sizes, both writes, and
// range offsets.
func TestSelectTuning(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sg := ctx.Info().MaxSubgroupSize
	align := ctx.Info().MinStorageBufferOffsetAlignment
	for oi, o := range []compact.Options{
		{Processors: 1},
		{Processors: 1, Write: compact.WriteStaged}, // one long walk: see maxChunk
		{Processors: 2, Write: compact.WriteScattered},
		{Processors: 3000},
		{Processors: 5000, LoadsPerLane: 1},
		{LoadsPerLane: 3, Write: compact.WriteStaged},
		{LoadsPerLane: 4, WorkgroupSize: sg},
		{WorkgroupSize: min(1024, ctx.Info().MaxWorkgroupInvocations), Write: compact.WriteStaged}, // the largest the device allows, up to 1024
		{GroupSize: 1},
		{GroupSize: 1000},
	} {
		for ei, e := range []vkcompact.Elem{vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Uint64), vkcompact.Struct(12, 8, vkcompact.Uint32)} {
			if vktest.Short() && (oi+ei)%3 == 0 {
				continue // the short form: two of the three elements, in turn
			}
			n := 300000 + rng.IntN(1000)
			sel := compact.Selection{Elem: e, Keep: compact.KeepNonZero(), Split: rng.IntN(2) == 0, Options: o}
			runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRandom, 0.7),
				srcOff: align * uint64(rng.IntN(4)), dstOff: align * uint64(rng.IntN(4))})
		}
	}
}

// TestSelectAboveMaxRange selects from buffers larger than the device's
// maxStorageBufferRange (lavapipe: 128 MiB, 2^25 uint32), so the input is
// cut into segments and the output written page by page.
func TestSelectAboveMaxRange(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	info := ctx.Info()
	if uint64(info.MaxStorageBufferRange) > 1<<28 {
		t.Skipf("maxStorageBufferRange %d: too large to exceed here", info.MaxStorageBufferRange)
	}
	rng := vktest.Rand(t)
	maxRange := int(info.MaxStorageBufferRange)
	n := maxRange/4 + 1234567 // uint32 elements
	for _, mode := range []struct{ split, inPlace, single bool }{{false, false, false}, {true, false, false}, {false, true, false}, {true, false, true}} {
		sel := nonzero(vkcompact.Uint32)
		sel.Split, sel.InPlace = mode.split, mode.inPlace
		if mode.single { // in two windows
			sel.Path, sel.ReverseRejected = vkcompact.PathSinglePass, true
		}
		runSel(t, ctx, rng, selCase{n: n, sel: sel, keep: keepMask(rng, n, patRuns, 0.6)})
	}
	// Structs of 48 bytes: more than two segments.
	n = 2*maxRange/48 + 777
	sel := compact.Selection{Elem: vkcompact.Struct(48, 16, vkcompact.Float32), Keep: compact.KeepIf(compact.Greater, compact.Float(0))}
	runSel(t, ctx, rng, selCase{n: n, sel: sel, c: refConst{f: 0}, keys: specialKeys(vkcompact.Float32, refConst{f: 0})})
}

// TestSlice runs the host-slice helpers.
func TestSlice(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	data := make([]float32, 10001)
	for i := range data {
		data[i] = rng.Float32() - 0.5
	}
	got, res, err := compact.SelectSlice(ctx, data, compact.Selection{Elem: vkcompact.Plain(vkcompact.Float32), Keep: compact.KeepIf(compact.Greater, compact.Float(0))})
	if err != nil {
		t.Fatal(err)
	}
	var want []float32
	for _, v := range data {
		if v > 0 {
			want = append(want, v)
		}
	}
	if len(got) != len(want) || int(res.Kept) != len(want) || int(res.Total) != len(data) {
		t.Fatalf("kept %d (result %+v), want %d", len(got), res, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("element %d: %v, want %v", i, got[i], want[i])
		}
	}

	type particle struct {
		Pos, Vel  [3]float32
		Age, Life float32
	}
	ps := make([]particle, 5000)
	alive := make([]uint8, len(ps))
	for i := range ps {
		ps[i].Age = float32(i)
		if rng.IntN(4) != 0 {
			alive[i] = 1
		}
	}
	out, res, err := compact.SelectFlaggedSlice(ctx, ps, alive, compact.Selection{Elem: vkcompact.Struct(32, 24, vkcompact.Float32), Split: true, InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(ps) {
		t.Fatalf("split returned %d elements, want %d", len(out), len(ps))
	}
	k := 0
	for i := range ps {
		if alive[i] != 0 {
			if out[k] != ps[i] {
				t.Fatalf("kept element %d: %+v, want %+v", k, out[k], ps[i])
			}
			k++
		}
	}
	if int(res.Kept) != k {
		t.Fatalf("kept %d, want %d", res.Kept, k)
	}
	if empty, res, err := compact.SelectSlice(ctx, []uint64{}, nonzero(vkcompact.Uint64)); err != nil || len(empty) != 0 || res.Total != 0 {
		t.Fatalf("empty slice: %v %+v %v", empty, res, err)
	}
}

// TestSelectBadInput checks that bad selections and buffers are refused
// with errors matching vk.ErrInvalid, and nothing is run.
func TestSelectBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	u32 := nonzero(vkcompact.Uint32)
	for _, c := range []struct {
		name string
		n    uint64
		sel  compact.Selection
	}{
		{"stride not a multiple of 4", 10, compact.Selection{Elem: vkcompact.Struct(10, 0, vkcompact.Uint32)}},
		{"stride too large", 10, compact.Selection{Elem: vkcompact.Struct(260, 0, vkcompact.Uint32)}},
		{"key outside the stride", 10, compact.Selection{Elem: vkcompact.Struct(8, 8, vkcompact.Uint32)}},
		{"wide key across the end", 10, compact.Selection{Elem: vkcompact.Struct(12, 8, vkcompact.Uint64)}},
		{"key offset unaligned", 10, compact.Selection{Elem: vkcompact.Struct(12, 2, vkcompact.Uint32)}},
		{"unknown type", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Type(9))}},
		{"too many elements", 1 << 32, u32},
		{"constant out of range", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepIf(compact.Less, compact.Int(-5))}},
		{"constant too large", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Int32), Keep: compact.KeepIf(compact.Less, compact.Uint(1<<31))}},
		{"float constant for an integer key", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Int64), Keep: compact.KeepIf(compact.Less, compact.Float(0.5))}},
		{"inexact integer for f32", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Float32), Keep: compact.KeepIf(compact.Less, compact.Uint(1<<24+1))}},
		{"f32 constant overflows", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Float32), Keep: compact.KeepIf(compact.Less, compact.Float(1e39))}},
		{"mask on a float", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Float32), Keep: compact.KeepMask(1)}},
		{"mask wider than u32", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepMask(1 << 32)}},
		{"flags of 2 bytes", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepFlagged(2)}},
		{"unknown op", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.Keep{Op: 42}}},
		{"workgroup not a subgroup multiple", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Options: compact.Options{WorkgroupSize: ctx.Info().MaxSubgroupSize + 1}}},
		{"too many loads", 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Options: compact.Options{LoadsPerLane: 5}}},
	} {
		_, err := compact.NewPlan(ctx, c.n, c.sel)
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: got %v, want an error matching vk.ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}

	// Buffers that do not fit the plan.
	p, err := compact.NewPlan(ctx, 100, u32)
	if err != nil {
		t.Fatal(err)
	}
	buf := vktest.NewPoisoned(t, ctx, 4096)
	other := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	good := compact.Buffers{Src: buf.Range(0, 400), Dst: buf.Range(1024, 400), Result: buf.Range(2048, 48), Scratch: other.Range(0, p.ScratchSize())}
	align := ctx.Info().MinStorageBufferOffsetAlignment
	for _, c := range []struct {
		name string
		edit func(b *compact.Buffers)
	}{
		{"no source", func(b *compact.Buffers) { b.Src = vk.Range{} }},
		{"source too small", func(b *compact.Buffers) { b.Src.Size = 396 }},
		{"destination too small", func(b *compact.Buffers) { b.Dst.Size = 100 }},
		{"no result", func(b *compact.Buffers) { b.Result = vk.Range{} }},
		{"scratch too small", func(b *compact.Buffers) { b.Scratch.Size = 16 }},
		{"overlap", func(b *compact.Buffers) { b.Dst = buf.Range(256, 400) }},
		{"result in the output", func(b *compact.Buffers) { b.Result = buf.Range(1024, 48) }},
		{"range past the end", func(b *compact.Buffers) { b.Dst = buf.Range(4000, 400) }},
		{"unaligned offset", func(b *compact.Buffers) { b.Dst = buf.Range(1024+align/2, 400) }},
	} {
		if align < 2 && c.name == "unaligned offset" {
			continue
		}
		b := good
		c.edit(&b)
		err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		if err == nil {
			t.Errorf("%s: no error", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if _, err := p.Run(good); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}
}

// TestSelectGPUCount takes the element count from a GPU buffer: below, at
// and above the plan's n, for compactions and splits, in place and not,
// over keys, structs and uint8 flags. Elements past the count must stay
// as they were (in place) or unwritten (poisoned destinations).
func TestSelectGPUCount(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sels := []compact.Selection{
		nonzero(vkcompact.Uint32),
		nonzero(vkcompact.Float64),
		{Elem: vkcompact.Struct(32, 28, vkcompact.Float32), Keep: compact.KeepIf(compact.Greater, compact.Float(0))},
		{Elem: vkcompact.Struct(12, 4, vkcompact.Int32), Keep: compact.KeepFlagged(1)},
	}
	i := 0
	for _, n := range []int{0, 1, 100, 4097, 100003} {
		for _, count := range []uint32{0, 1, uint32(n / 2), uint32(max(n-1, 0)), uint32(n), uint32(n + 5), 0xffffffff} {
			c := selCase{n: n, sel: sels[i%len(sels)], gpuCount: true, count: count}
			c.sel.Split = i%3 == 1
			c.sel.InPlace = i%2 == 1
			switch c.sel.Keep.Op {
			case compact.Flagged, compact.NonZero:
				c.keep = keepMask(rng, n, patRandom, 0.5)
			default:
				c.keys = specialKeys(c.sel.Elem.Key, c.c)
			}
			runSel(t, ctx, rng, c)
			i++
		}
	}
}
