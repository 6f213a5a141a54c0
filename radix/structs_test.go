package radix_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// particle is an engine's struct: the sort's key is Depth.
type particle struct {
	Pos   [3]float32
	Depth float32
	ID    uint32
	Life  int32
	Tag   uint64 // a 64-bit key at byte 24
	Pad   [3]uint32
}

// randomParticles gives n particles with every field random: Depth is a
// float with repeats, negative values, zeros of both signs, infinities and
// NaNs, so that ties and the float order show.
func randomParticles(rng *rand.Rand, n int) []particle {
	ps := make([]particle, n)
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, -1}
	for i := range ps {
		p := &ps[i]
		p.Pos = [3]float32{rng.Float32(), rng.Float32(), rng.Float32()}
		switch rng.IntN(4) {
		case 0:
			p.Depth = special[rng.IntN(len(special))]
		case 1:
			p.Depth = float32(rng.IntN(16)) - 8 // ties
		default:
			p.Depth = float32(rng.NormFloat64() * 100)
		}
		p.ID = uint32(i)
		p.Life = int32(rng.Uint32())
		p.Tag = rng.Uint64() >> rng.IntN(64)
		p.Pad = [3]uint32{rng.Uint32(), rng.Uint32(), rng.Uint32()}
	}
	return ps
}

// refStructs sorts items stably by the key at e.KeyOffset, with refSort's
// order (mapped key, Descending, [BeginBit, EndBit)).
func refStructs[T any](s radix.StructSort, items []T) []T {
	keys := make([]uint64, len(items))
	for i := range items {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&items[i])), unsafe.Sizeof(items[i]))[s.Elem.KeyOffset:]
		if s.Elem.Key.Size() == 8 {
			keys[i] = binary.LittleEndian.Uint64(b)
		} else {
			keys[i] = uint64(binary.LittleEndian.Uint32(b))
		}
	}
	perm := refSort(radix.Sort{Elem: vkcompact.Plain(s.Elem.Key), Descending: s.Descending, BeginBit: s.BeginBit, EndBit: s.EndBit}, keys)
	out := make([]T, len(items))
	for i, j := range perm {
		out[i] = items[j]
	}
	return out
}

func asBytes[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}

func elemOf[T any](t *testing.T, field string) vkcompact.Elem {
	t.Helper()
	e, err := vkcompact.StructOf[T](field)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSortStructs sorts random particles by each of their key fields,
// ascending and descending, at sizes around the workgroup and tile
// boundaries, through SortStructsSlice, and compares every byte of every
// struct with a stable Go sort.
func TestSortStructs(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{0, 1, 2, 63, 64, 65, 1000, 4097, 30011}
	fields := []string{"Depth", "ID", "Life", "Tag"}
	for i, n := range sizes {
		items := randomParticles(rng, n)
		for j, field := range fields {
			s := radix.StructSort{Elem: elemOf[particle](t, field), Descending: (i+j)%2 == 1}
			if field == "Tag" && i%3 == 0 {
				s.BeginBit, s.EndBit = 8, 40
			}
			got, err := radix.SortStructsSlice(ctx, items, field, s)
			if err != nil {
				t.Fatalf("n=%d %s: %v", n, field, err)
			}
			want := refStructs(s, items)
			if !slices.Equal(asBytes(got), asBytes(want)) {
				t.Fatalf("n=%d by %s desc=%v bits=[%d,%d): the structs differ from a stable sort", n, field, s.Descending, s.BeginBit, s.EndBit)
			}
		}
	}
}

// word is the smallest struct: a bare key.
type word struct{ K uint32 }

// wide is a struct of 68 bytes whose key is its last word.
type wide struct {
	Body [16]uint32
	K    int32
}

// TestStructPlanShapes records StructPlan at offsets in shared buffers,
// with the destination poisoned, for struct strides of 4, 40 and 68
// bytes, and checks the sorted structs and that nothing past them was
// written.
func TestStructPlanShapes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	align := max(ctx.Info().MinStorageBufferOffsetAlignment, 4)
	t.Run("word", func(t *testing.T) {
		items := make([]word, 5000)
		for i := range items {
			items[i].K = rng.Uint32() % 300
		}
		checkStructPlan(t, ctx, radix.StructSort{Elem: elemOf[word](t, "K")}, items, align)
	})
	t.Run("particle", func(t *testing.T) {
		items := randomParticles(rng, 7777)
		checkStructPlan(t, ctx, radix.StructSort{Elem: elemOf[particle](t, "Depth"), Descending: true}, items, 3*align)
	})
	t.Run("wide", func(t *testing.T) {
		items := make([]wide, 3001)
		for i := range items {
			for w := range items[i].Body {
				items[i].Body[w] = rng.Uint32()
			}
			items[i].K = int32(rng.IntN(2000)) - 1000
		}
		checkStructPlan(t, ctx, radix.StructSort{Elem: elemOf[wide](t, "K")}, items, 2*align)
	})
}

