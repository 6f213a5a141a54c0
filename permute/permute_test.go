package permute_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/permute"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// moveCase is one gather or scatter to run and check.
type moveCase struct {
	perm    permute.Permutation
	n       int // positions
	other   int // elements of the indexed side
	bad     int // indices out of range (at random positions)
	segment uint64
	// gpuCount, when set, passes count through Buffers.Count.
	gpuCount bool
	count    uint32
	status   bool // pass a status word
}

func (c moveCase) String() string {
	s := fmt.Sprintf("%v n=%d other=%d bad=%d %+v", c.perm, c.n, c.other, c.bad, c.perm.Options)
	if c.segment != 0 {
		s += fmt.Sprintf(" segment=%d", c.segment)
	}
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

// randomWords returns n random words.
func randomWords(rng *rand.Rand, n int) []uint32 {
	w := make([]uint32, n)
	for i := range w {
		w[i] = rng.Uint32()
	}
	return w
}

// indicesFor draws c's indices: for a scatter a permutation of a random
// subset of the destination's slots (no repeats, so the result is
// defined), for a gather any slots, repeats included; then c.bad of them
// replaced by indices at or past the bound.
func indicesFor(rng *rand.Rand, c moveCase) []uint32 {
	idx := make([]uint32, c.n)
	if c.perm.Scatter {
		slots := rng.Perm(c.other)
		for i := range idx {
			idx[i] = uint32(slots[i])
		}
	} else {
		for i := range idx {
			idx[i] = rng.Uint32N(uint32(max(c.other, 1)))
		}
	}
	for range c.bad {
		idx[rng.IntN(c.n)] = []uint32{uint32(c.other), uint32(c.other) + 1, uint32(c.other) + 1<<20, 0xffffffff}[rng.IntN(4)]
	}
	return idx
}

// refMove is the Go reference: dst (the destination's words as they were)
// with every position below counted moved, the bad ones skipped; and the
// first bad position below counted, or StatusOK.
func refMove(c moveCase, src, dst []uint32, idx []uint32, counted int) ([]uint32, uint32) {
	w := int(c.perm.Elem.Size() / 4)
	out := slices.Clone(dst)
	status := uint32(permute.StatusOK)
	for i := range counted {
		x := int(idx[i])
		if idx[i] >= uint32(c.other) {
			status = min(status, uint32(i))
			continue
		}
		from, to := x, i
		if c.perm.Scatter {
			from, to = i, x
		}
		copy(out[to*w:(to+1)*w], src[from*w:(from+1)*w])
	}
	return out, status
}

// runMove records c over a poisoned destination and status with fresh
// random elements and indices, and checks both against refMove.
func runMove(t *testing.T, ctx *vk.Context, rng *rand.Rand, c moveCase) {
	t.Helper()
	w := uint64(c.perm.Elem.Size() / 4)
	nSrc, nDst := uint64(c.other), uint64(c.n)
	if c.perm.Scatter {
		nSrc, nDst = nDst, nSrc
	}
	src := randomWords(rng, int(nSrc*w))
	idx := indicesFor(rng, c)
	p, err := permute.NewPlanSegmentLimit(ctx, uint64(c.n), c.perm, c.segment)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	buf := func(words uint64) vk.Range { return vktest.NewPoisoned(t, ctx, 4*words).Range(0, 4*words) }
	b := permute.Buffers{Indices: buf(uint64(c.n)), Src: buf(nSrc * w), Dst: buf(nDst * w)}
	if c.status {
		b.Status = buf(1)
	}
	for _, u := range []struct {
		r vk.Range
		d []uint32
	}{{b.Indices, idx}, {b.Src, src}} {
		if err := vk.Upload(u.r, u.d); err != nil {
			t.Fatal(err)
		}
	}
	counted := c.n
	if c.gpuCount {
		b.Count = vktest.NewPoisoned(t, ctx, 256).Range(8, 4) // a word at byte 8, as a result block's third count
		if err := vk.Upload(b.Count, []uint32{c.count}); err != nil {
			t.Fatal(err)
		}
		counted = min(int(c.count), c.n)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	got := make([]uint32, nDst*w)
	if err := vk.Download(b.Dst, got); err != nil {
		t.Fatal(err)
	}
	want, wantStatus := refMove(c, src, vktest.PoisonWords(int(nDst*w)), idx, counted)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("%v (tuning %+v): word %d (element %d) is %#x, want %#x", c, p.Tuning(), i, uint64(i)/w, got[i], want[i])
	}
	if c.status {
		var status [1]uint32
		if err := vk.Download(b.Status, status[:]); err != nil {
			t.Fatal(err)
		}
		if status[0] != wantStatus {
			t.Fatalf("%v: status %#x, want %#x", c, status[0], wantStatus)
		}
	}
}

func firstDiff(a, b []uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// elemSizes are the element sizes the tests move: the packed 4 and 8
// bytes, vectors of 4 words (16, 32, 256 bytes), of 2 (24) and single
// words (12, 20).
var elemSizes = []uint32{4, 8, 12, 16, 20, 24, 32, 256}

// TestMove gathers and scatters elements of every size class at sizes
// from none past several workgroups, against the Go reference over
// poisoned destinations, with a status word; the gathers repeat indices,
// the scatters leave slots unwritten.
func TestMove(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{0, 1, 3, 4, 5, 255, 1027, 20001}
	if !vktest.Short() {
		sizes = append(sizes, 150001)
	}
	for _, size := range elemSizes {
		for _, scatter := range []bool{false, true} {
			for i, n := range sizes {
				if size == 256 && n > 20001 {
					continue
				}
				perm := permute.Permutation{Elem: vkcompact.Struct(size, 0, vkcompact.Uint32), Scatter: scatter}
				runMove(t, ctx, rng, moveCase{perm: perm, n: n, other: n + i*7, status: i%2 == 0})
			}
		}
	}
}

// TestOutOfRange moves with indices at and past the indexed side's end,
// on every element size class, gathers and scatters: those positions
// move nothing, every other moves, and the status word holds the first
// such position.
func TestOutOfRange(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	for _, size := range elemSizes {
		for _, scatter := range []bool{false, true} {
			for _, n := range []int{1, 7, 4099} {
				perm := permute.Permutation{Elem: vkcompact.Struct(size, 0, vkcompact.Uint32), Scatter: scatter}
				runMove(t, ctx, rng, moveCase{perm: perm, n: n, other: n + 3, bad: 1 + n/100, status: true})
			}
		}
	}
}

// TestOptions runs every loads per lane and a one-subgroup workgroup,
// and segments of 64 positions of the in-order side with
// GPU counts inside a segment, past the end and of none.
func TestOptions(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sg := ctx.Info().MaxSubgroupSize
	for i, o := range []permute.Options{{LoadsPerLane: 1}, {LoadsPerLane: 3}, {LoadsPerLane: 4, WorkgroupSize: sg}} {
		for j, size := range elemSizes {
			perm := permute.Permutation{Elem: vkcompact.Struct(size, 0, vkcompact.Uint32), Scatter: (i+j)%2 == 1, Options: o}
			runMove(t, ctx, rng, moveCase{perm: perm, n: 2001, other: 3000, bad: 2, status: true})
			c := moveCase{perm: perm, n: 1003, other: 1100, segment: 64 * uint64(size), status: true, bad: j % 2}
			runMove(t, ctx, rng, c)
			c.gpuCount = true
			for _, count := range []uint32{0, 501, 1003, 5000} {
				c.count = count
				runMove(t, ctx, rng, c)
			}
		}
	}
}

// TestPastOneBinding gathers more positions than one binding of indices
// holds (maxStorageBufferRange: 128 MiB on lavapipe), in two dispatches,
// of 4-byte elements and of 8-byte ones (the destination past one binding
// too). A scatter's destination, bound whole, is at most one binding, and
// so is its source of as many elements at most.
func TestPastOneBinding(t *testing.T) {
	vktest.Large(t)
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	limit := int(ctx.Info().MaxStorageBufferRange)
	runMove(t, ctx, rng, moveCase{perm: permute.Permutation{}, n: limit/4 + 4099, other: 1 << 20, bad: 3, status: true})
	n := limit/8 + 1027
	runMove(t, ctx, rng, moveCase{perm: permute.Permutation{Elem: vkcompact.Plain(vkcompact.Uint64)}, n: n, other: 1000, bad: 1, status: true})
}
