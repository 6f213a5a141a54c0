package radix_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestSortConflicts: a Sort.Elem or StructSort.Elem that conflicts with the
// slice's Go type is refused with vk.ErrInvalid naming both, before any
// GPU work (a nil context gives the same refusal).
func TestSortConflicts(t *testing.T) {
	ctx := vktest.Shared(t)
	depth := elemOf[particle](t, "Depth") // Struct(48, 12, f32)
	for _, c := range []struct {
		name string
		call func(ctx *vk.Context) error
		want []string // the explicit type or layout, and the Go type
	}{
		{"Sort{Elem: vkcompact.Plain(Float32)} with []uint32", func(ctx *vk.Context) error {
			_, err := radix.SortSlice(ctx, []uint32{2, 1}, radix.Sort{Elem: vkcompact.Plain(vkcompact.Float32)})
			return err
		}, []string{"Sort.Elem.Key f32", "Go type uint32 (u32)"}},
		{"Sort{Elem: vkcompact.Plain(Uint32)} with []float32", func(ctx *vk.Context) error {
			_, err := radix.SortSlice(ctx, []float32{2, 1}, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)})
			return err
		}, []string{"Sort.Elem.Key u32", "Go type float32 (f32)"}},
		{"Sort{Elem: vkcompact.Plain(Int32)} with []uint64", func(ctx *vk.Context) error {
			_, err := radix.SortSlice(ctx, []uint64{2, 1}, radix.Sort{Elem: vkcompact.Plain(vkcompact.Int32), Descending: true})
			return err
		}, []string{"Sort.Elem.Key i32", "Go type uint64 (u64)"}},
		{"SortPairsSlice([]int32, Sort{Elem: vkcompact.Plain(Uint64)})", func(ctx *vk.Context) error {
			_, _, err := radix.SortPairsSlice(ctx, []int32{2, 1}, []uint32{0, 1}, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64)})
			return err
		}, []string{"Sort.Elem.Key u64", "Go type int32 (i32)"}},
		{"SortPairsSlice([]float32, Sort{Elem: vkcompact.Plain(Int64)})", func(ctx *vk.Context) error {
			_, _, err := radix.SortPairsSlice(ctx, []float32{2, 1}, []uint32{0, 1}, radix.Sort{Elem: vkcompact.Plain(vkcompact.Int64)})
			return err
		}, []string{"Sort.Elem.Key i64", "Go type float32 (f32)"}},
		{"SortStructsSlice by Depth, Elem with a u32 key", func(ctx *vk.Context) error {
			_, err := radix.SortStructsSlice(ctx, []particle{{}}, "Depth", radix.StructSort{Elem: vkcompact.Struct(48, 12, vkcompact.Uint32)})
			return err
		}, []string{"StructSort.Elem Struct(48, 12, u32)", "radix_test.particle", "Depth at byte 12 is a float32 (f32), not u32"}},
		{"SortStructsSlice by Depth, Elem of another stride", func(ctx *vk.Context) error {
			_, err := radix.SortStructsSlice(ctx, []particle{{}}, "Depth", radix.StructSort{Elem: vkcompact.Struct(16, 12, vkcompact.Float32)})
			return err
		}, []string{"StructSort.Elem Struct(16, 12, f32)", "a stride of 16 bytes for a 48-byte radix_test.particle"}},
		{"SortStructsSlice by Depth, Elem of the ID field", func(ctx *vk.Context) error {
			_, err := radix.SortStructsSlice(ctx, []particle{{}}, "Depth", radix.StructSort{Elem: elemOf[particle](t, "ID")})
			return err
		}, []string{"StructSort.Elem Struct(48, 16, u32)", "radix_test.particle's field Depth, " + depth.String()}},
		{"SortStructsSlice by Depth, Plain(f32)", func(ctx *vk.Context) error {
			_, err := radix.SortStructsSlice(ctx, []particle{{}}, "Depth", radix.StructSort{Elem: vkcompact.Plain(vkcompact.Float32)})
			return err
		}, []string{"StructSort.Elem Plain(f32)", "radix_test.particle's field Depth, " + depth.String()}},
		{"SortStructsSlice by Depth, Plain(u32)", func(ctx *vk.Context) error {
			_, err := radix.SortStructsSlice(ctx, []particle{{}}, "Depth", radix.StructSort{Elem: vkcompact.Plain(vkcompact.Uint32)})
			return err
		}, []string{"StructSort.Elem Plain(u32)", "radix_test.particle", "Pos[0] at byte 0 is a float32 (f32), not u32"}},
	} {
		for _, ctx := range []*vk.Context{nil, ctx} {
			err := c.call(ctx)
			if !errors.Is(err, vk.ErrInvalid) {
				t.Errorf("%s (context %p): %v, want vk.ErrInvalid", c.name, ctx, err)
				continue
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s (context %p): %q does not say %q", c.name, ctx, err, w)
				}
			}
		}
	}
}

