package scan_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestByKeyBadInput: each bad argument to the scan by key's entry points
// is refused with an error naming it, before any GPU work, and the
// caller's buffers are left alone.
func TestByKeyBadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	other := vktest.Open(t)
	info := ctx.Info()
	const n = 1000
	p, err := scan.NewByKeyPlan(ctx, n, scan.ByKey{})
	if err != nil {
		t.Fatal(err)
	}
	keys, values, dst := vktest.NewPoisoned(t, ctx, n*4+256), vktest.NewPoisoned(t, ctx, n*4), vktest.NewPoisoned(t, ctx, n*4+256)
	scratch := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	foreign := vktest.NewPoisoned(t, other, n*4)
	good := func() scan.ByKeyBuffers {
		return scan.ByKeyBuffers{Keys: keys.Range(0, n*4), Values: values.All(), Dst: dst.Range(0, n*4), Scratch: scratch.All()}
	}
	record := func(p *scan.ByKeyPlan, edit func(b *scan.ByKeyBuffers)) func() error {
		return func() error {
			b := good()
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	plan := func(n uint64, b scan.ByKey) func() error {
		return func() error { _, err := scan.NewByKeyPlan(ctx, n, b); return err }
	}
	timer, err := ctx.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(timer.Release)
	cases := []badinput.Case{
		{Entry: "NewByKeyPlan", Input: "nil context", Want: vk.ErrInvalid, Msg: "scan: nil context",
			Call: func() error { _, err := scan.NewByKeyPlan(nil, n, scan.ByKey{}); return err }},
		{Entry: "NewByKeyPlan", Input: "int64 keys", Want: vk.ErrInvalid, Msg: "the keys' type must be u32, i32, f32 or u64",
			Call: plan(n, scan.ByKey{Elem: vkcompact.Plain(vkcompact.Int64)})},
		{Entry: "NewByKeyPlan", Input: "struct keys", Want: vk.ErrInvalid, Msg: "keys are plain values (vkcompact.Plain), not structs",
			Call: plan(n, scan.ByKey{Elem: vkcompact.Struct(8, 4, vkcompact.Uint32)})},
		{Entry: "NewByKeyPlan", Input: "uint64 values", Want: vk.ErrInvalid, Msg: "the values' type must be u32, i32 or f32",
			Call: plan(n, scan.ByKey{Value: vkcompact.Uint64})},
		{Entry: "NewByKeyPlan", Input: "an unknown operation", Want: vk.ErrInvalid, Msg: "unknown operation 3", Call: plan(n, scan.ByKey{Op: 3})},
		{Entry: "NewByKeyPlan", Input: "the three phases", Want: vk.ErrInvalid, Msg: "it runs in a single pass only",
			Call: plan(n, scan.ByKey{Options: scan.Options{Path: vkcompact.PathThreePhase}})},
		{Entry: "NewByKeyPlan", Input: "an unknown path", Want: vk.ErrInvalid, Msg: "unknown path 7", Call: plan(n, scan.ByKey{Options: scan.Options{Path: 7}})},
		{Entry: "NewByKeyPlan", Input: "processors", Want: vk.ErrInvalid, Msg: "Options.Processors does not apply",
			Call: plan(n, scan.ByKey{Options: scan.Options{Processors: 8}})},
		{Entry: "NewByKeyPlan", Input: "too many pairs", Want: vk.ErrInvalid, Msg: "4294967296 pairs: at most", Call: plan(1<<32, scan.ByKey{})},
		{Entry: "NewByKeyPlan", Input: "too many loads", Want: vk.ErrInvalid, Msg: "5 loads per lane: at most 4",
			Call: plan(n, scan.ByKey{Options: scan.Options{LoadsPerLane: 5}})},
		{Entry: "NewByKeyPlan", Input: "a workgroup of no whole subgroups", Want: vk.ErrInvalid, Msg: "want a multiple of the largest subgroup size",
			Call: plan(n, scan.ByKey{Options: scan.Options{WorkgroupSize: info.MaxSubgroupSize + 1}})},
		{Entry: "NewByKeyPlan", Input: "a workgroup of 1024", Want: vk.ErrInvalid, Msg: "want a multiple of the largest subgroup size",
			Call: plan(n, scan.ByKey{Options: scan.Options{WorkgroupSize: 1024}})},
		{Entry: "Record", Input: "nil plan", Want: vk.ErrInvalid, Msg: "scan: nil ByKeyPlan", Call: record(nil, func(*scan.ByKeyBuffers) {})},
		{Entry: "Run", Input: "nil plan", Want: vk.ErrInvalid, Msg: "scan: nil ByKeyPlan",
			Call: func() error { var p *scan.ByKeyPlan; return p.Run(good()) }},
		{Entry: "Record", Input: "no keys", Want: vk.ErrInvalid, Msg: "no keys buffer", Call: record(p, func(b *scan.ByKeyBuffers) { b.Keys = vk.Range{} })},
		{Entry: "Record", Input: "keys too small", Want: vk.ErrInvalid, Msg: "keys range of 3996 bytes: 4000 needed",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Keys = keys.Range(0, n*4-4) })},
		{Entry: "Record", Input: "no values", Want: vk.ErrInvalid, Msg: "no values buffer", Call: record(p, func(b *scan.ByKeyBuffers) { b.Values = vk.Range{} })},
		{Entry: "Record", Input: "values too small", Want: vk.ErrInvalid, Msg: "values range of 3996 bytes: 4000 needed",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Values = values.Range(0, n*4-4) })},
		{Entry: "Record", Input: "no output", Want: vk.ErrInvalid, Msg: "no scans buffer", Call: record(p, func(b *scan.ByKeyBuffers) { b.Dst = vk.Range{} })},
		{Entry: "Record", Input: "output too small", Want: vk.ErrInvalid, Msg: "scans range of 400 bytes: 4000 needed",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Dst = dst.Range(0, 400) })},
		{Entry: "Record", Input: "output over the values (in place)", Want: vk.ErrInvalid, Msg: "does not run in place: its scans (Dst) overlap its values",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Dst = values.All() })},
		{Entry: "Record", Input: "output over the keys", Want: vk.ErrInvalid, Msg: "the keys and scans ranges overlap",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Dst = keys.Range(0, n*4) })},
		{Entry: "Record", Input: "output not aligned", Want: vk.ErrInvalid, Msg: "scans offset 4 is not a multiple of minStorageBufferOffsetAlignment",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Dst = dst.Range(4, n*4) })},
		{Entry: "Record", Input: "keys of another context", Want: vk.ErrInvalid, Msg: "keys: the buffer belongs to another context",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Keys = foreign.All() })},
		{Entry: "Record", Input: "no scratch", Want: vk.ErrInvalid, Msg: "no scratch buffer", Call: record(p, func(b *scan.ByKeyBuffers) { b.Scratch = vk.Range{} })},
		{Entry: "Record", Input: "scratch too small", Want: vk.ErrInvalid, Msg: "scratch range of",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Scratch = scratch.Range(0, p.ScratchSize()-16) })},
		{Entry: "Record", Input: "scratch over the output", Want: vk.ErrInvalid, Msg: "the scans and scratch ranges overlap",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Scratch = dst.Range(0, p.ScratchSize()) })},
		{Entry: "Record", Input: "a count of 8 bytes", Want: vk.ErrInvalid, Msg: "count range of 8 bytes",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Count = keys.Range(n*4, 8) })},
		{Entry: "Record", Input: "a count at byte 2", Want: vk.ErrInvalid, Msg: "count offset 4002 is not a multiple of 4",
			Call: record(p, func(b *scan.ByKeyBuffers) { b.Count = keys.Range(n*4+2, 4) })},
		{Entry: "RecordTimed", Input: "a timer of 2 queries", Want: vk.ErrInvalid, Msg: "needs a timer of 3 queries; it has 2",
			Call: func() error { return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.RecordTimed(r, good(), timer) }) }},
		{Entry: "RecordTimed", Input: "no timer", Want: vk.ErrInvalid, Msg: "RecordTimed needs a timer",
			Call: func() error { return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.RecordTimed(r, good(), nil) }) }},
		{Entry: "Record", Input: "a plan of another context", Want: vk.ErrInvalid, Msg: "the plan was made for another context",
			Call: func() error { return pipeline.Run(other, func(r *pipeline.Recorder) { p.Record(r, good()) }) }},
		{Entry: "ScanByKeySlice", Input: "values of another length", Want: vk.ErrInvalid, Msg: "3 values for 2 keys",
			Call: func() error {
				_, err := scan.ScanByKeySlice(ctx, []uint32{1, 2}, []float32{1, 2, 3}, scan.ByKey{})
				return err
			}},
		{Entry: "ScanByKeySlice", Input: "a key type not the slice's", Want: vk.ErrInvalid, Msg: "does not match the elements' Go type",
			Call: func() error {
				_, err := scan.ScanByKeySlice(ctx, []uint64{1}, []float32{1}, scan.ByKey{Elem: vkcompact.Plain(vkcompact.Uint32)})
				return err
			}},
		{Entry: "ScanByKeySlice", Input: "a value type not the slice's", Want: vk.ErrInvalid, Msg: "ByKey.Value i32 does not match",
			Call: func() error {
				_, err := scan.ScanByKeySlice(ctx, []uint32{1}, []float32{1}, scan.ByKey{Value: vkcompact.Int32})
				return err
			}},
		{Entry: "ScanByKeySlice", Input: "nil context", Want: vk.ErrInvalid, Msg: "scan: nil context",
			Call: func() error { _, err := scan.ScanByKeySlice(nil, []uint32{1}, []uint32{1}, scan.ByKey{}); return err }},
	}
	watched := map[*vk.Buffer][]byte{keys: vktest.PoisonBytes(keys.Size()), values: vktest.PoisonBytes(values.Size()), dst: vktest.PoisonBytes(dst.Size())}
	badinput.CheckAll(t, cases, watched, info.MinStorageBufferOffsetAlignment)
}
