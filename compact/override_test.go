package compact_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// ovHit and ovRay are struct elements whose keys lie in nested structs
// and arrays of structs: Hits[0] at byte 4, Hits[1] at byte 12 (T, then
// Obj at 16), Seq at 24, Pad at 32, then padding to 40 bytes.
type ovHit struct {
	T   float32
	Obj uint32
}

type ovRay struct {
	ID   uint32
	Hits [2]ovHit
	Seq  uint64
	Pad  uint16
}

// TestSliceConflicts: every Elem that conflicts with the slice's Go type
// is refused with vk.ErrInvalid naming both, before any GPU work (a nil
// context gives the same refusal).
func TestSliceConflicts(t *testing.T) {
	ctx := vktest.Shared(t)
	sel := func(e vkcompact.Elem) compact.Selection {
		return compact.Selection{Elem: e, Keep: compact.KeepNonZero()}
	}
	for _, c := range []struct {
		name string
		call func(ctx *vk.Context) error
		want []string // the explicit Elem, the Go type, and what is there
	}{
		{"Plain(u32) over []float32", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []float32{1}, sel(vkcompact.Plain(vkcompact.Uint32)))
			return err
		}, []string{"Plain(u32)", "Go type float32", "is a float32 (f32), not u32"}},
		{"Plain(f32) over []uint32, flagged", func(ctx *vk.Context) error {
			_, _, err := compact.SelectFlaggedSlice(ctx, []uint32{1}, []uint8{1}, sel(vkcompact.Plain(vkcompact.Float32)))
			return err
		}, []string{"Plain(f32)", "Go type uint32", "is a uint32 (u32), not f32"}},
		{"Plain(u64) over []int32", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []int32{1}, sel(vkcompact.Plain(vkcompact.Uint64)))
			return err
		}, []string{"Plain(u64)", "Go type int32", "is a int32 (i32), not u64"}},
		{"Plain(i64) over []float64", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []float64{1}, sel(vkcompact.Plain(vkcompact.Int64)))
			return err
		}, []string{"Plain(i64)", "Go type float64", "is a float64 (f64), not i64"}},
		{"Struct(32, 28, u32) over a float32 field", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []apiParticle{{}}, sel(vkcompact.Struct(32, 28, vkcompact.Uint32)))
			return err
		}, []string{"Struct(32, 28, u32)", "Go type compact_test.apiParticle", "Life at byte 28 is a float32 (f32), not u32"}},
		{"Plain(u32) over a struct whose first field is a float32", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []apiParticle{{}}, sel(vkcompact.Plain(vkcompact.Uint32)))
			return err
		}, []string{"Plain(u32)", "compact_test.apiParticle", "Pos[0] at byte 0 is a float32 (f32), not u32"}},
		{"another struct's layout", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []apiParticle{{}}, sel(vkcompact.Struct(40, 0, vkcompact.Uint32)))
			return err
		}, []string{"Struct(40, 0, u32)", "compact_test.apiParticle", "a stride of 40 bytes for a 32-byte compact_test.apiParticle"}},
		{"a nested field of another type", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []ovRay{{}}, sel(vkcompact.Struct(40, 16, vkcompact.Float32)))
			return err
		}, []string{"Struct(40, 16, f32)", "compact_test.ovRay", "Hits[1].Obj at byte 16 is a uint32 (u32), not f32"}},
		{"inside a uint64", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []ovRay{{}}, sel(vkcompact.Struct(40, 28, vkcompact.Uint32)))
			return err
		}, []string{"Struct(40, 28, u32)", "compact_test.ovRay", "byte 28 lies inside Seq at byte 24, a uint64, not at its start"}},
		{"a field of no key type", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []ovRay{{}}, sel(vkcompact.Struct(40, 32, vkcompact.Uint32)))
			return err
		}, []string{"Struct(40, 32, u32)", "compact_test.ovRay", "Pad at byte 32, a uint16, not one of the key types"}},
		{"padding", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []ovRay{{}}, sel(vkcompact.Struct(40, 36, vkcompact.Uint32)))
			return err
		}, []string{"Struct(40, 36, u32)", "compact_test.ovRay", "byte 36 is padding"}},
		{"past the end, stride unset", func(ctx *vk.Context) error {
			_, _, err := compact.SelectSlice(ctx, []ovRay{{}}, sel(vkcompact.Elem{Key: vkcompact.Uint32, KeyOffset: 40}))
			return err
		}, []string{"Struct(0, 40, u32)", "compact_test.ovRay", "byte 40 is past its end (40 bytes)"}},
		{"a zero Elem over a struct", func(ctx *vk.Context) error {
			_, _, err := compact.SelectFlaggedSlice(ctx, []ovRay{{}}, []uint32{1}, compact.Selection{})
			return err
		}, []string{"compact_test.ovRay", "say where its key is"}},
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