// TestSortKeyInferred: an unset Sort.Elem takes the keys' Go type, the
// same type given is accepted, and a plan given none sorts uint32 keys;
// each against a stable Go sort, the plan's outputs poisoned first
// (runSort).
func TestSortKeyInferred(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := 1000 + rng.IntN(1000)
	floats := make([]float32, n)
	ints := make([]int32, n)
	for i := range n {
		floats[i] = float32(rng.IntN(201)-100) / 4 // negatives: the float order is not the bits'
		ints[i] = int32(rng.Uint32()) >> rng.IntN(32)
	}
	floats[0] = float32(math.Inf(-1))
	for _, s := range []radix.Sort{{}, {Elem: vkcompact.Plain(vkcompact.Float32)}} {
		got, err := radix.SortSlice(ctx, floats, s)
		if want := slices.Sorted(slices.Values(floats)); err != nil || !slices.Equal(got, want) {
			t.Errorf("SortSlice of []float32 with Key %v: %v", s.Elem.Key, err)
		}
	}
	vals := make([]uint32, n)
	for i := range vals {
		vals[i] = uint32(i)
	}
	for _, s := range []radix.Sort{{Descending: true}, {Elem: vkcompact.Plain(vkcompact.Int32), Descending: true}} {
		keys, order, err := radix.SortPairsSlice(ctx, ints, vals, s)
		want := slices.Clone(vals)
		slices.SortStableFunc(want, func(a, b uint32) int { return -cmpKeys(ints[a], ints[b]) })
		if err != nil || !slices.Equal(order, want) || !slices.IsSortedFunc(keys, func(a, b int32) int { return -cmpKeys(a, b) }) {
			t.Errorf("SortPairsSlice of []int32 with Key %v, descending: %v", s.Elem.Key, err)
		}
	}
	// A plan given no key type sorts uint32 keys: 0xffffffff (-1 as an
	// int32, NaN as a float32) last.
	keys := keyData(rng, vkcompact.Uint32, n, "random")
	keys[1], keys[2] = 0xffffffff, 0x80000000
	runSort(t, ctx, sortCase{sort: radix.Sort{Values: true}, keys: keys})
	p, err := radix.NewPlan(ctx, uint64(n), radix.Sort{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := radix.NewPlan(ctx, uint64(n), radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)})
	if err != nil || p.Tuning() != q.Tuning() || p.ScratchSize() != q.ScratchSize() {
		t.Errorf("a plan of Sort{} is not one of Sort{Elem: vkcompact.Plain(Uint32)}: %+v, %+v, %v", p.Tuning(), q.Tuning(), err)
	}
}

// TestSortStructsElemInferred: SortStructsSlice takes an explicit Elem that
// matches the field, and fills an unset key type and a zero stride from
// it; each sorts as the field's own layout does.
func TestSortStructsElemInferred(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	items := randomParticles(rng, 500+rng.IntN(500))
	depth := elemOf[particle](t, "Depth")
	want := refStructs(radix.StructSort{Elem: depth}, items)
	for _, e := range []vkcompact.Elem{{}, depth, vkcompact.Struct(48, 12, vkcompact.Unset), {KeyOffset: 12, Key: vkcompact.Float32}} {
		got, err := radix.SortStructsSlice(ctx, items, "Depth", radix.StructSort{Elem: e})
		if err != nil || !slices.EqualFunc(got, want, sameBits) {
			t.Errorf("SortStructsSlice by Depth with Elem %v: %v", e, err)
		}
	}
}

// sameBits compares two particles bit for bit (NaN depths included).
func sameBits(a, b particle) bool {
	return math.Float32bits(a.Depth) == math.Float32bits(b.Depth) && a.ID == b.ID && a.Pos == b.Pos && a.Life == b.Life && a.Tag == b.Tag && a.Pad == b.Pad
}

func cmpKeys[T int32 | float32](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestArgsortSlice: the order ArgsortSlice returns sorts the keys
// stably (NumPy's argsort(kind="stable")), ascending and descending, for
// every key type; no keys give an empty order; Values set is refused.
func TestArgsortSlice(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := 3000 + rng.IntN(1000)
	floats := make([]float32, n)
	for i := range floats {
		floats[i] = float32(rng.IntN(50) - 25) // many equal keys: the order among them shows stability
	}
	for _, desc := range []bool{false, true} {
		order, err := radix.ArgsortSlice(ctx, floats, radix.Sort{Descending: desc})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]uint32, n)
		for i := range want {
			want[i] = uint32(i)
		}
		slices.SortStableFunc(want, func(a, b uint32) int {
			c := cmpKeys(floats[a], floats[b])
			if desc {
				c = -c
			}
			return c
		})
		if !slices.Equal(order, want) {
			t.Fatalf("descending %v: the order differs from a stable sort's", desc)
		}
	}
	u64 := []uint64{5, 1 << 40, 3, 1 << 40, 0}
	if order, err := radix.ArgsortSlice(ctx, u64, radix.Sort{}); err != nil || !slices.Equal(order, []uint32{4, 2, 0, 1, 3}) {
		t.Errorf("u64 keys: %v, %v", order, err)
	}
	if order, err := radix.ArgsortSlice(ctx, []int32{}, radix.Sort{}); err != nil || len(order) != 0 {
		t.Errorf("no keys: %v, %v", order, err)
	}
	if _, err := radix.ArgsortSlice(ctx, u64, radix.Sort{Values: true}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("Values set: %v, want ErrInvalid", err)
	}
}
