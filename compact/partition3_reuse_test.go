package compact_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// p3Run is one run of TestPartition3ScratchReuse: its own input, GPU
// count, outputs and result block, over the shared scratch.
type p3Run struct {
	data  []uint32
	count uint32
	b     compact.Partition3Buffers
}

// TestPartition3ScratchReuse runs a partition plan again and again on one
// scratch range: up to 1024 tiles the pass leaves its status words zero
// and the next run records no clear, past that the host clears them
// before every run. Several runs back to back in one command buffer (GPU
// counts leaving later tiles unused), then another command buffer, then
// with stale-looking status words uploaded (which must record a clear);
// every run's groups are checked against Go, and the status words must be
// zero after each command buffer of a self-resetting plan.
func TestPartition3ScratchReuse(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	const runs = 3
	wg, loads := vktest.SmallTiles(ctx.Info())
	if wg == 0 {
		wg, loads = 256, 1 // tiles of 1024 on a GPU
	}
	tile := int(wg * loads * 4)
	for i, tiles := range []int{500, 1100} {
		t.Run(fmt.Sprintf("tiles=%d", tiles), func(t *testing.T) {
			n := tiles*tile - 5
			part := part3Anchor()
			part.Spins = []int32{0, -1}[i]
			part.WorkgroupSize, part.LoadsPerLane = wg, loads
			p, err := compact.NewPartition3Plan(ctx, uint64(n), part)
			if err != nil {
				t.Fatal(err)
			}
			tu := p.Tuning()
			if tu.Tiles != uint32(tiles) || tu.SelfReset != (tiles <= 1024) {
				t.Fatalf("%d tiles, self-reset %v: want %d tiles", tu.Tiles, tu.SelfReset, tiles)
			}
			status := vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
			words := 3*uint64(tiles) + 2
			round := func(what string, wantClear bool) {
				t.Helper()
				rs := make([]p3Run, runs)
				for i := range rs {
					rs[i] = newP3Run(t, ctx, rng, n, []uint32{uint32(n), uint32(n / 3), 0, uint32(n + 9)}[rng.IntN(4)])
					rs[i].b.Scratch = status
				}
				vktest.RecordRuns(t, ctx, what, runs, tu.SelfReset, wantClear, nil, func(r *pipeline.Recorder, i int) { p.Record(r, rs[i].b) })
				for i, x := range rs {
					if err := x.check(); err != nil {
						t.Fatalf("%s: run %d of %d (count %d): %v", what, i+1, runs, x.count, err)
					}
				}
				if tu.SelfReset {
					vktest.CheckZero(t, what, status, words)
				}
			}
			round("first use of the scratch", true)
			round("scratch left zero by the last run", false)
			vktest.UploadStale(t, status, func() uint32 { return rng.Uint32N(2)<<31 | rng.Uint32N(1<<20) })
			round("scratch overwritten by an upload", true)
		})
	}
}

// newP3Run makes one run's buffers: n random uint32 keys, a GPU count,
// and poisoned outputs and result block.
func newP3Run(t *testing.T, ctx *vk.Context, rng *rand.Rand, n int, count uint32) p3Run {
	t.Helper()
	x := p3Run{data: make([]uint32, n), count: count}
	for i := range x.data {
		x.data[i] = rng.Uint32()
	}
	nb := 4 * uint64(n)
	src := vktest.NewPoisoned(t, ctx, nb)
	if err := vk.Upload(src.All(), x.data); err != nil {
		t.Fatal(err)
	}
	cb := vktest.NewPoisoned(t, ctx, 16)
	if err := vk.Upload(cb.Range(0, 4), []uint32{count}); err != nil {
		t.Fatal(err)
	}
	x.b = compact.Partition3Buffers{Src: src.All(), First: vktest.NewPoisoned(t, ctx, nb).All(), Second: vktest.NewPoisoned(t, ctx, nb).All(),
		Rest: vktest.NewPoisoned(t, ctx, nb).All(), Result: vktest.NewPoisoned(t, ctx, compact.Partition3ResultSize).All(), Count: cb.Range(0, 4)}
	return x
}

// check compares the run's groups and counts with the Go reference.
func (x p3Run) check() error {
	var want [3][]uint32
	for _, v := range x.data[:min(len(x.data), int(x.count))] {
		switch {
		case v < 0x55555555:
			want[0] = append(want[0], v)
		case v < 0xaaaaaaaa:
			want[1] = append(want[1], v)
		default:
			want[2] = append(want[2], v)
		}
	}
	res, err := compact.ReadPartition3Result(x.b.Result)
	if err != nil {
		return err
	}
	for g, r := range []vk.Range{x.b.First, x.b.Second, x.b.Rest} {
		got := make([]uint32, len(x.data))
		if err := vk.Download(r, got); err != nil {
			return err
		}
		k := len(want[g])
		if int([]uint32{res.First, res.Second, res.Rest}[g]) != k || !slices.Equal(got[:k], want[g]) || !slices.Equal(got[k:], vktest.PoisonWords(len(got)-k)) {
			return fmt.Errorf("group %d (%d elements, the result says %+v) differs from the reference", g, k, res)
		}
	}
	return nil
}
