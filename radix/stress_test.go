package radix_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestOnesweepStress runs one single-pass sort again and again on the same
// keys, its outputs and scratch poisoned before every run, and requires
// every run's keys and values to equal the first run's, which are checked
// against the Go reference: a look-back that reads a predecessor's status
// too early, or a tile that publishes before its counts are visible, shows
// as a run that differs. 32- and 64-bit keys, keys and pairs, with the
// fallback at once (spins -1), after one re-read, and after the default
// spins. The shape is the one PathAuto takes where it takes the single
// pass, else a forced single pass's (6-bit digits). VKCOMPACT_REPEAT sets
// the runs per configuration (default 4, 1 in the short form) and
// VKCOMPACT_REPEAT_N the keys (default 70001); the GPU's record is
// results/*-stress*.txt.
func TestOnesweepStress(t *testing.T) {
	ctx := vktest.Shared(t)
	def := 4
	if vktest.Short() {
		def = 1
	}
	runs := vktest.EnvInt(t, "VKCOMPACT_REPEAT", def)
	n := vktest.EnvInt(t, "VKCOMPACT_REPEAT_N", 70001)
	rng := vktest.Rand(t)
	for _, key := range []vkcompact.Type{vkcompact.Uint32, vkcompact.Uint64} {
		for _, values := range []bool{false, true} {
			for _, spins := range []int32{-1, 1, 0} {
				stressOnesweep(t, ctx, rng, key, values, spins, runs, n)
			}
		}
	}
}

// stressOnesweep is one configuration of TestOnesweepStress.
func stressOnesweep(t *testing.T, ctx *vk.Context, rng *rand.Rand, key vkcompact.Type, values bool, spins int32, runs, n int) {
	t.Helper()
	s := radix.Sort{Elem: vkcompact.Plain(key), Values: values, Options: radix.Options{Spins: spins}}
	p, err := radix.NewPlan(ctx, uint64(n), s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tuning().Path != vkcompact.PathSinglePass {
		s.Options = onesweepOptions(s.Options)
		if p, err = radix.NewPlan(ctx, uint64(n), s); err != nil {
			t.Fatal(err)
		}
	}
	c := sortCase{sort: s, keys: keyData(rng, key, n, "random")}
	b, check, err := prepareSort(ctx, c, t)
	if err != nil {
		t.Fatal(err)
	}
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	b.Scratch = scratch.Range(0, p.ScratchSize())
	outs := []vk.Range{b.KeysOut}
	if values {
		outs = append(outs, b.ValuesOut)
	}
	var first [][]byte
	for r := range runs {
		err := ctx.Submit(func(cb vk.CommandBuffer) error {
			cb.MemoryBarrier(vk.StageAllCommands, vk.StageTransfer, vk.AccessMemoryRead|vk.AccessMemoryWrite, vk.AccessTransferWrite)
			for _, o := range append(outs, b.Scratch) {
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
		if r == 0 {
			if err := check(); err != nil {
				t.Fatalf("%v, tuning %+v: %v", c, p.Tuning(), err)
			}
		}
		for k, o := range outs {
			got := make([]byte, o.Size)
			if err := vk.Download(o, got); err != nil {
				t.Fatal(err)
			}
			if r == 0 {
				first = append(first, got)
			} else if !bytes.Equal(got, first[k]) {
				i := 0
				for got[i] == first[k][i] {
					i++
				}
				t.Fatalf("%v, tuning %+v: run %d of %d: %s differ from the first run's at element %d", c, p.Tuning(), r, runs, []string{"keys", "values"}[k], i/4)
			}
		}
	}
	tu := p.Tuning()
	t.Logf("%d runs of %d %v keys, values %v, spins %d, %d tiles of %d, %d-bit digits: all the same and right", runs, n, key, values, spins, tu.Tiles, tu.Tile, tu.DigitBits)
}
