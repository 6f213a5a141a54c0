package compact_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// The run lengths (compact.OutputRunLengths, package runs' Encode),
// checked against the Go reference of the neighbour tests: each run's
// first element to Elements, its length to Dst.

// tryRunLengths runs c (c.sel.Output OutputRunLengths) through
// Plan.Record on fresh random runs with every written buffer poisoned,
// and checks the result block, the keys, the lengths and that nothing
// past them was written.
func tryRunLengths(t *testing.T, ctx *vk.Context, rng *rand.Rand, c nbCase) error {
	e := c.sel.Elem
	e.Key = e.Key.OrUint32()
	size := int(e.Size())
	data := runData(rng, e, c.n, c.repeat)
	nEff := c.n
	if c.gpuCount {
		nEff = min(c.n, int(c.count))
	}
	var wantKeys, wantLengths []byte
	var starts []int
	for i, k := range refNeighbours(data, e, c.sel.Keep, nEff) {
		if k {
			wantKeys = append(wantKeys, data[i*size:(i+1)*size]...)
			starts = append(starts, i)
		}
	}
	for j, s := range starts {
		end := nEff
		if j+1 < len(starts) {
			end = starts[j+1]
		}
		wantLengths = binary.LittleEndian.AppendUint32(wantLengths, uint32(end-s))
	}
	kept := len(starts)

	p, err := compact.NewPlan(ctx, uint64(c.n), c.sel)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if c.sel.Path != vkcompact.PathAuto && p.Tuning().Path != c.sel.Path {
		return fmt.Errorf("planned on %v", p.Tuning().Path)
	}
	if ph := p.Phases(); ph[len(ph)-1] != "lengths" {
		return fmt.Errorf("phases %v: want the fix-up, lengths, last", ph)
	}
	const guard = 64
	nb := uint64(c.n * size)
	src := vktest.NewPoisoned(t, ctx, nb+guard)
	if err := vk.Upload(src.Range(0, nb), data); err != nil {
		return err
	}
	lengths := vktest.NewPoisoned(t, ctx, uint64(c.n)*4+guard)
	keys := vktest.NewPoisoned(t, ctx, nb+guard)
	b := compact.Buffers{Src: src.Range(0, nb), Dst: lengths.Range(0, uint64(c.n)*4), Elements: keys.Range(0, nb),
		Result:  vktest.NewPoisoned(t, ctx, compact.ResultSize).Range(0, compact.ResultSize),
		Scratch: vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())}
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
	res, err := compact.ReadResult(b.Result)
	if err != nil {
		return err
	}
	if int(res.Kept) != kept || int(res.Rejected) != nEff-kept || int(res.Total) != nEff {
		return fmt.Errorf("result block kept/rejected/total %d/%d/%d, want %d/%d/%d", res.Kept, res.Rejected, res.Total, kept, nEff-kept, nEff)
	}
	for _, o := range []struct {
		what string
		buf  *vk.Buffer
		want []byte
		size int
	}{{"key", keys, wantKeys, size}, {"length", lengths, wantLengths, 4}} {
		got := make([]byte, o.buf.Size())
		if err := vk.Download(o.buf.All(), got); err != nil {
			return err
		}
		if out := got[:len(o.want)]; !bytes.Equal(out, o.want) {
			for i := 0; i < len(o.want); i += o.size {
				if !bytes.Equal(out[i:i+o.size], o.want[i:i+o.size]) {
					return fmt.Errorf("run %d of %d: %s % x, want % x", i/o.size, kept, o.what, out[i:i+o.size], o.want[i:i+o.size])
				}
			}
		}
		if !bytes.Equal(got[len(o.want):], vktest.PoisonBytes(uint64(len(got)))[len(o.want):]) {
			return errors.New("bytes after the runs' " + o.what + "s were written")
		}
	}
	return nil
}

func runRunLengths(t *testing.T, ctx *vk.Context, rng *rand.Rand, c nbCase) {
	t.Helper()
	c.sel.Output = compact.OutputRunLengths
	if err := tryRunLengths(t, ctx, rng, c); err != nil {
		t.Fatalf("%v: %v", c, err)
	}
}

