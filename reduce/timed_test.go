package reduce_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// timedPlan is what TestRecordTimed needs of a plan: its phases, and
// its recording with and without a timer over buffers it checks after.
type timedPlan struct {
	name   string
	phases []string
	got    []string
	record func(r *pipeline.Recorder, t *vk.Timer)
	check  func() error
}

// TestRecordTimed times each plan with a timer of len(Phases())+1
// queries, and of two more: its queries are written in order, the others
// not, and the output is right. A timer too short is refused before
// anything is recorded, naming the queries needed.
func TestRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	if ctx.Info().TimestampValidBits == 0 {
		t.Skip("no timestamps")
	}
	for _, p := range timedPlans(t, ctx, vktest.Rand(t)) {
		checkTimed(t, ctx, p)
	}
}

// timedPlans makes each plan of the package over fresh data, on both
// paths where it has two.
func timedPlans(t *testing.T, ctx *vk.Context, rng *rand.Rand) []timedPlan {
	const n = 5000
	bits := randBits(rng, vkcompact.Uint32, n, false, false)
	wantSum, _ := refReduce(vkcompact.Uint32, reduce.Sum, bits)
	src := vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n)
	if err := vk.Upload(src, words(vkcompact.Uint32, bits)); err != nil {
		t.Fatal(err)
	}
	var plans []timedPlan
	for _, path := range []vkcompact.Path{vkcompact.PathSinglePass, vkcompact.PathThreePhase} {
		p, err := reduce.NewPlan(ctx, n, reduce.Reduce{Options: reduce.Options{Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		b := reduce.Buffers{Src: src, Result: vktest.NewPoisoned(t, ctx, 16).Range(0, reduce.ResultSize), Scratch: vktest.NewPoisoned(t, ctx, p.ScratchSize()).All()}
		plans = append(plans, timedPlan{name: path.String(), phases: map[bool][]string{true: {"clear", "reduce"}, false: {"reduce", "combine"}}[path == vkcompact.PathSinglePass],
			got: p.Phases(), record: func(r *pipeline.Recorder, t *vk.Timer) { p.RecordTimed(r, b, t) },
			check: func() error {
				res, err := reduce.ReadResult(b.Result)
				if err == nil && res.Bits != wantSum {
					err = fmt.Errorf("sum %#x, want %#x", res.Bits, wantSum)
				}
				return err
			}})
	}
	off := []uint32{0, 1000, 1000, 4000, n}
	seg, err := reduce.NewSegmentedPlan(ctx, n, 4, reduce.Segmented{})
	if err != nil {
		t.Fatal(err)
	}
	sb := reduce.SegmentedBuffers{Src: src, Offsets: vktest.NewPoisoned(t, ctx, 20).Range(0, 20), Dst: vktest.NewPoisoned(t, ctx, 16).Range(0, 16),
		Scratch: vktest.NewPoisoned(t, ctx, seg.ScratchSize()).All()}
	if err := vk.Upload(sb.Offsets, off); err != nil {
		t.Fatal(err)
	}
	plans = append(plans, timedPlan{name: "segmented", phases: []string{"tiles", "fixup"}, got: seg.Phases(),
		record: func(r *pipeline.Recorder, t *vk.Timer) { seg.RecordTimed(r, sb, t) },
		check: func() error {
			got := make([]uint32, 4)
			if err := vk.Download(sb.Dst, got); err != nil {
				return err
			}
			if want := words(vkcompact.Uint32, refSegments(vkcompact.Uint32, reduce.Sum, bits, off)); !slices.Equal(got, want) {
				return fmt.Errorf("segment sums %v, want %v", got, want)
			}
			return nil
		}})
	bk, err := reduce.NewByKeyPlan(ctx, n, reduce.ByKey{})
	if err != nil {
		t.Fatal(err)
	}
	keys := runKeys(rng, vkcompact.Uint32, n, 0.01, false)
	kb := reduce.ByKeyBuffers{Keys: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), Values: src, KeysOut: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n),
		ValuesOut: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), Result: vktest.NewPoisoned(t, ctx, 48).Range(0, 48), Scratch: vktest.NewPoisoned(t, ctx, bk.ScratchSize()).All()}
	if err := vk.Upload(kb.Keys, words(vkcompact.Uint32, keys)); err != nil {
		t.Fatal(err)
	}
	plans = append(plans, timedPlan{name: "by key", phases: []string{"clear", "tiles", "fixup"}, got: bk.Phases(),
		record: func(r *pipeline.Recorder, t *vk.Timer) { bk.RecordTimed(r, kb, t) },
		check: func() error {
			_, wantV, _ := refByKey(vkcompact.Uint32, vkcompact.Uint32, reduce.Sum, keys, bits)
			got := make([]uint32, len(wantV))
			if err := vk.Download(kb.ValuesOut.Sub(0, 4*uint64(len(got))), got); err != nil {
				return err
			}
			if !slices.Equal(got, words(vkcompact.Uint32, wantV)) {
				return fmt.Errorf("wrong sums by key")
			}
			return nil
		}})
	return plans
}

