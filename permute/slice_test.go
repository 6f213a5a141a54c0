package permute_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/vk"
)

// particle is a 28-byte element: no power of two, so it moves word by
// word.
type particle struct {
	Pos  [3]float32
	Vel  [3]float32
	Cell uint32
}

// TestSlices gathers and scatters Go slices of several element types
// (uint32, uint64, a 28-byte struct, a 64-byte array) and checks them
// against Go: a gather by a random order with repeats, and a scatter by a
// permutation into a destination of more elements, whose other slots keep
// their values.
func TestSlices(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	n := 3001
	order := make([]uint32, n)
	for i := range order {
		order[i] = rng.Uint32N(uint32(n))
	}
	perm := make([]uint32, n)
	for i, p := range rng.Perm(n + 50)[:n] {
		perm[i] = uint32(p)
	}
	check := func(name string, err error, ok bool) {
		t.Helper()
		if err != nil || !ok {
			t.Errorf("%s: %v, equal %v", name, err, ok)
		}
	}
	u32 := randomWords(rng, n)
	g32, err := permute.GatherSlice(ctx, u32, order, permute.Permutation{})
	check("uint32 gather", err, slices.Equal(g32, gatherRef(u32, order)))
	u64 := make([]uint64, n)
	for i := range u64 {
		u64[i] = rng.Uint64()
	}
	g64, err := permute.GatherSlice(ctx, u64, order, permute.Permutation{Elem: vkcompact.Plain(vkcompact.Int64)})
	check("uint64 gather", err, slices.Equal(g64, gatherRef(u64, order)))
	ps := make([]particle, n)
	for i := range ps {
		ps[i] = particle{Pos: [3]float32{rng.Float32(), 1, 2}, Cell: rng.Uint32()}
	}
	gp, err := permute.GatherSlice(ctx, ps, order, permute.Permutation{})
	check("particle gather", err, slices.Equal(gp, gatherRef(ps, order)))
	into := make([]particle, n+50)
	for i := range into {
		into[i].Cell = uint32(i)
	}
	sp, err := permute.ScatterSlice(ctx, into, ps, perm, permute.Permutation{})
	check("particle scatter", err, slices.Equal(sp, scatterRef(into, ps, perm)))
	if into[0].Cell != 0 || into[n+49].Cell != uint32(n+49) {
		t.Error("ScatterSlice modified its dst")
	}
	wide := make([][16]uint32, n)
	for i := range wide {
		wide[i][0], wide[i][15] = rng.Uint32(), uint32(i)
	}
	sw, err := permute.ScatterSlice(ctx, make([][16]uint32, n+50), wide, perm, permute.Permutation{})
	check("64-byte scatter", err, slices.Equal(sw, scatterRef(make([][16]uint32, n+50), wide, perm)))
	empty, err := permute.GatherSlice(ctx, u32, nil, permute.Permutation{})
	check("gather of no indices", err, len(empty) == 0)
}

// TestSliceBadInput gives the slice helpers one bad argument each: an
// error matching vk.ErrInvalid naming it, before any GPU work.
func TestSliceBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"index past the source", func() error {
			_, err := permute.GatherSlice(ctx, []uint32{1, 2}, []uint32{0, 2}, permute.Permutation{})
			return err
		}(), "index 2 at position 1 is out of range: the source holds 2 elements"},
		{"index past the destination", func() error {
			_, err := permute.ScatterSlice(ctx, make([]uint32, 3), []uint32{1, 2}, []uint32{3, 0}, permute.Permutation{})
			return err
		}(), "index 3 at position 0 is out of range: the destination holds 3 elements"},
		{"indices and source of other lengths", func() error {
			_, err := permute.ScatterSlice(ctx, make([]uint32, 3), []uint32{1, 2}, []uint32{1}, permute.Permutation{})
			return err
		}(), "1 indices for 2 source elements"},
		{"a 6-byte element", func() error {
			_, err := permute.GatherSlice(ctx, [][3]uint16{{1}}, []uint32{0}, permute.Permutation{})
			return err
		}(), "[3]uint16 is 6 bytes: an element must be a multiple of 4"},
		{"an element with a pointer", func() error {
			_, err := permute.GatherSlice(ctx, []*uint32{nil, nil}, []uint32{0}, permute.Permutation{})
			return err
		}(), "*uint32 holds pointers"},
		{"Elem of another size", func() error {
			_, err := permute.GatherSlice(ctx, []uint32{1}, []uint32{0}, permute.Permutation{Elem: vkcompact.Plain(vkcompact.Uint64)})
			return err
		}(), "Elem Plain(u64) does not match the elements' Go type uint32"},
		{"Scatter to GatherSlice", func() error {
			_, err := permute.GatherSlice(ctx, []uint32{1}, []uint32{0}, permute.Permutation{Scatter: true})
			return err
		}(), "use ScatterSlice"},
	} {
		if !errors.Is(c.err, vk.ErrInvalid) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want vk.ErrInvalid naming %q", c.name, c.err, c.want)
		}
	}
}

func gatherRef[T any](src []T, idx []uint32) []T {
	out := make([]T, len(idx))
	for i, x := range idx {
		out[i] = src[x]
	}
	return out
}

func scatterRef[T any](dst, src []T, idx []uint32) []T {
	out := slices.Clone(dst)
	for i, x := range idx {
		out[x] = src[i]
	}
	return out
}