func checkStructPlan[T any](t *testing.T, ctx *vk.Context, s radix.StructSort, items []T, off uint64) {
	t.Helper()
	n := uint64(len(items))
	p, err := radix.NewStructPlan(ctx, n, s)
	if err != nil {
		t.Fatal(err)
	}
	size := n * uint64(unsafe.Sizeof(items[0]))
	src := vktest.NewPoisoned(t, ctx, off+size+64)
	dst := vktest.NewPoisoned(t, ctx, off+size+64)
	scratch := vktest.NewPoisoned(t, ctx, off+p.ScratchSize())
	if err := vk.Upload(src.Range(off, size), items); err != nil {
		t.Fatal(err)
	}
	b := radix.StructBuffers{Src: src.Range(off, size), Dst: dst.Range(off, size), Scratch: scratch.Range(off, p.ScratchSize())}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, dst.Size())
	if err := vk.Download(dst.All(), got); err != nil {
		t.Fatal(err)
	}
	want := vktest.PoisonBytes(dst.Size())
	copy(want[off:], asBytes(refStructs(s, items)))
	if !slices.Equal(got, want) {
		t.Fatalf("%d structs of %d bytes by a %s key: the destination differs from a stable sort (or bytes around it were written)", n, s.Elem.Size(), s.Elem.Key)
	}
}

// TestStructSortAfterCompaction is an engine's frame: compact particles
// by Life > 0 on the GPU, then sort the survivors by depth, far to near,
// taking their count from the compaction's result block, in one command
// buffer. The sorted survivors must match a Go filter and stable sort,
// and the destination past them must stay poisoned.
func TestStructSortAfterCompaction(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, n := range []int{1, 100, 20000} {
		items := randomParticles(rng, n)
		elem := elemOf[particle](t, "Life")
		sel, err := compact.NewPlan(ctx, uint64(n), compact.Selection{Elem: elem, Keep: compact.KeepIf(compact.Greater, compact.Int(0))})
		if err != nil {
			t.Fatal(err)
		}
		s := radix.StructSort{Elem: elemOf[particle](t, "Depth"), Descending: true}
		sorter, err := radix.NewStructPlan(ctx, uint64(n), s)
		if err != nil {
			t.Fatal(err)
		}
		size := uint64(n) * uint64(unsafe.Sizeof(particle{}))
		src := vktest.NewPoisoned(t, ctx, size)
		kept := vktest.NewPoisoned(t, ctx, size)
		out := vktest.NewPoisoned(t, ctx, size)
		result := vktest.NewPoisoned(t, ctx, compact.ResultSize)
		s1 := vktest.NewPoisoned(t, ctx, sel.ScratchSize())
		s2 := vktest.NewPoisoned(t, ctx, sorter.ScratchSize())
		if err := vk.Upload(src.Range(0, size), items); err != nil {
			t.Fatal(err)
		}
		err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
			sel.Record(r, compact.Buffers{Src: src.Range(0, size), Dst: kept.Range(0, size), Result: result.Range(0, compact.ResultSize),
				Scratch: s1.Range(0, sel.ScratchSize())})
			sorter.Record(r, radix.StructBuffers{Src: kept.Range(0, size), Dst: out.Range(0, size),
				Scratch: s2.Range(0, sorter.ScratchSize()), Count: result.Range(compact.ResultKeptOffset, 4)})
		})
		if err != nil {
			t.Fatal(err)
		}
		var survivors []particle
		for _, p := range items {
			if p.Life > 0 {
				survivors = append(survivors, p)
			}
		}
		got := make([]byte, size)
		if err := vk.Download(out.Range(0, size), got); err != nil {
			t.Fatal(err)
		}
		want := vktest.PoisonBytes(size)
		copy(want, asBytes(refStructs(s, survivors)))
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d, %d survivors: the sorted survivors differ from a Go filter and sort, or the slots past them were written", n, len(survivors))
		}
	}
}