// TestRunLengthsSizes runs the run lengths around tile and chunk
// boundaries: all distinct, runs, runs longer than a tile, all equal, one
// element and none, and with the count on the GPU.
func TestRunLengthsSizes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	sizes := []int{0, 1, 2, 3, 4, 5, 31, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4097, 16385, 70001}
	if vktest.Short() {
		sizes = []int{0, 1, 2, 3, 5, 33, 256, 257, 1025, 4097, 16385}
	}
	if lean(ctx) {
		sizes = []int{0, 1, 2, 33, 257, 4097}
	}
	for _, n := range sizes {
		for pi, path := range nbPaths {
			for ri, repeat := range []float64{-1, 0.5, 0.999, 1} { // all distinct, runs, long runs, all equal
				if lean(ctx) && pi == 1 && ri > 1 {
					continue
				}
				runRunLengths(t, ctx, rng, nbCase{n: n, sel: compact.Selection{Keep: compact.KeepUnique(), Options: compact.Options{Path: path}}, repeat: repeat})
			}
			for _, count := range []uint32{0, 1, uint32(n / 2), uint32(n), uint32(n) + 5} {
				sel := compact.Selection{Keep: compact.KeepUnique(), Options: compact.Options{Path: path}}
				runRunLengths(t, ctx, rng, nbCase{n: n, sel: sel, repeat: 0.6, gpuCount: true, count: count})
			}
		}
	}
}

// TestRunLengthsShapes runs the run lengths on every key type and layout
// under each equality, and with small and large tiles and chunks and
// several loads per lane, so that tiles, segments and chunks cut runs.
func TestRunLengthsShapes(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	eqs := []compact.Equality{compact.EqualKeys, compact.EqualKeyBits, compact.EqualElements}
	for ei, e := range nbElems() {
		for pi, path := range nbPaths {
			if (vktest.Short() && pi != ei%2) || (lean(ctx) && ei != 0 && ei != 8) {
				continue
			}
			i := (ei + pi) % 3
			sel := compact.Selection{Elem: e, Keep: compact.KeepFirstOfRun(eqs[i]), Options: compact.Options{Path: path}}
			runRunLengths(t, ctx, rng, nbCase{n: 2000 + rng.IntN(3000), sel: sel, repeat: []float64{0.5, 0.9, 0.1}[i]})
		}
	}
	sg := ctx.Info().MaxSubgroupSize
	for li, loads := range []uint32{1, 2, 3, 4} {
		for oi, o := range []compact.Options{
			{Path: vkcompact.PathSinglePass, WorkgroupSize: sg, LoadsPerLane: loads},
			{Path: vkcompact.PathSinglePass, WorkgroupSize: 4 * sg, LoadsPerLane: loads},
			{Path: vkcompact.PathThreePhase, LoadsPerLane: loads, Processors: 7},
			{Path: vkcompact.PathThreePhase, LoadsPerLane: loads, Processors: 64, WorkgroupSize: 2 * sg},
		} {
			if o.WorkgroupSize > ctx.Info().MaxWorkgroupInvocations || (vktest.Short() && oi%2 != li%2) || (lean(ctx) && li != 0) {
				continue
			}
			e := []vkcompact.Elem{vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Float64), vkcompact.Struct(12, 8, vkcompact.Uint32)}[(li+oi)%3]
			sel := compact.Selection{Elem: e, Keep: compact.KeepUnique(), Options: o}
			runRunLengths(t, ctx, rng, nbCase{n: 3000 + rng.IntN(2000), sel: sel, repeat: []float64{0.8, 0.3, 0.97}[(li+oi)%3]})
		}
	}
}

// TestRunLengthsBadInput: the run lengths refuse what does not apply,
// naming it.
func TestRunLengthsBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	for _, c := range []struct {
		sel compact.Selection
		msg string
	}{
		{compact.Selection{Keep: compact.KeepNonZero()}, "run lengths apply to a FirstOfRun selection, not nonzero"},
		{compact.Selection{Keep: compact.KeepRunEdges(compact.EqualKeys)}, "run lengths apply to a FirstOfRun selection"},
		{compact.Selection{Keep: compact.KeepUnique(), Split: true, ReverseRejected: true}, "apply to a compaction, not a split"},
		{compact.Selection{Keep: compact.KeepUnique(), InPlace: true}, "cannot be written in place"},
		{compact.Selection{Keep: compact.KeepUnique(), Options: compact.Options{Path: vkcompact.PathThreePhase, Write: compact.WriteScattered}}, "found in the staged write"},
	} {
		c.sel.Output = compact.OutputRunLengths
		_, err := compact.NewPlan(ctx, 1000, c.sel)
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want ErrInvalid naming %q", c.sel, err, c.msg)
		}
	}
	if s := compact.OutputRunLengths.String(); s != "run lengths" {
		t.Errorf("OutputRunLengths is %q", s)
	}
}
