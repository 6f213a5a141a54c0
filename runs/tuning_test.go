package runs_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// TestTuning checks what Plan.Tuning reports: the selection's tuning, on
// the path asked for, and the second dispatch's grid within the device's
// limits, one workgroup at least (it writes the result block even for no
// runs).
func TestTuning(t *testing.T) {
	ctx := vktest.Shared(t)
	info := ctx.Info()
	if (*runs.Plan)(nil).Tuning() != (runs.Tuning{}) {
		t.Error("a nil plan's tuning is not zero")
	}
	for _, n := range []uint64{0, 1000, 1 << 18} {
		for _, path := range []vkcompact.Path{vkcompact.PathThreePhase, vkcompact.PathSinglePass} {
			p, err := runs.NewPlan(ctx, n, runs.Encoding{Op: runs.NonTrivial, Options: compact.Options{Path: path}})
			if err != nil {
				t.Fatal(err)
			}
			tu := p.Tuning()
			if tu.Selection.Path != path {
				t.Errorf("n=%d %v: the selection's path is %v", n, path, tu.Selection.Path)
			}
			if tu.FinishWorkgroupSize == 0 || tu.FinishWorkgroupSize > info.MaxWorkgroupInvocations || tu.FinishWorkgroups == 0 ||
				tu.FinishWorkgroups > uint64(info.MaxWorkgroupCount[0]) {
				t.Errorf("n=%d %v: the second dispatch's grid is %d workgroups of %d", n, path, tu.FinishWorkgroups, tu.FinishWorkgroupSize)
			}
		}
	}
}

// TestLengthsTuning checks Encode's choice of where the lengths are
// found: LengthsAuto the class's (in the selection on GPUs, the finish
// on CPU devices), the finish where the caller chose the scattered
// write; the choice asked for otherwise; NonTrivial's always the finish;
// and with the lengths in the selection no finish grid, the selection's
// phases with its fix-up last, and its scratch alone.
func TestLengthsTuning(t *testing.T) {
	ctx := vktest.Shared(t)
	auto := runs.LengthsInSelection
	if ctx.Info().CPU() {
		auto = runs.LengthsFinish
	}
	for _, c := range []struct {
		enc  runs.Encoding
		want runs.Lengths
	}{
		{runs.Encoding{}, auto},
		{runs.Encoding{Options: compact.Options{Path: vkcompact.PathThreePhase, Write: compact.WriteScattered}}, runs.LengthsFinish},
		{runs.Encoding{Options: compact.Options{Path: vkcompact.PathThreePhase, Write: compact.WriteStaged}}, auto},
		{runs.Encoding{Lengths: runs.LengthsFinish}, runs.LengthsFinish},
		{runs.Encoding{Lengths: runs.LengthsInSelection, Options: compact.Options{Path: vkcompact.PathThreePhase}}, runs.LengthsInSelection},
		{runs.Encoding{Op: runs.NonTrivial}, runs.LengthsFinish},
		{runs.Encoding{Op: runs.NonTrivial, Lengths: runs.LengthsFinish}, runs.LengthsFinish},
	} {
		p, err := runs.NewPlan(ctx, 5000, c.enc)
		if err != nil {
			t.Fatalf("%+v: %v", c.enc, err)
		}
		tu := p.Tuning()
		if tu.Lengths != c.want {
			t.Errorf("%+v: lengths %v, want %v", c.enc, tu.Lengths, c.want)
		}
		phases := p.Phases()
		if c.want == runs.LengthsInSelection {
			sel, err := compact.NewPlan(ctx, 5000, compact.Selection{Keep: compact.KeepUnique(), Output: compact.OutputBoth, Options: c.enc.Options})
			if err != nil {
				t.Fatal(err)
			}
			if tu.FinishWorkgroupSize != 0 || tu.FinishWorkgroups != 0 || phases[len(phases)-1] != "lengths" ||
				len(phases) != len(sel.Phases())+1 || p.ScratchSize() > sel.ScratchSize()+4096 {
				t.Errorf("%+v: finish grid %d x %d, phases %v, scratch %d (the selection's %d)", c.enc, tu.FinishWorkgroups, tu.FinishWorkgroupSize, phases, p.ScratchSize(), sel.ScratchSize())
			}
		} else if fmt.Sprint(phases) != "[select finish]" || tu.FinishWorkgroups == 0 {
			t.Errorf("%+v: phases %v, finish grid %d", c.enc, phases, tu.FinishWorkgroups)
		}
	}
	for _, l := range []runs.Lengths{runs.LengthsAuto, runs.LengthsInSelection, runs.LengthsFinish, 7} {
		if l.String() == "" {
			t.Errorf("Lengths(%d) has no name", l)
		}
	}
	if (*runs.Plan)(nil).Phases() == nil {
		t.Error("a nil plan names no phases")
	}
}

// TestRecordTimed checks RecordTimed on both ways of finding the
// lengths: a timer of one query per phase and one more has each written
// in order, the encoding is Record's, and a timer a query short is
// refused, naming the queries.
func TestRecordTimed(t *testing.T) {
	ctx := vktest.Shared(t)
	if ctx.Info().TimestampValidBits == 0 {
		t.Skip("the queue has no timestamps")
	}
	data := []uint32{1, 1, 2, 2, 2, 3, 4, 4}
	for _, l := range []runs.Lengths{runs.LengthsInSelection, runs.LengthsFinish} {
		p, err := runs.NewPlan(ctx, uint64(len(data)), runs.Encoding{Lengths: l})
		if err != nil {
			t.Fatal(err)
		}
		b := runs.Buffers{}
		for _, r := range []*vk.Range{&b.Src, &b.Keys, &b.Lengths, &b.Result, &b.Scratch} {
			size := uint64(len(data)) * 4
			switch r {
			case &b.Result:
				size = runs.ResultSize
			case &b.Scratch:
				size = p.ScratchSize()
			}
			*r = vktest.NewPoisoned(t, ctx, size).All()
		}
		if err := vk.Upload(b.Src, data); err != nil {
			t.Fatal(err)
		}
		need := uint32(len(p.Phases()) + 1)
		short, err := ctx.NewTimer(need - 1)
		if err != nil {
			t.Fatal(err)
		}
		defer short.Release()
		if err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
			short.Reset(r.CommandBuffer())
			p.RecordTimed(r, b, short)
		}); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("a timer of %d queries", need)) {
			t.Errorf("%v: a timer of %d queries: %v, want ErrInvalid naming %d queries", l, need-1, err, need)
		}
		timer, err := ctx.NewTimer(need)
		if err != nil {
			t.Fatal(err)
		}
		defer timer.Release()
		if err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
			timer.Reset(r.CommandBuffer())
			p.RecordTimed(r, b, timer)
		}); err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		for i := uint32(0); i < need; i++ {
			if ns, err := timer.Nanoseconds(0, i); err != nil || ns < 0 {
				t.Errorf("%v: query %d: %v ns, %v", l, i, ns, err)
			}
		}
		res, err := runs.ReadResult(b.Result)
		if err != nil {
			t.Fatal(err)
		}
		keys, lengths := make([]uint32, res.Runs), make([]uint32, res.Runs)
		if err := vk.Download(b.Keys.Sub(0, uint64(res.Runs)*4), keys); err != nil {
			t.Fatal(err)
		}
		if err := vk.Download(b.Lengths.Sub(0, uint64(res.Runs)*4), lengths); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(keys, lengths) != "[1 2 3 4] [2 3 1 2]" {
			t.Errorf("%v: %v %v", l, keys, lengths)
		}
	}
}
