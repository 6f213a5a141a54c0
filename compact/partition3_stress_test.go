package compact_test

import (
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestPartition3Repeated runs one three-way partition again and again on
// the same input, every output poisoned before each run, and checks all
// three groups and the counts every time against Go: a tile that reads a
// predecessor's status words before they are final writes its elements
// to the wrong slots. Default spins and the fallback at once; on CPU
// devices many small tiles. VKCOMPACT_REPEAT sets the runs per
// configuration (default 10, 2 in the short form) and VKCOMPACT_REPEAT_N
// the size (default 100003): the H100's look-back stress.
func TestPartition3Repeated(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	def := 10
	if vktest.Short() {
		def = 2
	}
	runs, n := vktest.EnvInt(t, "VKCOMPACT_REPEAT", def), vktest.EnvInt(t, "VKCOMPACT_REPEAT_N", 100003)
	in := make([]uint32, n)
	var first, second, rest []uint32
	for i := range in {
		in[i] = rng.Uint32()
		switch {
		case in[i] < 0x55555555:
			first = append(first, in[i])
		case in[i] < 0xaaaaaaaa:
			second = append(second, in[i])
		default:
			rest = append(rest, in[i])
		}
	}
	nb := uint64(4 * n)
	src := vktest.NewPoisoned(t, ctx, nb)
	if err := vk.Upload(src.Range(0, nb), in); err != nil {
		t.Fatal(err)
	}
	outs := [3]*vk.Buffer{vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, nb), vktest.NewPoisoned(t, ctx, nb)}
	res := vktest.NewPoisoned(t, ctx, compact.Partition3ResultSize)
	got := make([]uint32, n)
	for _, spins := range []int32{0, -1} {
		part := compact.Partition3{
			Elem:  vkcompact.Plain(vkcompact.Uint32),
			First: compact.KeepIf(compact.Less, compact.Uint(0x55555555)), Second: compact.KeepIf(compact.Less, compact.Uint(0xaaaaaaaa)),
			Options: compact.Options{Spins: spins},
		}
		if ctx.Info().CPU() {
			part.WorkgroupSize, part.LoadsPerLane = vktest.SmallTiles(ctx.Info())
		}
		p, err := compact.NewPartition3Plan(ctx, uint64(n), part)
		if err != nil {
			t.Fatal(err)
		}
		scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
		b := compact.Partition3Buffers{Src: src.Range(0, nb), First: outs[0].Range(0, nb), Second: outs[1].Range(0, nb), Rest: outs[2].Range(0, nb),
			Result: res.Range(0, compact.Partition3ResultSize), Scratch: scratch.Range(0, p.ScratchSize())}
		for r := range runs {
			err := ctx.Submit(func(cb vk.CommandBuffer) error {
				cb.MemoryBarrier(vk.StageAllCommands, vk.StageTransfer, vk.AccessMemoryRead|vk.AccessMemoryWrite, vk.AccessTransferWrite)
				for _, o := range []vk.Range{b.First, b.Second, b.Rest, b.Result} {
					cb.FillBuffer(o, vktest.Poison)
				}
				cb.MemoryBarrier(vk.StageTransfer, vk.StageComputeShader, vk.AccessTransferWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
				rec := pipeline.Record(cb)
				p.Record(rec, b)
				return rec.Err()
			})
			if err != nil {
				t.Fatal(err)
			}
			counts, err := compact.ReadPartition3Result(b.Result)
			if err != nil {
				t.Fatal(err)
			}
			if counts != (compact.Partition3Result{First: uint32(len(first)), Second: uint32(len(second)), Rest: uint32(len(rest)), Total: uint32(n)}) {
				t.Fatalf("spins %d, run %d of %d: counts %+v, want %d, %d, %d", spins, r, runs, counts, len(first), len(second), len(rest))
			}
			for g, want := range [][]uint32{first, second, rest} {
				if err := vk.Download(outs[g].Range(0, nb), got); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got[:len(want)], want) || !slices.Equal(got[len(want):], vktest.PoisonWords(n-len(want))) {
					t.Fatalf("spins %d, run %d of %d: group %d differs from Go's (tuning %+v)", spins, r, runs, g, p.Tuning())
				}
			}
		}
		t.Logf("%d runs of %d elements, spins %d, tuning %+v: all right", runs, n, spins, p.Tuning())
	}
}