// TestStructSortBadInput: a struct sort refuses a key type the sort does
// not take, a mismatched layout, overlapping or short ranges and a count
// range that is not one word, with ErrInvalid naming the problem, and
// leaves the caller's buffers as they were.
func TestStructSortBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	type f64 struct {
		A uint32
		B uint32
		K float64
	}
	p, err := radix.NewStructPlan(ctx, 100, radix.StructSort{Elem: elemOf[particle](t, "Depth")})
	if err != nil {
		t.Fatal(err)
	}
	size := 100 * uint64(unsafe.Sizeof(particle{}))
	a := vktest.NewPoisoned(t, ctx, 2*size+4096)
	s := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	align := max(ctx.Info().MinStorageBufferOffsetAlignment, 4)
	dstOff := (size + align - 1) / align * align
	good := radix.StructBuffers{Src: a.Range(0, size), Dst: a.Range(dstOff, size), Scratch: s.Range(0, p.ScratchSize())}
	countOff := (dstOff + size + align - 1) / align * align
	rec := func(edit func(b *radix.StructBuffers)) func() error {
		return func() error {
			b := good
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	var nilPlan *radix.StructPlan
	inval := vk.ErrInvalid
	for _, c := range []badinput.Case{
		{Entry: "NewStructPlan", Input: "float64 key", Want: inval, Msg: "the key field is a f64", Call: func() error {
			_, err := radix.NewStructPlan(ctx, 10, radix.StructSort{Elem: elemOf[f64](t, "K")})
			return err
		}},
		{Entry: "NewStructPlan", Input: "key past the stride", Want: inval, Msg: "does not fit in a 8-byte element", Call: func() error {
			_, err := radix.NewStructPlan(ctx, 10, radix.StructSort{Elem: vkcompact.Struct(8, 8, vkcompact.Uint32)})
			return err
		}},
		{Entry: "NewStructPlan", Input: "nil context", Want: inval, Msg: "radix: nil context", Call: func() error {
			_, err := radix.NewStructPlan(nil, 10, radix.StructSort{Elem: elemOf[particle](t, "Depth")})
			return err
		}},
		{Entry: "NewStructPlan", Input: "too many structs", Want: inval, Msg: "exceed one binding", Call: func() error {
			_, err := radix.NewStructPlan(ctx, 1<<40, radix.StructSort{Elem: elemOf[particle](t, "Depth")})
			return err
		}},
		{Entry: "SortStructsSlice", Input: "no such field", Want: inval, Msg: `no field "Height"`, Call: func() error {
			_, err := radix.SortStructsSlice(ctx, []particle{{}}, "Height", radix.StructSort{})
			return err
		}},
		{Entry: "SortStructsSlice", Input: "Elem of another field", Want: inval, Msg: "does not match", Call: func() error {
			_, err := radix.SortStructsSlice(ctx, []particle{{}}, "Depth", radix.StructSort{Elem: elemOf[particle](t, "ID")})
			return err
		}},
		{Entry: "StructPlan.Record", Input: "nil plan", Want: inval, Msg: "radix: nil StructPlan", Call: func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { nilPlan.Record(r, good) })
		}},
		{Entry: "StructPlan.Record", Input: "destination overlaps source", Want: inval, Msg: "the destination overlaps the source", Call: rec(func(b *radix.StructBuffers) {
			b.Dst = a.Range(0, size)
		})},
		{Entry: "StructPlan.Record", Input: "short destination", Want: inval, Msg: "destination range of", Call: rec(func(b *radix.StructBuffers) {
			b.Dst = a.Range(dstOff, size-4)
		})},
		{Entry: "StructPlan.Record", Input: "no scratch", Want: inval, Msg: "no scratch buffer", Call: rec(func(b *radix.StructBuffers) {
			b.Scratch = vk.Range{}
		})},
		{Entry: "StructPlan.Record", Input: "count of 8 bytes", Want: inval, Msg: "it must be exactly 4", Call: rec(func(b *radix.StructBuffers) {
			b.Count = a.Range(countOff, 8)
		})},
		{Entry: "StructPlan.Run", Input: "nil plan", Want: inval, Msg: "radix: nil StructPlan", Call: func() error {
			return nilPlan.Run(good)
		}},
	} {
		before := make([][]byte, 2)
		for i, buf := range []*vk.Buffer{a, s} {
			before[i] = make([]byte, buf.Size())
			if err := vk.Download(buf.All(), before[i]); err != nil {
				t.Fatal(err)
			}
		}
		badinput.Check(t, c)
		for i, buf := range []*vk.Buffer{a, s} {
			after := make([]byte, buf.Size())
			if err := vk.Download(buf.All(), after); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(before[i], after) {
				t.Errorf("%s: %s: a buffer changed", c.Entry, c.Input)
			}
		}
	}
}