// TestSliceElemInferred: a zero Elem takes the Go type's keys, an unset
// Key the type of the struct's field at KeyOffset, and an explicit Elem
// that fits is taken as given. Each selection is checked against a Go
// reference, through SelectSlice and through a plan of the Elem as SelectSlice
// resolves it, whose output is poisoned first. Cases that resolve alike
// share their pipelines, to keep the test short on CPU drivers.
func TestSliceElemInferred(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := 1000 + rng.IntN(1000)
	floats := make([]float32, n)
	ints := make([]int64, n)
	words := make([]uint32, n)
	parts := make([]apiParticle, n)
	rays := make([]ovRay, n)
	for i := range n {
		floats[i] = float32(rng.IntN(2001)-1000) / 8
		ints[i] = int64(rng.Uint64()) >> rng.IntN(64)
		words[i] = []uint32{0, 1, 5, 6, 0x7fffffff, 0x80000000, 0xffffffff}[rng.IntN(7)] // u32, i32 and f32 orders differ
		parts[i] = apiParticle{ID: uint32(i), Life: floats[i]}
		rays[i] = ovRay{ID: uint32(i), Seq: rng.Uint64() >> rng.IntN(64), Pad: uint16(i)}
		rays[i].Hits[1] = ovHit{T: floats[(i+1)%n], Obj: rng.Uint32N(3)}
	}
	gt := compact.KeepIf(compact.Greater, compact.Float(0))
	for _, c := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"zero Elem over []float32", func(t *testing.T) {
			checkSlice(t, ctx, floats, compact.Selection{Keep: gt}, vkcompact.Plain(vkcompact.Float32), func(x float32) bool { return x > 0 })
		}},
		{"Plain(f32) over []float32", func(t *testing.T) {
			checkSlice(t, ctx, floats, compact.Selection{Elem: vkcompact.Plain(vkcompact.Float32), Keep: gt}, vkcompact.Plain(vkcompact.Float32), func(x float32) bool { return x > 0 })
		}},
		{"Struct(4, 0, f32) over []float32", func(t *testing.T) {
			checkSlice(t, ctx, floats, compact.Selection{Elem: vkcompact.Struct(4, 0, vkcompact.Float32), Keep: gt}, vkcompact.Plain(vkcompact.Float32), func(x float32) bool { return x > 0 })
		}},
		{"zero Elem over []int64", func(t *testing.T) {
			checkSlice(t, ctx, ints, compact.Selection{Keep: compact.KeepIf(compact.Less, compact.Int(-3))}, vkcompact.Plain(vkcompact.Int64), func(x int64) bool { return x < -3 })
		}},
		{"Plain(u32) over []uint32", func(t *testing.T) {
			checkSlice(t, ctx, words, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepIf(compact.Greater, compact.Uint(5))}, vkcompact.Plain(vkcompact.Uint32), func(x uint32) bool { return x > 5 })
		}},
		{"StructOf(Life)", func(t *testing.T) {
			e, err := vkcompact.StructOf[apiParticle]("Life")
			if err != nil {
				t.Fatal(err)
			}
			checkSlice(t, ctx, parts, compact.Selection{Elem: e, Keep: gt}, e, func(p apiParticle) bool { return p.Life > 0 })
		}},
		{"Life with the key type unset", func(t *testing.T) {
			checkSlice(t, ctx, parts, compact.Selection{Elem: vkcompact.Struct(32, 28, vkcompact.Unset), Keep: gt}, vkcompact.Struct(32, 28, vkcompact.Float32), func(p apiParticle) bool { return p.Life > 0 })
		}},
		{"Hits[1].Obj", func(t *testing.T) {
			checkSlice(t, ctx, rays, compact.Selection{Elem: vkcompact.Struct(40, 16, vkcompact.Uint32), Keep: compact.KeepNonZero()}, vkcompact.Struct(40, 16, vkcompact.Uint32), func(r ovRay) bool { return r.Hits[1].Obj != 0 })
		}},
		{"Seq, stride and key type unset", func(t *testing.T) {
			checkSlice(t, ctx, rays, compact.Selection{Elem: vkcompact.Elem{KeyOffset: 24}, Keep: compact.KeepIf(compact.Greater, compact.Uint(1<<40))}, vkcompact.Struct(40, 24, vkcompact.Uint64), func(r ovRay) bool { return r.Seq > 1<<40 })
		}},
	} {
		t.Run(c.name, c.run)
	}
}