// checkTimed records p with timers of its queries, two more, and one
// fewer (refused).
func checkTimed(t *testing.T, ctx *vk.Context, p timedPlan) {
	if !slices.Equal(p.got, p.phases) {
		t.Fatalf("%s: phases %q, want %q", p.name, p.got, p.phases)
	}
	need := uint32(len(p.phases) + 1)
	for _, queries := range []uint32{need, need + 2} {
		timer, err := ctx.NewTimer(queries)
		if err != nil {
			t.Fatal(err)
		}
		defer timer.Release()
		if err := ctx.Submit(func(cb vk.CommandBuffer) error {
			timer.Reset(cb)
			r := pipeline.Record(cb)
			p.record(r, timer)
			return r.Err()
		}); err != nil {
			t.Fatalf("%s, %d queries: %v", p.name, queries, err)
		}
		for i := uint32(0); i < queries; i++ {
			ns, err := timer.Nanoseconds(0, i)
			if written := i < need; written != (err == nil) || ns < 0 {
				t.Errorf("%s, %d queries: query %d: %v ns, %v (want written %v)", p.name, queries, i, ns, err, written)
			}
		}
		if err := p.check(); err != nil {
			t.Errorf("%s, %d queries: %v", p.name, queries, err)
		}
	}
	short, err := ctx.NewTimer(need - 1)
	if err != nil {
		t.Fatal(err)
	}
	defer short.Release()
	err = ctx.Submit(func(cb vk.CommandBuffer) error {
		short.Reset(cb)
		r := pipeline.Record(cb)
		p.record(r, short)
		return r.Err()
	})
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("RecordTimed needs a timer of %d queries", need)) {
		t.Errorf("%s, a timer of %d queries: %v, want ErrInvalid naming the queries needed", p.name, need-1, err)
	}
}

// TestScratchReuse runs a single-pass reduction and a reduction by key
// again and again on one scratch range, which each leaves zero for its
// next run (the counter, the status words) instead of a clear dispatch
// before it: runs back to back in one command buffer with no host wait,
// a clear recorded only before the first (the scratch starts poisoned).
// Each run is checked against the Go reference, and the words must be
// zero after the command buffer.
func TestScratchReuse(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	const runs, n = 4, 20000
	p, err := reduce.NewPlan(ctx, n, reduce.Reduce{Elem: vkcompact.Plain(vkcompact.Float32), Op: reduce.ArgMax, Options: smallGroups(ctx.Info(), reduce.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize()).All()
	data := make([][]uint64, runs)
	results := make([]vk.Range, runs)
	vktest.RecordRuns(t, ctx, "reduce", runs, true, true, nil, func(r *pipeline.Recorder, i int) {
		data[i] = randBits(rng, vkcompact.Float32, n, false, true)
		src := vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n)
		if err := vk.Upload(src, words(vkcompact.Float32, data[i])); err != nil {
			t.Fatal(err)
		}
		results[i] = vktest.NewPoisoned(t, ctx, 16).Range(0, 16)
		p.Record(r, reduce.Buffers{Src: src, Result: results[i], Scratch: scratch})
	})
	for i := range runs {
		res, err := reduce.ReadResult(results[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := checkResult(reduce.ArgMax, vkcompact.Float32, data[i], res, 0); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	vktest.CheckZero(t, "reduce", scratch, 1)

	bk, err := reduce.NewByKeyPlan(ctx, n, reduce.ByKey{Value: vkcompact.Int32, Op: reduce.Min})
	if err != nil {
		t.Fatal(err)
	}
	if !bk.Tuning().SelfReset {
		t.Fatalf("by key: %d tiles, not self-resetting", bk.Tuning().Tiles)
	}
	bscratch := vktest.NewPoisoned(t, ctx, bk.ScratchSize()).All()
	type run struct {
		keys, values []uint64
		b            reduce.ByKeyBuffers
	}
	rs := make([]run, runs)
	vktest.RecordRunsOf(t, ctx, "by key", runs, 2, true, true, nil, func(r *pipeline.Recorder, i int) {
		x := run{keys: runKeys(rng, vkcompact.Uint32, n, 0.2, false), values: randBits(rng, vkcompact.Int32, n, false, false)}
		x.b = reduce.ByKeyBuffers{Keys: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), Values: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n),
			KeysOut: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n), ValuesOut: vktest.NewPoisoned(t, ctx, 4*n).Range(0, 4*n),
			Result: vktest.NewPoisoned(t, ctx, 48).Range(0, 48), Scratch: bscratch}
		if err := vk.Upload(x.b.Keys, words(vkcompact.Uint32, x.keys)); err != nil {
			t.Fatal(err)
		}
		if err := vk.Upload(x.b.Values, words(vkcompact.Int32, x.values)); err != nil {
			t.Fatal(err)
		}
		rs[i] = x
		bk.Record(r, x.b)
	})
	for i, x := range rs {
		wantK, wantV, _ := refByKey(vkcompact.Uint32, vkcompact.Int32, reduce.Min, x.keys, x.values)
		res, err := reduce.ReadByKeyResult(x.b.Result)
		if err != nil {
			t.Fatal(err)
		}
		gotK, gotV := make([]uint32, res.Runs), make([]uint32, res.Runs)
		if res.Runs > 0 {
			if err := vk.Download(x.b.KeysOut.Sub(0, 4*uint64(res.Runs)), gotK); err != nil {
				t.Fatal(err)
			}
			if err := vk.Download(x.b.ValuesOut.Sub(0, 4*uint64(res.Runs)), gotV); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(gotK, words(vkcompact.Uint32, wantK)) || !slices.Equal(gotV, words(vkcompact.Int32, wantV)) {
			t.Errorf("by key run %d: %d runs, keys or values differ from the reference's %d", i, res.Runs, len(wantK))
		}
	}
	vktest.CheckZero(t, "by key", bscratch, 2+2*uint64(bk.Tuning().Tiles))
}