// checkSlice runs the compaction sel over data through SelectSlice and through
// a plan of resolved (the Elem SelectSlice takes it as), with a poisoned
// output, and compares both with the elements of data keep keeps; past
// them the plan's output must still be poison.
func checkSlice[T comparable](t *testing.T, ctx *vk.Context, data []T, sel compact.Selection, resolved vkcompact.Elem, keep func(T) bool) {
	t.Helper()
	var want []T
	for _, x := range data {
		if keep(x) {
			want = append(want, x)
		}
	}
	kept := len(want)
	got, res, err := compact.SelectSlice(ctx, data, sel)
	if err != nil || !slices.Equal(got, want) || res.Kept != uint32(kept) || res.Total != uint32(len(data)) {
		t.Fatalf("SelectSlice with %v: %d elements, %+v, %v; want %d elements, %d kept (equal: %v)", sel.Elem, len(got), res, err, len(want), kept, slices.Equal(got, want))
	}
	sel.Elem = resolved
	plan, err := compact.NewPlan(ctx, uint64(len(data)), sel)
	if err != nil {
		t.Fatalf("NewPlan with %v: %v", resolved, err)
	}
	size := uint64(unsafe.Sizeof(data[0]))
	bytes := uint64(len(data)) * size
	src, dst := vktest.NewPoisoned(t, ctx, bytes), vktest.NewPoisoned(t, ctx, bytes)
	if err := vk.Upload(src.Range(0, bytes), data); err != nil {
		t.Fatal(err)
	}
	if res, err = plan.Run(compact.Buffers{Src: src.Range(0, bytes), Dst: dst.Range(0, bytes)}); err != nil || res.Kept != uint32(kept) {
		t.Fatalf("a plan of %v: %+v, %v; want %d kept", resolved, res, err, kept)
	}
	out := make([]uint32, bytes/4)
	if err := vk.Download(dst.Range(0, bytes), out); err != nil {
		t.Fatal(err)
	}
	wantWords := append(asWords(want), vktest.PoisonWords(len(out)-len(want)*int(size/4))...)
	if i := firstDiff(out, wantWords); i >= 0 {
		t.Fatalf("a plan of %v: output word %d (element %d) is %#x, want %#x", resolved, i, i/int(size/4), out[i], wantWords[i])
	}
}

// asWords returns the 32-bit words of s's memory.
func asWords[T any](s []T) []uint32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0]))/4)
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []uint32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
